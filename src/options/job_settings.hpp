#pragma once

#include <map>
#include <string>
#include <string_view>

#include "options/job_option.hpp"

namespace distsim::options {

//! One setting as a reader found it: its value and where it came from, as messages name it
//! ("--fp8", "job file 'jobs/a.yaml': key fp8").
struct Setting {
  Value value;
  std::string origin;
};

//! The settings of one job as its readers gave them, keyed by option key; what is not set takes
//! the table's default or an assembly rule (assemble_job).
class JobSettings {
 public:
  //! Sets one option; a second set of the same key replaces the first.
  void set(std::string_view key, Value value, std::string origin);
  //! Parses `text` with the option's rule and sets it; throws InputError "<origin>: <problem>".
  void set_text(std::string_view key, std::string_view text, const std::string& origin);
  void erase(std::string_view key) { settings_.erase(std::string(key)); }
  const Setting* find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key) != nullptr; }
  bool empty() const { return settings_.empty(); }
  //! These settings over `base`: each one given here replaces base's, and drops the base settings
  //! it excludes (a flag --tp drops a job file's strategy).
  JobSettings over(const JobSettings& base) const;
  //! How the user named each setting, for validation messages.
  strategy::SettingNames names() const;
  const std::map<std::string, Setting, std::less<>>& all() const { return settings_; }

 private:
  std::map<std::string, Setting, std::less<>> settings_;
};

}  // namespace distsim::options
