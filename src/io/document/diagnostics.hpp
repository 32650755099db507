#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace distsim::io {

//! The problems found in one input file. Readers record every problem instead of stopping at
//! the first, so that a user can fix a file in one pass, then throw_if_any() reports them all.
class Diagnostics {
 public:
  //! More problems than this are counted, not listed.
  static constexpr std::size_t kMaxListed = 20;

  explicit Diagnostics(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }

  //! Records "<file>:<line>: <key_path>: <message>". Line 0 means no line is known and an empty
  //! key path means the problem is not about one key; either part is then left out.
  void add(int line, std::string_view key_path, std::string_view message);

  bool empty() const { return problems_.empty(); }

  //! Throws one InputError listing the recorded problems, one per line and in file order
  //! (problems without a line first); does nothing if there are none.
  void throw_if_any() const;

 private:
  std::string file_;
  struct Problem {
    int line;
    std::string text;
  };
  std::vector<Problem> problems_;
};

}  // namespace distsim::io
