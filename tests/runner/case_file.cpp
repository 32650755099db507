#include "case_file.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace distsim::testing {

namespace {

CaseLine parse_line(const std::string& text, int number) {
  CaseLine line;
  line.number = number;
  std::string rest = text;
  const auto open = text.find('"');
  if (open != std::string::npos) {
    const auto close = text.rfind('"');
    line.quoted = text.substr(open + 1, close - open - 1);
    rest = text.substr(0, open);
  }
  std::istringstream words(rest);
  words >> line.directive;
  std::string word;
  while (words >> word) {
    const auto equals = word.find('=');
    if (equals != std::string::npos) {
      line.pairs[word.substr(0, equals)] = word.substr(equals + 1);
    } else {
      line.words.push_back(word);
    }
  }
  return line;
}

}  // namespace

CaseFile read_case_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("cannot open case file " + path);
  }
  CaseFile file;
  file.path = path;
  std::string text;
  int number = 0;
  while (std::getline(in, text)) {
    ++number;
    if (text.rfind("# name:", 0) == 0) {
      file.name = text.substr(8);
    }
    if (text.empty() || text[0] == '#') {
      continue;
    }
    file.lines.push_back(parse_line(text, number));
  }
  return file;
}

}  // namespace distsim::testing
