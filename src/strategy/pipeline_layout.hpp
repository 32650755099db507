#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "strategy/strategy.hpp"

namespace distsim::strategy {

//! What one virtual pipeline stage holds: its decoder layers (possibly none), whether it holds
//! the embedding, and whether it holds the final norm, the LM head and the loss. Virtual stages
//! are numbered in pipeline order as Megatron-Core numbers them: virtual stage v of pipeline rank
//! p is the pipeline's v·pp + p (pipeline_parallel_layer_layout.py).
struct VirtualStage {
  int first_layer = 0;  //!< the global index of its first decoder layer (the next one if it holds none)
  int num_layers = 0;
  bool embedding = false;
  bool head = false;
  int mtp_layers = 0;  //!< the multi-token prediction layers the layout string names here (m)
  bool operator==(const VirtualStage&) const = default;
};

//! The pipeline_layout that asks for the layers split by each stage's compute on its GPU: the
//! simulation (api::with_balanced_layout) finds the layout string, one model chunk per stage.
inline constexpr std::string_view kBalancedLayout = "balanced";
bool asks_balanced_layout(const Strategy& strategy);

//! A layout string in Megatron-Core's syntax (--pipeline-model-parallel-layout), read: every
//! virtual stage in pipeline order, or the problem with the text, naming the position (1-based)
//! in the string and what was expected there.
//!
//! Syntax: E the embedding, t a decoder (transformer) layer, L the final norm, LM head and loss,
//! m a multi-token prediction layer (only in the virtual stage that holds L: the modules run with
//! the head), `|` ends a virtual stage, `X*N`
//! repeats the symbol X N times, `(...)*N` repeats a group, commas are ignored. Rules that need
//! only the text: exactly one E, as the first symbol, and exactly one L, as the last.
struct ParsedPipelineLayout {
  std::vector<VirtualStage> stages;
  std::string problem;
  bool ok() const { return problem.empty(); }
};
ParsedPipelineLayout parse_pipeline_layout(std::string_view text);

//! The option table's check of a layout string (or kBalancedLayout): the problem, or "".
std::string pipeline_layout_problem(const std::string& text);

//! The layout of a job that asks for one (Strategy::custom_pipeline_layout), with
//! `chunks_per_stage` model chunks on each of the pipeline's stages, in pipeline order; empty with
//! one sentence per broken rule appended to `problems` when the settings cannot give one.
//!   - pipeline_layout: the string's virtual stages; there must be pp x chunks of them, naming
//!     every decoder layer of the model once. kBalancedLayout is a problem here: it must have been
//!     replaced by its layout string first (check_balanced_layout checks the job asking for it).
//!   - first_stage_layers / last_stage_layers: those decoder layers on the first / last pipeline
//!     stage, the rest split evenly over the others, each stage's share split evenly over its
//!     chunks (Megatron-Core transformer_block.get_num_layers_to_build, which refuses remainders).
//!   - account_for_embedding / account_for_loss: the embedding (the loss) counts as one layer:
//!     (layers + 1 [+ 1]) / (pp x chunks) per virtual stage, the first (last) holding one fewer.
//! Virtual stages that hold nothing at all are refused.
std::vector<VirtualStage> custom_pipeline_layout(const Strategy& strategy, int total_layers, int chunks_per_stage,
                                                 std::vector<std::string>& problems);

//! The rules of a job asking for kBalancedLayout: one model chunk per stage, no other layout
//! setting, a decoder-only model.
void check_balanced_layout(const Strategy& strategy, int chunks_per_stage, std::vector<std::string>& problems);

}  // namespace distsim::strategy
