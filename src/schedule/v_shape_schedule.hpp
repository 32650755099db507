#pragma once

#include "schedule/schedule.hpp"

namespace distsim::schedule {

//! The schedules that place two model chunks on each of the p stages in a V (Qi et al., "Pipeline
//! Parallelism with Controllable Memory", NeurIPS'24): the layers are cut into 2p equal chunks,
//! stage s holds chunk s on the way down and chunk 2p − 1 − s on the way back, so stage 0 holds
//! the first and the last chunk (the embedding and the LM head) and the last stage hands its
//! first chunk's output to its second chunk locally. Activations of a stage's second chunk travel
//! to the previous stage, its gradients to the next. The backward is split into B and W. A member
//! says only its step order; the micro-batches in flight are counted from it.
class VShapeSchedule : public PipelineSchedule {
 public:
  using PipelineSchedule::steps;
  std::vector<StepKind> step_kinds() const override {
    return {StepKind::forward, StepKind::backward_input, StepKind::backward_weight};
  }
  int chunks_per_stage(int /*requested*/) const override { return 2; }
  //! Chunk 0 of stage s is the pipeline's chunk s, chunk 1 its chunk 2p − 1 − s, of l/(2p) layers.
  events::LayerRange chunk_layers(int total_layers, int num_stages, int num_chunks, int stage,
                                  int chunk) const override;
  std::optional<ChunkHop> next_chunk(const ChunkSlot& from, int num_stages, int num_chunks) const override;
  //! Chunk 0 of stage s is virtual stage s, chunk 1 virtual stage 2p − 1 − s.
  int virtual_stage_index(int stage, int chunk, int num_stages, int num_chunks) const override;
  //! Counted from the step order: a micro-batch holds a chunk's activations from its F until its
  //! W there, each chunk counting half a micro-batch.
  double microbatches_in_flight(int stage, int num_stages, int num_microbatches, int num_chunks) const override;
  std::vector<double> all_microbatches_in_flight(int num_stages, int num_microbatches, int num_chunks) const override;
  //! virtual_stages 2 (the V's two chunks per stage), at least two stages, 2p equal chunks of
  //! layers (unless a custom pipeline layout says otherwise) and no encoder-decoder model.
  void check(const strategy::JobSpec& job, std::vector<std::string>& problems) const override;

 protected:
  //! Throws InternalError unless `num_chunks` is 2: validation keeps other counts out.
  void require_two_chunks(int num_chunks) const;
};

}  // namespace distsim::schedule
