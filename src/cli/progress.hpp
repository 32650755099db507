#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace distsim::cli {

//! How a long step reports how far it got: (done, total) in its own unit. The core takes it as a
//! plain callback; the CLI's ProgressFlag makes one that prints.
using ProgressCallback = std::function<void(std::size_t, std::size_t)>;

//! --progress of the commands that can run long (simulate, search, validate). On a terminal
//! (stderr is a tty) a step that lasts over half a second redraws one bar line whether or not the
//! flag is given; off a terminal, with the flag, it prints one line every kLineInterval and one
//! when it ends, e.g. "distsim: simulate: 131072/2400000 tasks (5%) after 5 s". Only stderr
//! changes: stdout and output files are the same bytes with and without progress.
class ProgressFlag {
 public:
  static constexpr std::chrono::seconds kLineInterval{5};

  void add_to(CLI::App& command);
  //! A callback for one step: `step` names it ("simulate", "trace 'out.json'") and `unit` counts
  //! its work ("tasks"). Empty when nothing would be printed. Not thread-safe: a caller that
  //! reports from several threads serializes the calls.
  ProgressCallback reporter(const std::string& step, const std::string& unit) const;

 private:
  bool lines_ = false;
};

}  // namespace distsim::cli
