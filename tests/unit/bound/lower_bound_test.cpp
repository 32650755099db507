#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bound/lower_bound.hpp"

#include "api/simulation.hpp"
#include "core/input_error.hpp"
#include "engine/engine.hpp"
#include "pipeline_test_jobs.hpp"

namespace distsim::bound {

using api::job_events;
using api::make_job;
using api::simulate;
using api::SimulationOptions;

namespace {

struct BoundCase {
  std::string name;
  strategy::JobSpec job;
};

std::vector<BoundCase> bound_cases() {
  std::vector<BoundCase> cases;
  cases.push_back({"gpt2 1f1b pp4", make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 16, "1f1b")});
  cases.push_back({"gpt3 175b pp16", make_job("gpt3-175b", "dgx-a100", 128, 8, 16, 8, 32, "1f1b")});
  auto uneven = make_job("llama-3.1-8b", "dgx-h100", 2, 2, 4, 2, 16, "1f1b");
  uneven.strategy.pipeline_layout = "Et*4|t*8|t*12|t*8L";
  cases.push_back({"llama 8b, the second middle stage with more layers than the first", uneven});
  auto windows = make_job("gpt-oss-20b", "dgx-h100", 1, 1, 4, 2, 16, "1f1b");
  windows.strategy.pipeline_layout = "E|t*11|t*11|t*2L";
  cases.push_back({"gpt-oss 20b, windows on even layers: two stages of 11 layers, the second with 6 whole", windows});
  auto deepseek = make_job("deepseek-v3", "dgx-h100", 256, 1, 16, 128, 32, "1f1b");
  deepseek.strategy.expert_parallel = 64;
  cases.push_back({"deepseek-v3, dense first layers", deepseek});
  auto interleaved = make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 16, "interleaved");
  interleaved.strategy.virtual_stages = 2;
  cases.push_back({"gpt2 interleaved v2", interleaved});
  auto dualpipe = make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 16, "dualpipe");
  dualpipe.strategy.virtual_stages = 2;
  cases.push_back({"gpt2 dualpipe", dualpipe});
  auto recompute = make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 16, "zb-h1");
  recompute.strategy.recompute = strategy::Recompute::full;
  cases.push_back({"gpt2 zb-h1, full recompute", recompute});
  return cases;
}

}  // namespace

// The first term is the compute of the busiest stage. A simulated device's compute stream runs
// its compute tasks one at a time, so its busy compute time is the sum of their durations: the
// simulation's busiest device is an independent measure of the same number. Pricing each shape of
// stage once must give it exactly, whether the stages' layers are alike (GPT), or not: a middle
// stage with more layers, windows on alternate layers with an odd count per stage, dense layers
// before the experts. The bound, with the pipeline's term, stays under the simulated time.
TEST(LowerBound, IsTheSimulatedBusiestComputeStream) {
  for (const auto& c : bound_cases()) {
    const auto simulation = simulate(c.job);
    SimTime busiest = 0;
    for (const auto& device : simulation.summary.devices) busiest = std::max(busiest, device.busy_compute);
    EXPECT_EQ(iteration_lower_bound_terms(c.job).busiest_stream, busiest) << c.name;
    EXPECT_LE(iteration_lower_bound(c.job), simulation.summary.iteration_time) << c.name;
  }
}

// With one micro-batch the pipeline is a chain: each stage's forward in turn, then each stage's
// backward in turn, so the pipeline's term is every stage's forward and backward compute added
// up. The independent measure: the job's task program (before the engine runs it), its compute
// tasks' durations added over every device, without the optimizer steps, which run beside one
// another at the end. One replica and untied embeddings: no data-parallel work follows the passes;
// no tensor parallelism: no collective holds a pass up between its computations.
TEST(LowerBound, OfOneMicroBatchIsEveryStagesPassesInTurn) {
  for (const std::string schedule : {"gpipe", "1f1b"}) {
    auto job = make_job("llama-3.1-8b", "dgx-h100", 1, 1, 4, 1, 1, schedule);
    job.cluster.gpus_per_host = 4;
    const program::JobProgram program = job_events(job);
    SimTime passes = 0;
    for (engine::TaskId task = 0; task < program.program.num_tasks(); ++task) {
      const bool optimizer = program.events.at(program.tasks[task].event).op == events::Operator::adam_step;
      for (const engine::StreamId stream : program.program.streams(task)) {
        if (program.streams[stream].kind == events::StreamKind::compute && !optimizer) {
          passes += program.program.duration(task);
        }
      }
    }
    EXPECT_EQ(iteration_lower_bound_terms(job).pipeline, passes) << schedule;
    EXPECT_EQ(iteration_lower_bound(job), passes) << schedule;
    EXPECT_LE(passes, simulate(job).summary.iteration_time) << schedule;
  }
}

// Without --overlap-grad-reduce every gradient bucket is reduced after the last backward pass, the
// optimizer step waits for the reductions, and the distributed optimizer's parameter gathers wait
// for the step, all one at a time on the data-parallel stream: the third term is a stage's compute
// and that stream's work added up. The independent measure: the task program's durations summed
// per device on its compute and on its data-parallel stream (one nanosecond less per data-parallel
// task, the engine's rounding), the largest such sum; with no in-pass data-parallel work (no ZeRO-2
// or -3) and untied embeddings, the stream holds only those reductions and gathers.
TEST(LowerBound, ComputeThenTheDataParallelTail) {
  for (const bool distributed_optimizer : {false, true}) {
    auto job = make_job("llama-3.1-8b", "dgx-h100", 2, 1, 2, 8, 4, "1f1b");
    job.strategy.distributed_optimizer = distributed_optimizer;
    const program::JobProgram program = job_events(job);
    std::map<int, SimTime> sums;
    for (engine::TaskId task = 0; task < program.program.num_tasks(); ++task) {
      for (const engine::StreamId stream : program.program.streams(task)) {
        const auto& info = program.streams[stream];
        if (info.kind == events::StreamKind::compute) sums[info.device] += program.program.duration(task);
        if (info.kind == events::StreamKind::dp_comm) sums[info.device] += program.program.duration(task) - 1;
      }
    }
    SimTime expected = 0;
    for (const auto& [device, sum] : sums) expected = std::max(expected, sum);
    const LowerBound terms = iteration_lower_bound_terms(job);
    EXPECT_EQ(terms.compute_then_data_parallel, expected) << distributed_optimizer;
    EXPECT_GT(terms.compute_then_data_parallel, terms.busiest_stream) << distributed_optimizer;
    EXPECT_LE(iteration_lower_bound(job), simulate(job).summary.iteration_time) << distributed_optimizer;
    // Buckets reduced during the backward passes are not part of it.
    job.strategy.overlap_grad_reduce = true;
    EXPECT_LT(iteration_lower_bound_terms(job).compute_then_data_parallel, expected) << distributed_optimizer;
  }
}

// A pass's computations wait for the tensor-parallel collectives between them, and its compute
// stream does nothing else meanwhile: on one stage with one micro-batch and one replica the
// compute stream is held by the forward pass, then the backward pass, then the optimizer step, and
// the bound is that time. The independent measure: the engine's timeline of the job's task
// program, its iteration time less the compute stream's wait between two passes (for the
// collectives a pass ends with: the bound counts a pass from its first computation to its last).
// Tensor parallelism over 4 and 8 GPUs, with and without sequence parallelism and recomputation,
// the host thread left out (its launches only delay kernels). The bound is above the compute
// alone.
TEST(LowerBound, HoldsTheComputeStreamThroughTheCollectivesAPassWaitsFor) {
  for (const int tp : {4, 8}) {
    for (const bool sequence_parallel : {false, true}) {
      for (const auto recompute : {strategy::Recompute::none, strategy::Recompute::full}) {
        auto job = make_job("llama-3.1-8b", "dgx-h100", 1, tp, 1, 1, 1, "1f1b");
        job.cluster.gpus_per_host = tp;
        job.strategy.sequence_parallel = sequence_parallel;
        job.strategy.recompute = recompute;
        job.strategy.host_time = strategy::HostTime::none;
        const program::JobProgram program = job_events(job);
        const engine::TaskTimes times = engine::run(program.program);
        std::vector<engine::TaskId> computations;  // device 0's, in the order they ran
        for (engine::TaskId task = 0; task < program.program.num_tasks(); ++task) {
          const auto& stream = program.streams[program.program.streams(task).front()];
          if (stream.kind == events::StreamKind::compute && stream.device == 0) computations.push_back(task);
        }
        std::sort(computations.begin(), computations.end(),
                  [&](engine::TaskId a, engine::TaskId b) { return times.start[a] < times.start[b]; });
        const auto pass_of = [&](engine::TaskId task) {
          const auto phase = program.tasks[task].phase;
          return phase == events::Phase::forward ? 0 : phase == events::Phase::optimizer ? 2 : 1;
        };
        SimTime between_passes = 0;
        for (size_t n = 1; n < computations.size(); ++n) {
          if (pass_of(computations[n]) != pass_of(computations[n - 1])) {
            between_passes += times.start[computations[n]] - times.end[computations[n - 1]];
          }
        }
        const LowerBound terms = iteration_lower_bound_terms(job);
        const std::string name = job.strategy.notation() + (sequence_parallel ? " sp" : "") +
                                 (recompute == strategy::Recompute::full ? " recompute" : "");
        EXPECT_GT(between_passes, 0) << name;  // the forward ends with the loss's collectives
        EXPECT_EQ(terms.compute_then_data_parallel, times.makespan - between_passes) << name;
        EXPECT_EQ(iteration_lower_bound(job), terms.compute_then_data_parallel) << name;
        EXPECT_GT(terms.compute_then_data_parallel, terms.busiest_stream) << name;
      }
    }
  }
}

// With one stage, the stage that holds the head is the whole pipeline: its bound is the job's, term
// by term but the pipeline's, which is then the stage's compute stream held and its data-parallel
// tail, the third term.
TEST(LowerBound, OfTheHeadStageIsTheWholeOneWithOneStage) {
  for (const int tp : {1, 8}) {
    auto job = make_job("llama-3.1-8b", "dgx-h100", 1, tp, 1, 8 / tp, 4, "1f1b");
    const LowerBound whole = iteration_lower_bound_terms(job);
    const LowerBound head = iteration_lower_bound_terms(job, {}, BoundStages::head);
    EXPECT_EQ(head.busiest_stream, whole.busiest_stream) << tp;
    EXPECT_EQ(head.compute_then_data_parallel, whole.compute_then_data_parallel) << tp;
    EXPECT_EQ(whole.pipeline, whole.compute_then_data_parallel) << tp;
    EXPECT_EQ(head.pipeline, 0) << tp;
  }
}

// No schedule runs a job faster than its bound, nor than the bound of the stage that holds the head alone: every
// schedule, with one to sixteen micro-batches, two to four stages, recomputation, ZeRO-3, the distributed optimizer
// with overlapped reductions, a pipeline with the embedding and the head as stages of their own, and combined 1F1B (the
// bound is of every stage; an invalid combination is skipped).
TEST(LowerBound, IsNeverAboveTheSimulatedTime) {
  int checked = 0;
  for (const std::string schedule :
       {"gpipe", "1f1b", "interleaved", "zb-h1", "zb-h2", "zbv", "dualpipev", "dualpipe"}) {
    for (const int pp : {2, 4}) {
      for (const int microbatches : {1, 4, 8, 16}) {
        for (int variant = 0; variant < 4; ++variant) {
          auto job = make_job("gpt2-345m", "dgx-a100", 2, 2, pp, 8 / pp, microbatches, schedule);
          job.strategy.virtual_stages = schedule == "interleaved" ? 2 : 1;
          if (variant == 1) job.strategy.recompute = strategy::Recompute::full;
          if (variant == 2) job.strategy.sharding = strategy::Sharding::full;
          if (variant == 3) {  // the distributed optimizer's gathers after the step; buckets reduced in backward
            job.strategy.distributed_optimizer = true;
            job.strategy.overlap_grad_reduce = true;
          }
          SimTime simulated = 0;
          try {
            simulated = simulate(job).summary.iteration_time;
          } catch (const InputError&) {
            continue;  // a combination the schedule does not run
          }
          const SimTime whole = iteration_lower_bound(job);
          EXPECT_LE(whole, simulated) << job.strategy.notation() << " " << schedule << " " << microbatches
                                      << " variant " << variant;
          EXPECT_LE(iteration_lower_bound(job, {}, BoundStages::head), whole)
              << job.strategy.notation() << " " << schedule << " " << microbatches << " variant " << variant;
          ++checked;
        }
      }
    }
  }
  auto layout = make_job("llama-3.1-8b", "dgx-h100", 2, 2, 4, 2, 8, "1f1b");
  layout.strategy.pipeline_layout = "E|t*16|t*16|L";
  EXPECT_LE(iteration_lower_bound(layout), simulate(layout).summary.iteration_time);
  // Combined 1F1B overlaps a forward with a backward, each with tensor-parallel collectives.
  for (const int microbatches : {4, 8, 16}) {
    auto combined = make_job("mixtral-8x7b", "dgx-h100", 2, 2, 2, 4, microbatches, "interleaved");
    combined.model.num_layers = 8;
    combined.strategy.virtual_stages = 2;
    combined.strategy.expert_parallel = 4;
    combined.strategy.sequence_parallel = true;
    combined.strategy.overlap_moe_expert_parallel_comm = true;
    EXPECT_LE(iteration_lower_bound(combined), simulate(combined).summary.iteration_time) << microbatches;
  }
  EXPECT_GT(checked, 120);  // of the 256 combinations, those the schedules run (not a vacuous test)
}

// Random jobs, drawn with a fixed seed over the settings the bound reads: a dense and a
// mixture-of-experts model cut to 8 layers, 2 to 4 stages over 2 or 4 nodes, tensor, context and
// expert parallelism, every schedule with its chunks, micro-batch counts, recomputation, sequence
// parallelism, every ZeRO stage, the distributed optimizer with overlapped reductions, combined
// 1F1B. Invalid draws are skipped. For each, neither the whole bound nor the head stage's exceeds the
// simulated time, and the head stage's never exceeds the whole one.
TEST(LowerBound, IsNeverAboveTheSimulatedTimeOfRandomJobs) {
  std::mt19937 random(20261207);
  const auto pick = [&](const auto& values) { return values[random() % values.size()]; };
  const std::vector<std::string> schedules{"gpipe", "1f1b", "interleaved", "zb-h1",
                                           "zb-h2", "zbv",  "dualpipev",   "dualpipe"};
  int checked = 0;
  for (int draw = 0; draw < 1000 && checked < 300; ++draw) {
    const bool moe = random() % 3 == 0;
    const int nodes = pick(std::vector<int>{2, 4});
    const int tp = pick(std::vector<int>{1, 2, 4});
    const int pp = pick(std::vector<int>{2, 4});
    const int cp = pick(std::vector<int>{1, 1, 2});
    const int gpus = nodes * 8;
    if (gpus % (tp * pp * cp) != 0) continue;
    const int dp = gpus / (tp * pp * cp);
    const int microbatches = pick(std::vector<int>{2, 4, 8, 12});
    auto job =
        make_job(moe ? "mixtral-8x7b" : "llama-3.1-8b", "dgx-h100", nodes, tp, pp, dp, microbatches, pick(schedules));
    job.model.num_layers = 8;
    job.strategy.context_parallel = cp;
    job.strategy.virtual_stages = job.strategy.schedule == "interleaved" ? pick(std::vector<int>{2, 4}) : 1;
    job.strategy.recompute = random() % 2 == 0 ? strategy::Recompute::none : strategy::Recompute::full;
    job.strategy.sequence_parallel = tp > 1 && (moe || random() % 2 == 0);
    job.strategy.sharding =
        pick(std::vector<strategy::Sharding>{strategy::Sharding::none, strategy::Sharding::optimizer,
                                             strategy::Sharding::gradients, strategy::Sharding::full});
    job.strategy.distributed_optimizer = random() % 2 == 0;
    job.strategy.overlap_grad_reduce = random() % 2 == 0;
    if (moe) {
      job.strategy.expert_parallel = pick(std::vector<int>{1, 2, 4});
      job.strategy.overlap_moe_expert_parallel_comm = random() % 3 == 0;
    }
    SimTime simulated = 0;
    try {
      simulated = simulate(job).summary.iteration_time;
    } catch (const InputError&) {
      continue;  // a combination the rules refuse
    }
    const std::string name = job.strategy.notation() + " " + job.strategy.schedule + " m " +
                             std::to_string(microbatches) + " draw " + std::to_string(draw);
    const SimTime whole = iteration_lower_bound(job);
    EXPECT_LE(whole, simulated) << name;
    EXPECT_LE(iteration_lower_bound(job, {}, BoundStages::head), whole) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 300);  // not a vacuous test: most draws are valid jobs
}

// With ZeRO-3 each pass gathers every unit's parameters on the data-parallel stream and
// reduce-scatters its gradients after: over many GPUs across nodes those streams, and the NICs
// they share, can be busier than compute, and the bound is the busiest of them. The independent
// measure: the durations of the job's task program (every micro-batch, before the engine runs it)
// summed per device and stream, and per device over the tasks that send through its NICs. Each
// stream runs one task at a time and tasks that share a NIC progress at most at its full speed
// together, so the iteration is at least as long as the longest of either.
TEST(LowerBound, IsTheBusiestStreamOrNicWithZero3) {
  std::vector<strategy::JobSpec> jobs{make_job("gpt3-175b", "dgx-a100", 16, 8, 4, 4, 16, "1f1b"),
                                      make_job("gpt2-345m", "dgx-a100", 2, 1, 2, 8, 16, "interleaved")};
  jobs[1].strategy.virtual_stages = 2;
  jobs[1].strategy.shard_group = 4;  // HSDP: a replica all-reduce too
  for (auto& job : jobs) {
    job.strategy.sharding = strategy::Sharding::full;
    const program::JobProgram program = job_events(job);
    std::map<engine::StreamId, SimTime> busy;
    for (engine::TaskId task = 0; task < program.program.num_tasks(); ++task) {
      for (const engine::StreamId stream : program.program.streams(task))
        busy[stream] += program.program.duration(task);
    }
    std::map<engine::ResourceId, SimTime> sending;
    for (const auto& [task, resource] : program.program.resource_uses()) {
      sending[resource] += program.program.duration(task);
    }
    SimTime compute = 0;
    SimTime busiest_stream = 0;
    for (const auto& [stream, time] : busy) {
      busiest_stream = std::max(busiest_stream, time);
      if (program.streams[stream].kind == events::StreamKind::compute) compute = std::max(compute, time);
    }
    SimTime busiest_nic = 0;
    for (const auto& device : program.devices) busiest_nic = std::max(busiest_nic, sending[device.nic_send]);
    const SimTime bound = iteration_lower_bound_terms(job).busiest_stream;
    // GPT-3 gathers and reduces 175B parameters across 16 nodes through the same NICs; GPT-2's
    // groups of 4 gather within a node.
    if (job.model.name == "gpt3-175b") {
      EXPECT_GT(bound, busiest_stream);
    } else {
      EXPECT_EQ(bound, compute);
    }
    EXPECT_LE(bound, std::max(busiest_stream, busiest_nic)) << job.strategy.notation();
    EXPECT_LE(iteration_lower_bound(job), simulate(job).summary.iteration_time) << job.strategy.notation();
  }
}

}  // namespace distsim::bound
