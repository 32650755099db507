#pragma once

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "options/job_settings.hpp"

namespace distsim::cli {

//! The option table (options::job_options()) as CLI11 flags, plus --job FILE: a command's job is
//! the job file's settings with the flags given on the command line over them. Every value is
//! parsed by the table, so a flag and its job-file key accept the same values.
class JobFlags {
 public:
  //! Adds --job and one flag per option of the table, except the keys in `left_out`.
  void add_to(CLI::App& command, const std::vector<std::string>& left_out = {});
  //! The settings of the flags given, without the job file.
  options::JobSettings flag_settings() const;
  //! The job file of --job, if given; empty settings otherwise.
  options::JobSettings file_settings() const;
  //! The flags over the job file.
  options::JobSettings settings() const { return flag_settings().over(file_settings()); }
  //! The flag registered for an option key.
  CLI::Option* flag(const std::string& key) const { return flags_.at(key); }

 private:
  std::string job_file_;
  std::map<std::string, std::string> texts_;
  std::map<std::string, bool> switches_;
  std::map<std::string, CLI::Option*> flags_;
};

}  // namespace distsim::cli
