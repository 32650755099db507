#pragma once

#include "program/pipeline_passes.hpp"
#include "program/program_draft.hpp"

namespace distsim::program {

//! Adds the point-to-point transfers between pipeline stages: activations forward and gradients
//! back, each wired between the pass that produces it and the pass that consumes it.
void add_pipeline_transfers(ProgramDraft& draft, PipelinePasses& passes);

}  // namespace distsim::program
