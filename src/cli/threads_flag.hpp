#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace distsim::cli {

//! --threads N of the commands that simulate many jobs: all cores unless given; zero and negative
//! counts are refused rather than read as "all cores".
class ThreadsFlag {
 public:
  void add_to(CLI::App& command, const std::string& help);
  //! The threads to use; throws InputError "--threads: expected a positive integer, got '-3'".
  int count() const;

 private:
  int threads_ = 0;
  CLI::Option* flag_ = nullptr;
};

}  // namespace distsim::cli
