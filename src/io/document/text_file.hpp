#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace distsim::io {

//! The most bytes a spec, job or calibration file may hold: far above any real one, and a bound on
//! what a path like /dev/zero makes distsim read.
inline constexpr std::size_t kLargestSpecFile = std::size_t{64} << 20;

//! The most bytes of a JSON file that distsim parses whole (a trace for `compare`, a profile to
//! import) on this machine: a sixteenth of its memory, since the parsed tree takes about ten times
//! the text's bytes, and at most `most`. The environment variable DISTSIM_MAX_INPUT_MIB, where set
//! to a positive number of MiB, replaces it.
std::size_t largest_parsed_file(std::size_t most);

//! How a limit of largest_parsed_file is said in the message of a file over it.
inline constexpr std::string_view kParsedFileLimit =
    "the most distsim parses whole on this machine (a sixteenth of its memory; DISTSIM_MAX_INPUT_MIB sets it)";

//! The whole file as bytes. Throws InputError "cannot open <what> '<path>': <reason>" with the
//! system's reason (no such file, permission denied, is a directory), and "<what> '<path>' is
//! larger than <max_bytes> bytes, <limit>" for a longer one, before reading past the limit.
std::string read_text_file(const std::string& path, std::string_view what, std::size_t max_bytes = kLargestSpecFile,
                           std::string_view limit = "the most distsim reads for one");

//! read_text_file, and when the bytes are gzip's (they start with its magic number, 1f 8b) their
//! decompressed text, held to `max_bytes` too: a trace may come as `trace.json.gz`. Throws
//! InputError "<what> '<path>' is not a whole gzip stream: <zlib's reason>" for a damaged one.
std::string read_possibly_gzipped_file(const std::string& path, std::string_view what, std::size_t max_bytes,
                                       std::string_view limit);

}  // namespace distsim::io
