#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "core/output_file.hpp"

namespace distsim::cli {

//! Writes the output file that `flag` names (for example "--trace") so that a failed or stopped
//! run leaves no partial file and nothing is written where it should not be:
//! - a new or regular file is written to a unique temporary file beside it, renamed into place
//!   when complete (a replaced file keeps its permission bits);
//! - a symbolic link is followed: the file it points to is written, the link stays;
//! - a FIFO, terminal or other device (`/dev/stdout`, a pipe) is written directly, never replaced.
//! A directory, a read-only file, a missing or unwritable directory, and a failed write are
//! InputErrors that name the flag and the path; the temporary file is removed on failure and
//! on SIGINT, SIGTERM and SIGHUP.
void write_output_file(const std::string& flag, const std::string& path,
                       const std::function<void(std::ostream&)>& write);

//! Writes several files of one flag (for example the rank files of "--chakra") as
//! write_output_file writes one, all or none: each into a temporary file beside it, in order, and
//! only when every one is complete are they renamed into place. A FIFO or device among the paths
//! is refused, since it cannot be replaced whole.
void write_output_files(const std::string& flag, const std::vector<OutputFile>& files);

}  // namespace distsim::cli
