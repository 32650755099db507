// Strategy search speed: candidates evaluated per second (enumerated, checked, pruned by memory,
// simulated) and the simulations among them per second, over the whole search. Run:
//   build/bench/search_bench --benchmark_counters_tabular=true
// The reference point is Calculon, an analytical model without timelines, at about 330
// candidates per second on 2 cores. The whole-space searches (every searched setting free, as
// `distsim search` leaves them by default) also report the process's peak resident memory; run each
// alone for its own peak, e.g.
//   build/bench/search_bench --benchmark_filter=WholeSpace_Gpt3 --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <algorithm>
#include <thread>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "catalog/builtin_models.hpp"
#include "cli/allocator_tuning.hpp"
#include "io/spec/spec_resolver.hpp"
#include "search/search_setup.hpp"
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

//! The space `distsim search --model MODEL --cluster CLUSTER --nodes NODES --global-batch-size BATCH
//! [--seq-length SEQ]` searches: every searched setting free.
SearchSpace whole_space(const char* model, const char* cluster, int nodes, int global_batch, int seq_length = 0) {
  distsim::options::JobSettings settings;
  const std::string origin = "search_bench";
  settings.set_text("model", model, origin);
  settings.set_text("cluster", cluster, origin);
  settings.set_text("nodes", std::to_string(nodes), origin);
  settings.set_text("global_batch_size", std::to_string(global_batch), origin);
  if (seq_length > 0) settings.set_text("seq_length", std::to_string(seq_length), origin);
  return distsim::search::make_search_space(settings, {}, distsim::io::spec_resolvers());
}

//! `distsim search --top`'s default.
constexpr std::size_t kDefaultTop = 10;

//! The process's peak resident memory so far, in MiB (getrusage: Linux gives KiB).
double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

//! `keep`: the fastest candidates found exactly (SearchOptions::keep; 0 simulates every one that fits).
void run(benchmark::State& state, const SearchSpace& space, std::size_t keep = 0) {
  distsim::search::SearchOptions options;
  options.threads = static_cast<int>(state.range(0));
  options.keep = keep;
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
  state.counters["peak_rss_mib"] = peak_rss_mib();
}

//! The DistSim paper's use case: BERT-exLarge on 4 nodes x 4 A10, global batch 16.
void BM_BertExLargeOn16A10(benchmark::State& state) {
  run(state, make_space("bert-exlarge", "pcie-a10", 4, 4, 16, {1}, {"1f1b"}));
}
//! GPT-3 175B on 128 DGX A100 nodes, global batch 1536, micro-batch 1, 2, 4, GPipe and 1F1B.
void BM_Gpt3On1024A100(benchmark::State& state) {
  run(state, make_space("gpt3-175b", "dgx-a100", 128, 8, 1536, {1, 2, 4}, {"gpipe", "1f1b"}));
}

//! The README's whole-space searches, the ten best found exactly as `distsim search` finds them by
//! default: GPT-3 175B on 128 DGX A100 nodes, global batch 1536; Llama 3.1 70B on 32 DGX H100 nodes,
//! sequence 8192, global batch 512.
void BM_WholeSpace_Gpt3On1024A100(benchmark::State& state) {
  run(state, whole_space("gpt3-175b", "dgx-a100", 128, 1536), kDefaultTop);
}
void BM_WholeSpace_Llama31_70BOn256H100(benchmark::State& state) {
  run(state, whole_space("llama-3.1-70b", "dgx-h100", 32, 512, 8192), kDefaultTop);
}

BENCHMARK(BM_BertExLargeOn16A10)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Gpt3On1024A100)
    ->Arg(1)
    ->Arg(2)
    ->ArgName("threads")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK(BM_WholeSpace_Gpt3On1024A100)
    ->Arg(2)
    ->ArgName("threads")
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK(BM_WholeSpace_Llama31_70BOn256H100)
    ->Arg(2)
    ->ArgName("threads")
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace
