#pragma once

#include <string_view>

#include "program/pipeline_passes.hpp"
#include "program/program_draft.hpp"

namespace distsim::program {

//! The labels of the iteration end's tasks, as timelines and traces name them; readers of
//! distsim's traces (whatif) tell the tasks apart by them.
inline constexpr std::string_view kGradientAllReduceLabel = "dp gradient all_reduce";
inline constexpr std::string_view kGradientReduceScatterLabel = "dp gradient reduce_scatter";
inline constexpr std::string_view kSequenceParallelReductionLabel = "tp sequence-parallel grads all_reduce";
inline constexpr std::string_view kExpertGradientAllReduceLabel = "expert gradient all_reduce";
inline constexpr std::string_view kExpertGradientReduceScatterLabel = "expert gradient reduce_scatter";
inline constexpr std::string_view kEmbeddingReductionLabel = "embedding all_reduce";
inline constexpr std::string_view kCopyGradientReductionLabel = "copy gradient all_reduce";
inline constexpr std::string_view kOptimizerStepLabel = "optimizer step";
inline constexpr std::string_view kExpertParameterGatherLabel = "expert parameter all_gather";
inline constexpr std::string_view kParameterGatherLabel = "dp parameter all_gather";

//! Adds what follows the last backward pass: gradient reductions, each device's optimizer step
//! and, with the distributed optimizer, the all-gather of the updated parameters.
void add_iteration_end(ProgramDraft& draft, const PipelinePasses& passes);

}  // namespace distsim::program
