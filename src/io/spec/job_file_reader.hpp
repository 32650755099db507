#pragma once

#include <string>

#include "options/job_settings.hpp"

namespace distsim::io {

//! Reads a YAML or JSON job file: its keys are the option table's (options::job_options(), the
//! flags of `distsim simulate` with underscores), and each value is parsed by the table's rule, so
//! a key and its flag accept the same values. Names are not resolved here: model, gpu and cluster
//! stay what the file wrote, except that a relative path is made relative to the job file's
//! folder. The options of a section (JobOption::section) sit in a mapping under its name
//! (`goodput: {tokens: 15e12}`), and nowhere else. Each setting's origin is "job file '<path>':
//! key <key>" (<section>.<key> in a section). Unknown keys (with the closest
//! known one), values the table refuses, and `strategy` given with tp, pp or dp are all reported in
//! one InputError, one problem per line with the file and line.
options::JobSettings read_job_file(const std::string& path);

//! A model, GPU or cluster named in the file at `file_path`: a relative path is made relative to
//! that file's folder; a catalog name or an absolute path stays as written.
std::string relative_to_file(const std::string& name, const std::string& file_path);

}  // namespace distsim::io
