#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace distsim {

//! A file an edge writes: its path and what writes its content, for writers that make several
//! files (a Chakra export's rank files) and the code that puts them in place.
struct OutputFile {
  std::string path;
  std::function<void(std::ostream&)> write;
};

}  // namespace distsim
