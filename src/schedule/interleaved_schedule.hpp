#pragma once

#include "schedule/schedule.hpp"

namespace distsim::schedule {

//! Interleaved 1F1B (Narayanan et al., SC'21 §2.2; Megatron-LM's
//! forward_backward_pipelining_with_interleaving): each stage holds v model chunks (stage s
//! holds chunks s, s + p, s + 2p, ...), which shrinks the bubble to (p − 1)/(v·m) of the ideal
//! time. The m·v passes of a stage run in groups of p micro-batches: forward through chunk 0 for
//! p micro-batches, then chunk 1 for the same ones, and so on; backwards visit the chunks in
//! reverse. After warmup_steps forwards, one forward and one backward alternate. Requires m to be
//! a multiple of p.
class InterleavedSchedule : public PipelineSchedule {
 public:
  using PipelineSchedule::steps;
  std::string_view name() const override { return "interleaved"; }
  std::string_view description() const override;
  std::vector<Step> steps(int stage, int num_stages, int num_microbatches, int num_chunks) const override;

  int chunks_per_stage(int requested) const override { return requested; }
  //! The pipeline's chunk c·p + stage, of total_layers / (p·v) layers (check makes it divide).
  events::LayerRange chunk_layers(int total_layers, int num_stages, int num_chunks, int stage,
                                  int chunk) const override;
  //! The warm-up's forwards plus the one in progress, capped at m·v, counted in whole
  //! micro-batches by dividing by v; with one chunk, plain 1F1B's count.
  double microbatches_in_flight(int stage, int num_stages, int num_microbatches, int num_chunks) const override;
  //! Megatron-LM's rules (schedules.py and arguments.py): several chunks per stage, several
  //! stages, whole groups of p micro-batches, equal chunks of layers, no encoder-decoder models.
  void check(const strategy::JobSpec& job, std::vector<std::string>& problems) const override;
  bool is_megatron_default(int num_chunks) const override { return num_chunks > 1; }
  bool runs_combined_1f1b(int /*num_stages*/, int num_chunks) const override { return num_chunks > 1; }

  //! Forwards before the first backward on `stage`: 2(p − stage − 1) + (v − 1)p (Megatron-LM's
  //! num_warmup_microbatches), capped at m·v; all m·v of them when m = p, as Megatron does.
  static int warmup_steps(int stage, int num_stages, int num_microbatches, int num_chunks);
};

}  // namespace distsim::schedule
