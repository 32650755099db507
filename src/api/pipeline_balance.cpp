#include "api/pipeline_balance.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "events/gpu_type_work.hpp"
#include "events/job_events.hpp"
#include "events/layer_memo.hpp"
#include "strategy/gpu_placement.hpp"
#include "strategy/pipeline_layout.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::api {

namespace {

//! The compute of one micro-batch on one GPU type: each decoder layer's, the embedding's and the
//! head's (with the loss).
struct LayerCompute {
  std::vector<SimTime> layers;
  SimTime embedding = 0;
  SimTime head = 0;
};

//! Adds each compute template of one pass to its layer; a template of no layer before the pass's
//! first layer is the embedding's in forward (`forward`) and the head's in backward, after it the
//! other way round; a multi-token prediction layer (numbered after the decoder's) is the head's.
void add_pass(const std::vector<events::TaskTemplate>& pass, bool forward, const std::vector<SimTime>& durations,
              LayerCompute& compute) {
  bool layers_seen = false;
  for (const auto& step : pass) {
    if (step.stream != events::StreamKind::compute) continue;
    const SimTime duration = durations[step.event];
    if (step.layer >= static_cast<int>(compute.layers.size())) {
      compute.head += duration;  // a multi-token prediction layer, which runs with the head
    } else if (step.layer >= 0) {
      compute.layers[static_cast<size_t>(step.layer)] += duration;
      layers_seen = true;
    } else {
      (forward != layers_seen ? compute.embedding : compute.head) += duration;
    }
  }
}

//! Every layer's compute on GPU type `gpu_type`, from the work of one stage that holds the whole
//! model (the per-micro-batch work of a layer does not depend on which stage holds it).
LayerCompute layer_compute(const strategy::JobSpec& job, int gpu_type, const cost::FallbackCostModel& costs) {
  strategy::JobSpec whole = job;
  whole.strategy.pipeline_parallel = 1;
  whole.strategy.pipeline_layout.clear();
  whole.strategy.stage_gpus.clear();
  const strategy::RankLayout layout(whole.strategy, whole.cluster);
  const int total_layers = job.model.total_layers();
  const events::ChunkPlacement placement{{0, total_layers}, std::nullopt, std::nullopt, true, true};
  events::EventTable table;
  events::LayerMemo memo(table);
  events::RankWork work = events::build_rank_work(whole, layout, strategy::RankCoord{{strategy::ParallelDim::pp, 0}},
                                                  {placement}, table, &memo);
  events::run_on_gpu_type(work, table, gpu_type);
  std::vector<SimTime> durations;
  durations.reserve(table.size());
  for (events::EventId id = 0; id < table.size(); ++id) durations.push_back(costs.cost(table.at(id)).duration);
  LayerCompute compute;
  compute.layers.assign(static_cast<size_t>(total_layers), 0);
  for (const auto& chunk : work.chunks) {
    add_pass(chunk.forward, true, durations, compute);
    add_pass(chunk.backward, false, durations, compute);
  }
  return compute;
}

//! What each stage computes per micro-batch for any run of layers it might hold.
class StageCompute {
 public:
  StageCompute(const strategy::JobSpec& job, const cost::FallbackCostModel& costs) {
    const strategy::GpuPlacement gpus(job);
    std::vector<std::pair<int, LayerCompute>> by_type;
    const auto compute_of = [&](int type) -> const LayerCompute& {
      for (const auto& [known, compute] : by_type) {
        if (known == type) return compute;
      }
      return by_type.emplace_back(type, layer_compute(job, type, costs)).second;
    };
    const int stages = job.strategy.pipeline_parallel;
    for (int stage = 0; stage < stages; ++stage) {
      // Replicas on several types: the stage is as slow as its slowest.
      LayerCompute slowest;
      for (const int type : gpus.types_of_stage(stage)) {
        const LayerCompute& compute = compute_of(type);
        if (slowest.layers.empty()) slowest.layers.assign(compute.layers.size(), 0);
        for (size_t layer = 0; layer < compute.layers.size(); ++layer) {
          slowest.layers[layer] = std::max(slowest.layers[layer], compute.layers[layer]);
        }
        slowest.embedding = std::max(slowest.embedding, compute.embedding);
        slowest.head = std::max(slowest.head, compute.head);
      }
      std::vector<SimTime> prefix{0};
      for (const SimTime layer : slowest.layers) prefix.push_back(prefix.back() + layer);
      prefixes_.push_back(std::move(prefix));
      extras_.push_back((stage == 0 ? slowest.embedding : 0) + (stage == stages - 1 ? slowest.head : 0));
    }
  }

  //! Stage `stage` holding layers [first, end).
  SimTime of(int stage, int first, int end) const {
    const auto& prefix = prefixes_[static_cast<size_t>(stage)];
    return prefix[static_cast<size_t>(end)] - prefix[static_cast<size_t>(first)] + extras_[static_cast<size_t>(stage)];
  }

 private:
  std::vector<std::vector<SimTime>> prefixes_;  //!< per stage: its compute of layers [0, l)
  std::vector<SimTime> extras_;                 //!< per stage: its embedding and head
};

//! The layers of each stage in the split whose busiest stage computes least: busiest[s][end] is
//! the least busiest stage of stages 0..s holding layers [0, end), by dynamic programming.
std::vector<int> best_split(const StageCompute& compute, int stages, int total_layers) {
  constexpr SimTime kNone = std::numeric_limits<SimTime>::max();
  const size_t size = static_cast<size_t>(total_layers) + 1;
  std::vector<std::vector<SimTime>> busiest(static_cast<size_t>(stages), std::vector<SimTime>(size, kNone));
  std::vector<std::vector<int>> start(static_cast<size_t>(stages), std::vector<int>(size, 0));
  for (int end = 0; end <= total_layers; ++end) busiest[0][static_cast<size_t>(end)] = compute.of(0, 0, end);
  for (int stage = 1; stage < stages; ++stage) {
    // A stage between the ends holds at least one layer; the last may hold the head alone.
    const int least = stage == stages - 1 ? 0 : 1;
    for (int end = 0; end <= total_layers; ++end) {
      auto& best = busiest[static_cast<size_t>(stage)][static_cast<size_t>(end)];
      for (int first = 0; first + least <= end; ++first) {
        const SimTime before = busiest[static_cast<size_t>(stage - 1)][static_cast<size_t>(first)];
        if (before == kNone) continue;
        const SimTime candidate = std::max(before, compute.of(stage, first, end));
        if (candidate < best) {
          best = candidate;
          start[static_cast<size_t>(stage)][static_cast<size_t>(end)] = first;
        }
      }
    }
  }
  std::vector<int> layers(static_cast<size_t>(stages), 0);
  int end = total_layers;
  for (int stage = stages - 1; stage > 0; --stage) {
    const int first = start[static_cast<size_t>(stage)][static_cast<size_t>(end)];
    layers[static_cast<size_t>(stage)] = end - first;
    end = first;
  }
  layers[0] = end;
  return layers;
}

//! Megatron-Core's layout string of one chunk per stage, the multi-token prediction layers with
//! the head: "Et*5|t*4|t*3L", "Et*5|t*4|t*3mL".
std::string layout_text(const std::vector<int>& layers, int mtp_layers) {
  std::string text;
  for (size_t stage = 0; stage < layers.size(); ++stage) {
    text += stage == 0 ? "E" : "|";
    if (layers[stage] > 0) text += "t*" + std::to_string(layers[stage]);
  }
  if (mtp_layers > 0) text += "m*" + std::to_string(mtp_layers);
  return text + "L";
}

}  // namespace

strategy::JobSpec with_balanced_layout(const strategy::JobSpec& job, const cost::FallbackCostModel& costs) {
  if (!strategy::asks_balanced_layout(job.strategy)) return job;
  const StageCompute compute(job, costs);
  strategy::JobSpec balanced = job;
  balanced.strategy.pipeline_layout =
      layout_text(best_split(compute, job.strategy.pipeline_parallel, job.model.total_layers()), job.model.mtp_layers);
  return balanced;
}

}  // namespace distsim::api
