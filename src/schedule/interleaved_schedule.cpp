#include "schedule/interleaved_schedule.hpp"

#include <algorithm>

#include "core/plain_text.hpp"
#include "schedule/one_f_one_b_schedule.hpp"

namespace distsim::schedule {

std::string_view InterleavedSchedule::description() const {
  return "interleaved 1F1B with v model chunks per stage (--virtual-stages); bubble (p-1)/(v*m) "
         "(Narayanan et al. SC'21)";
}

namespace {

//! The k-th pass of one kind on a stage, numbered as Megatron-LM numbers "virtual micro-batches":
//! groups of p·v passes, each group covering p micro-batches once per chunk.
Step interleaved_pass(StepKind kind, int k, int num_stages, int num_chunks) {
  const int group_size = num_stages * num_chunks;
  const int in_group = k % group_size;
  int chunk = in_group / num_stages;
  if (kind == StepKind::backward) {
    chunk = num_chunks - 1 - chunk;
  }
  return {kind, (k / group_size) * num_stages + in_group % num_stages, chunk};
}

}  // namespace

int InterleavedSchedule::warmup_steps(int stage, int num_stages, int num_microbatches, int num_chunks) {
  const int total = num_microbatches * num_chunks;
  if (num_microbatches == num_stages) {
    return total;
  }
  return std::min(2 * (num_stages - stage - 1) + (num_chunks - 1) * num_stages, total);
}

std::vector<Step> InterleavedSchedule::steps(int stage, int num_stages, int num_microbatches, int num_chunks) const {
  const int total = num_microbatches * num_chunks;
  const int warmup = warmup_steps(stage, num_stages, num_microbatches, num_chunks);
  std::vector<Step> steps;
  steps.reserve(2 * static_cast<size_t>(total));
  for (int k = 0; k < warmup; ++k) {
    steps.push_back(interleaved_pass(StepKind::forward, k, num_stages, num_chunks));
  }
  for (int k = 0; k + warmup < total; ++k) {
    steps.push_back(interleaved_pass(StepKind::forward, k + warmup, num_stages, num_chunks));
    steps.push_back(interleaved_pass(StepKind::backward, k, num_stages, num_chunks));
  }
  for (int k = total - warmup; k < total; ++k) {
    steps.push_back(interleaved_pass(StepKind::backward, k, num_stages, num_chunks));
  }
  return steps;
}

events::LayerRange InterleavedSchedule::chunk_layers(int total_layers, int num_stages, int num_chunks, int stage,
                                                     int chunk) const {
  if (num_chunks == 1) {
    return events::stage_layers(total_layers, num_stages, stage);
  }
  const int per_chunk = total_layers / (num_stages * num_chunks);
  return {(chunk * num_stages + stage) * per_chunk, per_chunk};
}

double InterleavedSchedule::microbatches_in_flight(int stage, int num_stages, int num_microbatches,
                                                   int num_chunks) const {
  if (num_chunks == 1) {
    return OneFOneBSchedule().microbatches_in_flight(stage, num_stages, num_microbatches, num_chunks);
  }
  const int chunks_in_flight =
      std::min(warmup_steps(stage, num_stages, num_microbatches, num_chunks) + 1, num_microbatches * num_chunks);
  return static_cast<double>(chunks_in_flight) / num_chunks;
}

void InterleavedSchedule::check(const strategy::JobSpec& job, std::vector<std::string>& problems) const {
  const strategy::Strategy& s = job.strategy;
  const auto& m = job.model;
  const std::string where = "schedule " + quoted(std::string(name())) + " ";
  if (s.virtual_stages < 2) {
    problems.push_back(where + "needs virtual_stages (model chunks per pipeline stage) of at least 2, got " +
                       std::to_string(s.virtual_stages));
    return;
  }
  if (s.pipeline_parallel < 2 || s.micro_batch_size <= 0 || s.data_parallel <= 0) {
    if (s.pipeline_parallel < 2) {
      problems.push_back(where + "needs a pipeline parallel size of at least 2, got " +
                         std::to_string(s.pipeline_parallel));
    }
    return;
  }
  const long long per_step = static_cast<long long>(s.micro_batch_size) * s.data_parallel;
  if (s.global_batch_size % per_step == 0 && s.num_microbatches() % s.pipeline_parallel != 0) {
    problems.push_back(where + "needs the number of micro-batches " + std::to_string(s.num_microbatches()) +
                       " to be a multiple of the pipeline parallel size " + std::to_string(s.pipeline_parallel));
  }
  const int chunks = s.pipeline_parallel * s.virtual_stages;
  if (m.total_layers() > 0 && m.total_layers() % chunks != 0 && !s.custom_pipeline_layout()) {
    problems.push_back(where + "splits the " + std::to_string(m.total_layers()) + " layers of model " + quoted(m.name) +
                       " into pipeline x virtual stages = " + std::to_string(s.pipeline_parallel) + " x " +
                       std::to_string(s.virtual_stages) + " = " + std::to_string(chunks) + " equal chunks, but " +
                       std::to_string(chunks) + " does not divide " + std::to_string(m.total_layers()));
  }
  if (m.architecture == model::Architecture::encoder_decoder) {
    problems.push_back(where + "does not support the encoder-decoder model " + quoted(m.name) +
                       " (neither does Megatron-LM)");
  }
}

}  // namespace distsim::schedule
