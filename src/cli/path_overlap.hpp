#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace distsim::cli {

//! Refuses, before anything runs, a command line whose output would destroy what it reads or
//! another of its outputs: an InputError naming both flags when an output flag of `command`
//! (one of `output_flags` that was given) names the same regular file as another flag's value
//! (the same device and inode, links followed), or the same path as another output flag where
//! the file does not exist yet. Devices and FIFOs are written in place, never replaced, so they
//! may repeat (`--trace /dev/stdout --report /dev/stdout`).
void refuse_outputs_onto_inputs(const CLI::App& command, const std::vector<std::string>& output_flags);

}  // namespace distsim::cli
