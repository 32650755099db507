#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "io/spec/megatron_args_reader.hpp"
#include "options/job_settings.hpp"

namespace distsim::cli {

//! The option table (options::job_options()) as CLI11 flags, plus --job FILE, --megatron-args
//! FILE_OR_STRING, --torchtitan FILE and --megatron-bridge FILE: a command's job is the job file's
//! settings, the launch settings' over them, and the flags given on the command line over both.
//! Every value is parsed by the table, so a flag, its job-file key and the launch setting it reads
//! accept the same values. With Megatron arguments, --model gives the vocabulary of the model they
//! describe (they have no vocabulary size of their own), with a Bridge config the recipe's model
//! its fields change; with a torchtitan TOML or a Bridge config, --nodes gives the world. What a
//! launch assumes and ignores is said on standard error.
class JobFlags {
 public:
  //! Adds --job and one flag per option of the table, except the keys in `left_out`.
  void add_to(CLI::App& command, const std::vector<std::string>& left_out = {});
  //! The settings of the flags given, without the job file.
  options::JobSettings flag_settings() const;
  //! The job file of --job, if given; empty settings otherwise.
  options::JobSettings file_settings() const;
  //! The launch settings of --megatron-args, --torchtitan or --megatron-bridge, read once; empty without one.
  const io::LaunchJob& launch_settings() const;
  //! The flags over the launch arguments over the job file.
  options::JobSettings settings() const;
  //! The flag registered for an option key.
  CLI::Option* flag(const std::string& key) const { return flags_.at(key); }

 private:
  std::string job_file_;
  std::string megatron_args_;
  std::string torchtitan_;
  std::string megatron_bridge_;
  mutable std::optional<io::LaunchJob> launch_;
  std::map<std::string, std::string> texts_;
  std::map<std::string, bool> switches_;
  std::map<std::string, CLI::Option*> flags_;
};

}  // namespace distsim::cli
