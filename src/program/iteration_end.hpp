#pragma once

#include "program/pipeline_passes.hpp"
#include "program/program_draft.hpp"

namespace distsim::program {

//! Adds what follows the last backward pass: gradient reductions, each device's optimizer step
//! and, with the distributed optimizer, the all-gather of the updated parameters.
void add_iteration_end(ProgramDraft& draft, const PipelinePasses& passes);

}  // namespace distsim::program
