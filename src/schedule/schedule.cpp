#include "schedule/schedule.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/pipeline_layout.hpp"

namespace distsim::schedule {

events::LayerRange PipelineSchedule::chunk_layers(int total_layers, int num_stages, int /*num_chunks*/, int stage,
                                                  int /*chunk*/) const {
  return events::stage_layers(total_layers, num_stages, stage);
}

std::vector<events::LayerRange> PipelineSchedule::stage_chunk_layers(const strategy::JobSpec& job, int stage) const {
  std::vector<events::LayerRange> layers;
  for (const auto& placement : stage_chunk_placements(job, stage)) {
    layers.push_back(placement.layers);
  }
  return layers;
}

int PipelineSchedule::virtual_stage_index(int stage, int chunk, int num_stages, int /*num_chunks*/) const {
  return chunk * num_stages + stage;
}

std::optional<ChunkHop> PipelineSchedule::next_chunk(const ChunkSlot& from, int num_stages, int num_chunks) const {
  if (from.stage + 1 < num_stages) {
    return ChunkHop{{from.stage + 1, from.chunk}, true};
  }
  if (from.chunk + 1 < num_chunks) {
    return ChunkHop{{0, from.chunk + 1}, true};
  }
  return std::nullopt;
}

std::optional<ChunkHop> PipelineSchedule::previous_chunk(const ChunkSlot& to, int num_stages, int num_chunks) const {
  for (int stage = 0; stage < num_stages; ++stage) {
    for (int chunk = 0; chunk < num_chunks; ++chunk) {
      const auto hop = next_chunk({stage, chunk}, num_stages, num_chunks);
      if (hop && hop->peer == to) {
        return ChunkHop{{stage, chunk}, hop->downstream};
      }
    }
  }
  return std::nullopt;
}

std::vector<events::ChunkPlacement> PipelineSchedule::stage_chunk_placements(const strategy::JobSpec& job,
                                                                             int stage) const {
  return stage_chunk_placements(job.model, job.strategy, stage);
}

ChunkHops PipelineSchedule::all_chunk_hops(int num_stages, int num_chunks) const {
  const auto slots = static_cast<size_t>(num_stages) * static_cast<size_t>(num_chunks);
  ChunkHops hops{std::vector<std::optional<ChunkHop>>(slots), std::vector<std::optional<ChunkHop>>(slots)};
  // In previous_chunk's order, so that a slot two chunks feed gets the first of them, as there.
  for (int stage = 0; stage < num_stages; ++stage) {
    for (int chunk = 0; chunk < num_chunks; ++chunk) {
      const auto hop = next_chunk({stage, chunk}, num_stages, num_chunks);
      hops.next[hop_index({stage, chunk}, num_chunks)] = hop;
      if (!hop) continue;
      auto& previous = hops.previous.at(hop_index(hop->peer, num_chunks));
      if (!previous) previous = ChunkHop{{stage, chunk}, hop->downstream};
    }
  }
  return hops;
}

std::vector<events::ChunkPlacement> PipelineSchedule::stage_chunk_placements(const model::ModelSpec& model,
                                                                             const strategy::Strategy& strategy,
                                                                             int stage) const {
  return all_stage_chunk_placements(model, strategy).at(static_cast<size_t>(stage));
}

std::vector<std::vector<events::ChunkPlacement>> PipelineSchedule::all_stage_chunk_placements(
    const model::ModelSpec& model, const strategy::Strategy& strategy) const {
  const int stages = strategy.pipeline_parallel;
  const int chunks = chunks_per_stage(strategy.virtual_stages);
  const int total_layers = model.total_layers();
  std::vector<strategy::VirtualStage> layout;
  if (strategy.custom_pipeline_layout()) {
    std::vector<std::string> problems;
    layout = strategy::custom_pipeline_layout(strategy, total_layers, chunks, problems);
    if (!problems.empty()) {
      throw InternalError("pipeline layout used before validation: " + problems.front());
    }
  }
  const ChunkHops hops = all_chunk_hops(stages, chunks);
  std::vector<std::vector<events::ChunkPlacement>> all(static_cast<size_t>(stages));
  for (int stage = 0; stage < stages; ++stage) {
    const auto other_stage = [stage](const std::optional<ChunkHop>& hop) -> std::optional<int> {
      if (!hop || hop->peer.stage == stage) {
        return std::nullopt;
      }
      return hop->peer.stage;
    };
    for (int chunk = 0; chunk < chunks; ++chunk) {
      events::ChunkPlacement placement;
      if (layout.empty()) {
        placement.layers = chunk_layers(total_layers, stages, chunks, stage, chunk);
        placement.embedding = placement.layers.first == 0;
        placement.head = placement.layers.first + placement.layers.count == total_layers;
      } else {
        const auto& virtual_stage = layout.at(static_cast<size_t>(virtual_stage_index(stage, chunk, stages, chunks)));
        placement.layers = {virtual_stage.first_layer, virtual_stage.num_layers};
        placement.embedding = virtual_stage.embedding;
        placement.head = virtual_stage.head;
      }
      const std::size_t slot = hop_index({stage, chunk}, chunks);
      placement.receives_from = other_stage(hops.previous[slot]);
      placement.sends_to = other_stage(hops.next[slot]);
      all[static_cast<size_t>(stage)].push_back(placement);
    }
  }
  return all;
}

void PipelineSchedule::check(const strategy::JobSpec& job, std::vector<std::string>& problems) const {
  const int requested = job.strategy.virtual_stages;
  if (requested > 1 && chunks_per_stage(requested) != requested) {
    problems.push_back("virtual_stages " + std::to_string(requested) + " needs schedule " +
                       quoted_names(schedules_with_chunks(requested)) + ", got '" + std::string(name()) + "'");
  }
}

double PipelineSchedule::peak_in_flight(const std::vector<Step>& steps, int num_chunks) {
  int held = 0;
  int peak = 0;
  for (const Step& step : steps) {
    if (step.kind == StepKind::forward) {
      peak = std::max(peak, ++held);
    } else if (step.kind->completes_gradients) {
      --held;
    }
  }
  return static_cast<double>(peak) / num_chunks;
}

std::vector<Step> PipelineSchedule::stage_steps(const strategy::Strategy& strategy, int stage) const {
  auto plain =
      steps(stage, strategy.pipeline_parallel, strategy.num_microbatches(), chunks_per_stage(strategy.virtual_stages));
  return strategy.overlap_moe_expert_parallel_comm ? combined_1f1b(plain) : plain;
}

double PipelineSchedule::stage_microbatches_in_flight(const strategy::Strategy& strategy, int stage) const {
  if (strategy.overlap_moe_expert_parallel_comm) {
    return peak_in_flight(stage_steps(strategy, stage), chunks_per_stage(strategy.virtual_stages));
  }
  return microbatches_in_flight(stage, strategy.pipeline_parallel, strategy.num_microbatches(),
                                strategy.virtual_stages);
}

std::vector<std::vector<Step>> PipelineSchedule::all_steps(int num_stages, int num_microbatches, int num_chunks) const {
  std::vector<std::vector<Step>> all;
  all.reserve(static_cast<size_t>(num_stages));
  for (int stage = 0; stage < num_stages; ++stage) {
    all.push_back(steps(stage, num_stages, num_microbatches, num_chunks));
  }
  return all;
}

std::vector<double> PipelineSchedule::all_microbatches_in_flight(int num_stages, int num_microbatches,
                                                                 int num_chunks) const {
  std::vector<double> all;
  all.reserve(static_cast<size_t>(num_stages));
  for (int stage = 0; stage < num_stages; ++stage) {
    all.push_back(microbatches_in_flight(stage, num_stages, num_microbatches, num_chunks));
  }
  return all;
}

std::vector<std::vector<Step>> PipelineSchedule::all_stage_steps(const strategy::Strategy& strategy) const {
  auto all =
      all_steps(strategy.pipeline_parallel, strategy.num_microbatches(), chunks_per_stage(strategy.virtual_stages));
  if (strategy.overlap_moe_expert_parallel_comm) {
    for (auto& steps : all) steps = combined_1f1b(steps);
  }
  return all;
}

std::vector<double> PipelineSchedule::all_stage_microbatches_in_flight(const strategy::Strategy& strategy) const {
  if (!strategy.overlap_moe_expert_parallel_comm) {
    return all_microbatches_in_flight(strategy.pipeline_parallel, strategy.num_microbatches(), strategy.virtual_stages);
  }
  std::vector<double> all;
  for (const auto& steps : all_stage_steps(strategy)) {
    all.push_back(peak_in_flight(steps, chunks_per_stage(strategy.virtual_stages)));
  }
  return all;
}

std::vector<Step> combined_1f1b(const std::vector<Step>& steps) {
  std::vector<Step> forwards;
  std::vector<Step> backwards;
  size_t warmup = 0;
  for (const Step& step : steps) {
    if (step.kind == StepKind::forward) {
      forwards.push_back(step);
      warmup += backwards.empty() ? 1 : 0;
    } else if (step.kind == StepKind::backward) {
      backwards.push_back(step);
    } else {
      throw InternalError("combined 1F1B pairs forwards with full backwards, got a step of kind '" +
                          std::string(step.kind->name) + "'");
    }
  }
  // The plain order runs its warm-up's forwards and the first steady-state forward before the
  // first backward: as many forwards as the combined warm-up, one more than the plain one.
  std::vector<Step> paired(forwards.begin(), forwards.begin() + static_cast<std::ptrdiff_t>(warmup));
  paired.reserve(steps.size());
  size_t next_backward = 0;
  for (size_t next_forward = warmup; next_forward < forwards.size(); ++next_forward) {
    paired.push_back(forwards[next_forward]);
    Step backward = backwards.at(next_backward++);
    backward.overlaps_previous = Overlap::expert_exchange;
    paired.push_back(backward);
  }
  paired.insert(paired.end(), backwards.begin() + static_cast<std::ptrdiff_t>(next_backward), backwards.end());
  return paired;
}

void PipelineSchedule::require_one_chunk(int num_chunks) const {
  if (num_chunks != 1) {
    throw InternalError("schedule '" + std::string(name()) + "' runs one model chunk per stage, asked for " +
                        std::to_string(num_chunks) + " (validation should have rejected this)");
  }
}

}  // namespace distsim::schedule
