// Strategy search speed: candidates evaluated per second (enumerated, checked, pruned by memory,
// simulated) and the simulations among them per second, over the whole search. Run:
//   build/bench/search_bench --benchmark_counters_tabular=true
// The reference point is Calculon, an analytical model without timelines, at about 330
// candidates per second on 2 cores.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <thread>

#include "catalog/builtin_clusters.hpp"
#include "cli/allocator_tuning.hpp"
#include "catalog/builtin_gpus.hpp"
#include "catalog/builtin_models.hpp"
#include "search/strategy_search.hpp"

namespace {

// The allocator as the distsim command sets it up (cli/allocator_tuning.hpp), so that a benchmark's
// time does not depend on the benchmarks that ran before it in the process.
const bool kAllocatorTuned = (distsim::cli::keep_freed_memory_for_reuse(), true);

using distsim::search::SearchSpace;

SearchSpace make_space(const char* model, const char* cluster, int nodes, int gpus_per_node, int global_batch,
                       std::vector<int> micro_batches, std::vector<std::string> schedules) {
  SearchSpace space;
  space.base.model = distsim::catalog::find_model(model);
  space.base.cluster = distsim::catalog::find_cluster(cluster);
  space.base.cluster.num_hosts = nodes;
  space.base.cluster.gpus_per_host = gpus_per_node;
  space.base.strategy.global_batch_size = global_batch;
  // The paper's space: the parallel split and the listed micro-batch sizes and schedules vary;
  // every other searched setting is pinned.
  space.listed = {{"cp", {1}},
                  {"virtual_stages", {1}},
                  {"sequence_parallel", {false}},
                  {"recompute", {std::string("none")}},
                  {"distributed_optimizer", {false}}};
  for (const int size : micro_batches) space.listed["micro_batch_size"].emplace_back(size);
  for (const auto& name : schedules) space.listed["schedule"].emplace_back(name);
  return space;
}

void run(benchmark::State& state, const SearchSpace& space) {
  distsim::search::SearchOptions options;
  options.threads = static_cast<int>(state.range(0));
  std::size_t candidates = 0;
  std::size_t simulated = 0;
  for (auto _ : state) {
    const auto result = distsim::search::run_search(space, options);
    candidates = result.candidates.size();
    simulated = static_cast<std::size_t>(
        std::count_if(result.candidates.begin(), result.candidates.end(), [](const auto& c) { return c.simulated; }));
    benchmark::DoNotOptimize(result.ranking.data());
  }
  state.counters["candidates"] = static_cast<double>(candidates);
  state.counters["simulated"] = static_cast<double>(simulated);
  state.counters["candidates_per_s"] =
      benchmark::Counter(static_cast<double>(candidates), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["simulations_per_s"] =
      benchmark::Counter(static_cast<double>(simulated), benchmark::Counter::kIsIterationInvariantRate);
}

//! The DistSim paper's use case: BERT-exLarge on 4 nodes x 4 A10, global batch 16.
void BM_BertExLargeOn16A10(benchmark::State& state) {
  run(state, make_space("bert-exlarge", "pcie-a10", 4, 4, 16, {1}, {"1f1b"}));
}
//! GPT-3 175B on 128 DGX A100 nodes, global batch 1536, micro-batch 1, 2, 4, GPipe and 1F1B.
void BM_Gpt3On1024A100(benchmark::State& state) {
  run(state, make_space("gpt3-175b", "dgx-a100", 128, 8, 1536, {1, 2, 4}, {"gpipe", "1f1b"}));
}

BENCHMARK(BM_BertExLargeOn16A10)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Gpt3On1024A100)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace
