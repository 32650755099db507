#pragma once

#include <map>
#include <string>
#include <vector>

namespace distsim::testing {

//! One line of a case file: a directive, its words, and its key=value pairs.
struct CaseLine {
  int number = 0;
  std::string directive;
  std::vector<std::string> words;
  std::map<std::string, std::string> pairs;
  std::string quoted;  //!< the text between the first pair of double quotes, if any
};

//! A data-driven end-to-end case: `# description:` says how the expectations were worked out.
struct CaseFile {
  std::string path;
  std::string name;
  std::vector<CaseLine> lines;
};

CaseFile read_case_file(const std::string& path);

}  // namespace distsim::testing
