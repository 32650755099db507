#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace distsim::io {

//! One `--flag` of a launch command with the words that follow it up to the next flag
//! ("--num-layers 32" gives {"--num-layers", {"32"}}; "--seq-length=4096" gives {"--seq-length",
//! {"4096"}}).
struct LaunchFlag {
  std::string flag;
  std::vector<std::string> words;
  //! How the launch writes it where that is not the flag (a config's "model.num_layers"), for
  //! messages; and its line there, 0 when none is known.
  std::string written_as = "";
  int line = 0;
  const std::string& shown() const { return written_as.empty() ? flag : written_as; }
};

//! The flags of a launch script or argument string as a shell would pass them, in order. Read as
//! sh reads words: quotes, backslash escapes and line continuations, '#' comments. A `NAME=value`
//! word (also after `export`) sets a variable, which later `$NAME` and `${NAME}` take, split into
//! words as sh splits an unquoted expansion (DISTRIBUTED_ARGS="--nproc_per_node 8 --nnodes 2");
//! a bash array `NAME=( ... )` gives the flags it holds where it is set. Words that are not flags and
//! follow none (torchrun, pretrain_gpt.py, ${GPT_ARGS[@]}) are not arguments and are left out; a
//! `$NAME` the script never sets stays as written, so that a reader can say so.
std::vector<LaunchFlag> launch_flags(std::string_view script);

}  // namespace distsim::io
