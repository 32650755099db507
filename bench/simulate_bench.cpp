// Simulation speed for jobs from one node to 16,384 GPUs, dense and mixture-of-experts. Run:
//   build/bench/simulate_bench --benchmark_counters_tabular=true
// Each benchmark reports the simulated devices and engine tasks, and the process's peak
// resident memory so far (max_rss_MiB), which shows that symmetric mode never holds per-rank
// timelines.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "api/simulation.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "catalog/builtin_models.hpp"
#include "cli/allocator_tuning.hpp"

namespace {

// The allocator as the distsim command sets it up (cli/allocator_tuning.hpp), so that a benchmark's
// time does not depend on the benchmarks that ran before it in the process.
const bool kAllocatorTuned = (distsim::cli::keep_freed_memory_for_reuse(), true);

using distsim::strategy::JobSpec;

JobSpec make_job(const char* model, const char* cluster, int nodes, int tp, int pp, int dp, int micro_batch,
                 int global_batch) {
  JobSpec job;
  job.model = distsim::catalog::find_model(model);
  job.cluster = distsim::catalog::find_cluster(cluster);
  job.cluster.num_hosts = nodes;
  job.strategy.tensor_parallel = tp;
  job.strategy.pipeline_parallel = pp;
  job.strategy.data_parallel = dp;
  job.strategy.micro_batch_size = micro_batch;
  job.strategy.global_batch_size = global_batch;
  job.strategy.schedule = "1f1b";
  return job;
}

double max_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

//! With `every_task`, every task of the job runs in the engine; without it, a long pipeline's
//! steady state stands for its repeats, as in distsim simulate.
void run(benchmark::State& state, const JobSpec& job, bool all_ranks, bool every_task = false) {
  distsim::api::SimulationOptions options;
  options.all_ranks = all_ranks;
  options.steady_state = !every_task;
  std::size_t tasks = 0;
  int simulated_microbatches = 0;
  std::size_t devices = 0;
  for (auto _ : state) {
    const auto simulation = distsim::api::simulate(job, options);
    tasks = simulation.program.program.num_tasks();
    simulated_microbatches = simulation.simulated_microbatches;
    devices = simulation.program.devices.size();
    benchmark::DoNotOptimize(simulation.summary.iteration_time);
  }
  state.counters["gpus"] = job.strategy.world_size();
  state.counters["devices"] = static_cast<double>(devices);
  state.counters["tasks"] = static_cast<double>(tasks);
  state.counters["microbatches"] = job.strategy.num_microbatches();
  state.counters["simulated_mb"] = simulated_microbatches;
  state.counters["max_rss_MiB"] = max_rss_mib();
}

void BM_Gpt2DefaultJob(benchmark::State& state) {
  run(state, make_job("gpt2-345m", "pcie-a40", 4, 2, 2, 4, 4, 64), false);
}
void BM_Gpt2DefaultJobAllRanks(benchmark::State& state) {
  run(state, make_job("gpt2-345m", "pcie-a40", 4, 2, 2, 4, 4, 64), true);
}
void BM_BertExLarge16xA10(benchmark::State& state) {
  run(state, make_job("bert-exlarge", "pcie-a10", 4, 1, 8, 2, 1, 16), false);
}
void BM_Gpt3On1024A100(benchmark::State& state) {
  run(state, make_job("gpt3-175b", "dgx-a100", 128, 8, 16, 8, 1, 1536), false);
}
void BM_Gpt3On1024A100WholeTimeline(benchmark::State& state) {
  run(state, make_job("gpt3-175b", "dgx-a100", 128, 8, 16, 8, 1, 1536), false, true);
}
void BM_Llama405bOn16384H100(benchmark::State& state) {
  run(state, make_job("llama-3.1-405b", "dgx-h100", 2048, 8, 16, 128, 1, 2048), false);
}
// Every rank with its own timeline: one data-parallel replica per placement class (one here, all
// 128 replicas being placed alike) stands for the others.
void BM_Llama405bOn16384H100AllRanks(benchmark::State& state) {
  run(state, make_job("llama-3.1-405b", "dgx-h100", 2048, 8, 16, 128, 1, 2048), true);
}
// 1,048,576 GPUs in symmetric mode: nothing may grow with the GPU count.
void BM_Llama405bOnAMillionH100(benchmark::State& state) {
  run(state, make_job("llama-3.1-405b", "dgx-h100", 131072, 8, 16, 8192, 1, 131072), false);
}

// DeepSeek-V3's own layout (technical report, arXiv 2412.19437, §3.2 and §3.4.3): PP 16, EP 64,
// ZeRO-1 data parallelism, global batch 15,360 sequences at the end of the batch-size ramp.
JobSpec deepseek_v3_job(int nodes) {
  const int gpus = nodes * 8;
  JobSpec job = make_job("deepseek-v3", "dgx-h100", nodes, 1, 16, gpus / 16, 1, 15360);
  job.strategy.expert_parallel = 64;
  job.strategy.distributed_optimizer = true;
  return job;
}

void BM_DeepSeekV3On2048H100(benchmark::State& state) { run(state, deepseek_v3_job(256), false); }
void BM_DeepSeekV3On8192H100(benchmark::State& state) { run(state, deepseek_v3_job(1024), false); }

}  // namespace

BENCHMARK(BM_Gpt2DefaultJob)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Gpt2DefaultJobAllRanks)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BertExLarge16xA10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Gpt3On1024A100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Gpt3On1024A100WholeTimeline)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Llama405bOn16384H100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Llama405bOn16384H100AllRanks)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Llama405bOnAMillionH100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DeepSeekV3On2048H100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DeepSeekV3On8192H100)->Unit(benchmark::kMillisecond);
