#pragma once

#include "schedule/schedule.hpp"

namespace distsim::schedule {

//! DualPipe (DeepSeek-V3 technical report, arXiv 2412.19437 §3.2.1; deepseek-ai/DualPipe,
//! dualpipe.py): micro-batches enter the pipeline from both ends. Each of the n ranks (n even)
//! holds two chunks of l/n layers: chunk 0 is stage r of the pipeline that micro-batches 0 to
//! m/2 − 1 run from rank 0 to rank n − 1 (the forward direction), chunk 1 is stage n − 1 − r of
//! the pipeline that micro-batches m/2 to m − 1 run from rank n − 1 to rank 0 (the reverse
//! direction). Every layer so has two copies of its parameters, on ranks r and n − 1 − r, whose
//! gradients are summed at the end of the iteration.
//!
//! Rank r, with h = min(r, n − 1 − r) its distance from the nearer end and its own direction's
//! chunk first (chunk 0 on the first half of the ranks, chunk 1 on the second), runs
//! dualpipe.py's eight phases: 2(n/2 − h − 1) F of its own chunk; h + 1 pairs F own F other;
//! n/2 − h − 1 rounds B other, W deferred, F other; m/2 − n + h + 1 main rounds F own & B other,
//! F other & B own (each backward full); n/2 − h − 1 rounds B other, F other & B own; h + 1 pairs
//! B other B own, W deferred from the middle pair on; n/2 − h − 1 rounds W, B own (deferred); the
//! h + 1 W still owed, in the order of their B. Needs m even and m ≥ 2n (dualpipe.py's assertion).
//!
//! A full backward is B followed at once by W; in an overlapped pair F&B the B and W steps
//! overlap the F (Step::overlaps_previous), so the program builder interleaves their segments
//! and one side's communication runs under the other's computation.
class DualPipeSchedule : public PipelineSchedule {
 public:
  using PipelineSchedule::steps;
  std::string_view name() const override { return "dualpipe"; }
  std::string_view description() const override;
  std::vector<StepKind> step_kinds() const override {
    return {StepKind::forward, StepKind::backward_input, StepKind::backward_weight};
  }
  std::vector<Step> steps(int stage, int num_stages, int num_microbatches, int num_chunks) const override;
  bool overlaps_steps() const override { return true; }
  int chunks_per_stage(int /*requested*/) const override { return 2; }
  //! Half the micro-batches run through chunk 0 (the forward direction), half through chunk 1.
  int microbatches_per_chunk(int num_microbatches) const override { return num_microbatches / 2; }
  //! Chunk 0 of rank r holds stage r's layers, chunk 1 stage n − 1 − r's.
  events::LayerRange chunk_layers(int total_layers, int num_stages, int num_chunks, int stage,
                                  int chunk) const override;
  int virtual_stage_index(int stage, int chunk, int num_stages, int num_chunks) const override;
  //! Chunk 0 feeds chunk 0 of the next rank, chunk 1 chunk 1 of the previous rank; the last rank's
  //! chunk 0 and the first rank's chunk 1 end their pipelines.
  std::optional<ChunkHop> next_chunk(const ChunkSlot& from, int num_stages, int num_chunks) const override;
  //! Counted from the step order: a micro-batch holds a chunk's activations from its F until its
  //! W there, each chunk (half the rank's layers) counting half a micro-batch.
  double microbatches_in_flight(int stage, int num_stages, int num_microbatches, int num_chunks) const override;
  //! virtual_stages 2 (one chunk per direction), an even pipeline of at least two ranks, an even
  //! number of at least 2p micro-batches, the even split of layers and no encoder-decoder model.
  void check(const strategy::JobSpec& job, std::vector<std::string>& problems) const override;
};

}  // namespace distsim::schedule
