#include "schedule/dual_pipe_schedule.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "schedule/paired_step_order.hpp"

namespace distsim::schedule {

std::string_view DualPipeSchedule::description() const {
  return "DualPipe: bidirectional, micro-batches enter at both ends, each rank holds two copies of a stage "
         "(one per direction), forward and backward of two micro-batches paired; bubble (PP/2-1)(F&B+B-3W), "
         "PP+1 stage activations (DeepSeek-V3 report, deepseek-ai/DualPipe)";
}

std::vector<Step> DualPipeSchedule::steps(int stage, int num_stages, int num_microbatches, int num_chunks) const {
  if (num_chunks != 2) {
    throw InternalError("schedule 'dualpipe' runs one chunk per direction on each rank, asked for " +
                        std::to_string(num_chunks) + " chunks (validation should have rejected this)");
  }
  const int half_ranks = num_stages / 2;
  const int half_microbatches = num_microbatches / 2;
  const int near_end = std::min(stage, num_stages - 1 - stage);
  // A rank's own direction is the one that enters at its end of the pipeline.
  const int own = stage < half_ranks ? 0 : 1;
  const int other = 1 - own;
  PairedStepOrder order({0, half_microbatches});
  const int ramp = half_ranks - near_end - 1;
  repeat(2 * ramp, [&] { order.forward(own); });
  repeat(near_end + 1, [&] {
    order.forward(own);
    order.forward(other);
  });
  repeat(ramp, [&] {
    order.backward(other, true);
    order.deferred_weight();
    order.forward(other);
  });
  repeat(half_microbatches - num_stages + near_end + 1, [&] {
    order.overlapped(own, other);
    order.overlapped(other, own);
  });
  repeat(ramp, [&] {
    order.backward(other, false);
    order.overlapped(other, own);
  });
  order.closing_backwards(near_end + 1, other, own);
  repeat(ramp, [&] {
    order.deferred_weight();
    order.backward(own, true);
  });
  repeat(near_end + 1, [&] { order.deferred_weight(); });
  return order.take();
}

events::LayerRange DualPipeSchedule::chunk_layers(int total_layers, int num_stages, int num_chunks, int stage,
                                                  int chunk) const {
  return events::stage_layers(total_layers, num_stages, virtual_stage_index(stage, chunk, num_stages, num_chunks));
}

int DualPipeSchedule::virtual_stage_index(int stage, int chunk, int num_stages, int /*num_chunks*/) const {
  return chunk == 0 ? stage : num_stages - 1 - stage;
}

std::optional<ChunkHop> DualPipeSchedule::next_chunk(const ChunkSlot& from, int num_stages, int /*num_chunks*/) const {
  if (from.chunk == 0) {
    if (from.stage + 1 < num_stages) {
      return ChunkHop{{from.stage + 1, 0}, true};
    }
    return std::nullopt;
  }
  if (from.stage > 0) {
    return ChunkHop{{from.stage - 1, 1}, false};
  }
  return std::nullopt;
}

double DualPipeSchedule::microbatches_in_flight(int stage, int num_stages, int num_microbatches,
                                                int /*num_chunks*/) const {
  return peak_in_flight(steps(stage, num_stages, num_microbatches, 2), 2);
}

void DualPipeSchedule::check(const strategy::JobSpec& job, std::vector<std::string>& problems) const {
  const strategy::Strategy& s = job.strategy;
  const std::string where = "schedule 'dualpipe' ";
  if (s.virtual_stages != 2) {
    problems.push_back(where +
                       "holds two model chunks on each pipeline rank, one per direction, and needs virtual_stages 2, "
                       "got " +
                       std::to_string(s.virtual_stages));
  }
  if (s.pipeline_parallel < 2 || s.pipeline_parallel % 2 != 0) {
    problems.push_back(where +
                       "runs micro-batches from both ends of the pipeline and needs an even pipeline "
                       "parallel size of at least 2, got " +
                       std::to_string(s.pipeline_parallel));
    return;
  }
  if (job.model.architecture == model::Architecture::encoder_decoder) {
    problems.push_back(where + "does not support the encoder-decoder model '" + job.model.name + "'");
  }
  if (s.custom_pipeline_layout()) {
    problems.push_back(where + "places a copy of every stage in each direction and takes the even split of layers, "
                               "not a custom pipeline layout");
  }
  if (s.micro_batch_size <= 0 || s.data_parallel <= 0) {
    return;
  }
  const long long per_step = static_cast<long long>(s.micro_batch_size) * s.data_parallel;
  const int microbatches = s.num_microbatches();
  if (s.global_batch_size % per_step == 0 && (microbatches % 2 != 0 || microbatches < 2 * s.pipeline_parallel)) {
    problems.push_back(where +
                       "sends half the micro-batches each way and needs an even number of at least 2 x "
                       "pipeline = " +
                       std::to_string(2 * s.pipeline_parallel) + " micro-batches, got " + std::to_string(microbatches));
  }
}

}  // namespace distsim::schedule
