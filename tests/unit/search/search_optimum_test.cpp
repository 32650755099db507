#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>

#include "api/simulation.hpp"
#include "bound/lower_bound.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "core/input_error.hpp"
#include "memory/memory_estimate.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "search/strategy_search.hpp"

namespace distsim::search {

namespace {

//! GPT-2 345M cut to 4 layers, sequence 1024, on one DGX H100 node (8 GPUs), global batch 8,
//! with analytical costs: tensor, context and data parallelism all cost something different.
strategy::JobSpec small_job() {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.model.num_layers = 4;
  job.cluster = catalog::find_cluster("dgx-h100");
  job.cluster.num_hosts = 1;
  job.strategy.global_batch_size = 8;
  return job;
}

struct Best {
  double time_s = std::numeric_limits<double>::infinity();
  std::string label;
  std::size_t simulated = 0;
};

//! The ground truth: every combination of the searched settings written out by hand, each job
//! checked by the same rules simulate applies and simulated at operator level, as `distsim
//! simulate` runs it. Supersets of what the search tries (schedules with one stage, selective
//! recomputation under fused attention, sequence parallelism with tp 1): if any of those were
//! faster, the search would have missed it.
//! Every job of `jobs` once with each value, `set` writing the value into the job's strategy.
template <typename T, typename Set>
std::vector<strategy::JobSpec> times(const std::vector<strategy::JobSpec>& jobs, const std::vector<T>& values,
                                     Set set) {
  std::vector<strategy::JobSpec> product;
  for (const auto& job : jobs) {
    for (const T& value : values) {
      product.push_back(job);
      set(product.back().strategy, value);
    }
  }
  return product;
}

//! `base` with every (tensor, context, pipeline, data) split of its 8 GPUs and micro-batch size 1,
//! 2, 4 or 8.
std::vector<strategy::JobSpec> splits_and_micro_batches(const strategy::JobSpec& base) {
  using S = strategy::Strategy;
  const std::vector<int> sizes{1, 2, 4, 8};
  std::vector<strategy::JobSpec> jobs{base};
  jobs = times(jobs, sizes, [](S& s, int v) { s.tensor_parallel = v; });
  jobs = times(jobs, sizes, [](S& s, int v) { s.context_parallel = v; });
  jobs = times(jobs, sizes, [](S& s, int v) { s.pipeline_parallel = v; });
  jobs = times(jobs, sizes, [](S& s, int v) { s.data_parallel = v; });
  std::erase_if(jobs, [&](const strategy::JobSpec& job) { return job.strategy.world_size() != 8; });
  return times(jobs, sizes, [](S& s, int v) { s.micro_batch_size = v; });
}

//! Those of `jobs` that the job rules accept on 1F1B and that fit in memory.
std::vector<strategy::JobSpec> runnable_on_1f1b(const std::vector<strategy::JobSpec>& jobs) {
  std::vector<strategy::JobSpec> runnable;
  for (strategy::JobSpec job : jobs) {
    job.strategy.schedule = "1f1b";
    try {
      schedule::validate_job(job);
    } catch (const InputError&) {
      continue;
    }
    if (memory::estimate_memory(job).fits()) runnable.push_back(job);
  }
  return runnable;
}

//! The shortest iteration time of `jobs` as simulate gives it.
double best_simulated_s(const std::vector<strategy::JobSpec>& jobs) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& job : jobs) best = std::min(best, time_to_seconds(api::simulate(job).summary.iteration_time));
  return best;
}

//! A search of `space` on two threads that only has to get the best exactly (the strongest pruning).
SearchResult search_for_the_best(const SearchSpace& space) {
  SearchOptions options;
  options.threads = 2;
  options.keep = 1;
  return run_search(space, options);
}

Best exhaustive_best(const strategy::JobSpec& base) {
  using S = strategy::Strategy;
  std::vector<strategy::JobSpec> jobs = splits_and_micro_batches(base);
  jobs = times(jobs, schedule::schedule_names(), [](S& s, const std::string& v) { s.schedule = v; });
  jobs = times(jobs, std::vector<int>{1, 2, 3, 4}, [](S& s, int v) { s.virtual_stages = v; });
  jobs = times(jobs, std::vector<bool>{false, true}, [](S& s, bool v) { s.sequence_parallel = v; });
  jobs = times(jobs,
               std::vector<strategy::Recompute>{strategy::Recompute::none, strategy::Recompute::selective,
                                                strategy::Recompute::full},
               [](S& s, strategy::Recompute v) { s.recompute = v; });
  jobs = times(jobs, std::vector<bool>{false, true}, [](S& s, bool v) { s.distributed_optimizer = v; });
  // Sharding left free tries zero2 and zero3 beside the distributed optimizer (ZeRO-1).
  // validate_job refuses them with a distributed optimizer and with a schedule that defers the
  // weight gradients.
  jobs = times(jobs,
               std::vector<strategy::Sharding>{strategy::Sharding::none, strategy::Sharding::gradients,
                                               strategy::Sharding::full},
               [](S& s, strategy::Sharding v) { s.sharding = v; });
  Best best;
  for (const auto& job : jobs) {
    try {
      schedule::validate_job(job);
    } catch (const InputError&) {
      continue;
    }
    if (!memory::estimate_memory(job).fits()) continue;
    const double time = time_to_seconds(api::simulate(job).summary.iteration_time);
    ++best.simulated;
    if (time < best.time_s) {
      best.time_s = time;
      best.label = candidate_for(job).label();
    }
  }
  return best;
}

TEST(SearchOptimum, EqualsTheBestOfAnExhaustiveSimulate) {
  SearchSpace space;
  space.base = small_job();
  const Best truth = exhaustive_best(space.base);
  ASSERT_GT(truth.simulated, 100u);
  SearchOptions options;
  options.threads = 2;
  options.keep = 1;  // the strongest pruning: only the best must be exact
  const SearchResult result = run_search(space, options);
  ASSERT_FALSE(result.ranking.empty());
  const Candidate& found = result.candidates[result.ranking.front()];
  EXPECT_EQ(found.iteration_time_s, truth.time_s) << "search: " << found.label() << ", exhaustive: " << truth.label;
  EXPECT_GT(result.pruned_by_bound, 0u);
}

// Every listed stage is tried (--sharding none,zero1,zero2,zero3, in place of
// --distributed-optimizer): the search's best equals the best of simulate over every split,
// micro-batch size and ZeRO stage written out by hand (schedule, virtual stages, recomputation and
// sequence parallelism pinned, to keep it short), and every stage is simulated.
TEST(SearchOptimum, ListedShardingStagesEqualTheBestOfAnExhaustiveSimulate) {
  using S = strategy::Strategy;
  using strategy::Sharding;
  SearchSpace space;
  space.base = small_job();
  space.listed = {
      {"schedule", {std::string("1f1b")}},
      {"virtual_stages", {1}},
      {"sequence_parallel", {false}},
      {"recompute", {std::string("none")}},
      {"sharding", {std::string("none"), std::string("zero1"), std::string("zero2"), std::string("zero3")}}};
  std::vector<strategy::JobSpec> jobs =
      times(splits_and_micro_batches(space.base),
            std::vector<Sharding>{Sharding::none, Sharding::optimizer, Sharding::gradients, Sharding::full},
            [](S& s, Sharding v) { s.sharding = v; });
  const std::vector<strategy::JobSpec> runnable = runnable_on_1f1b(jobs);
  std::set<Sharding> fitting;
  for (const auto& job : runnable) fitting.insert(job.strategy.sharding);
  ASSERT_EQ(fitting.size(), 4u);
  const SearchResult result = search_for_the_best(space);
  ASSERT_FALSE(result.ranking.empty());
  EXPECT_EQ(result.candidates[result.ranking.front()].iteration_time_s, best_simulated_s(runnable));
  std::set<Sharding> simulated;
  for (const Candidate& candidate : result.candidates) {
    EXPECT_FALSE(candidate.strategy.distributed_optimizer) << candidate.label();
    if (candidate.simulated) simulated.insert(candidate.strategy.sharding);
  }
  EXPECT_EQ(simulated.size(), 4u);
}

// Listed GEMM formats (--precision bf16,fp8): the best equals the best of simulate over every
// split, micro-batch size and format written out by hand, and both formats are simulated.
TEST(SearchOptimum, ListedPrecisionsEqualTheBestOfAnExhaustiveSimulate) {
  using S = strategy::Strategy;
  using strategy::GemmFormat;
  SearchSpace space;
  space.base = small_job();
  space.listed = {{"schedule", {std::string("1f1b")}}, {"virtual_stages", {1}},
                  {"sequence_parallel", {false}},      {"recompute", {std::string("none")}},
                  {"distributed_optimizer", {false}},  {"precision", {std::string("bf16"), std::string("fp8")}}};
  const std::vector<strategy::JobSpec> jobs =
      times(splits_and_micro_batches(space.base), std::vector<GemmFormat>{GemmFormat::none, GemmFormat::fp8},
            [](S& s, GemmFormat v) { s.gemm_format = v; });
  const SearchResult result = search_for_the_best(space);
  ASSERT_FALSE(result.ranking.empty());
  EXPECT_EQ(result.candidates[result.ranking.front()].iteration_time_s, best_simulated_s(runnable_on_1f1b(jobs)));
  std::set<GemmFormat> simulated;
  for (const Candidate& candidate : result.candidates) {
    if (candidate.simulated) simulated.insert(candidate.strategy.gemm_format);
  }
  EXPECT_EQ(simulated.size(), 2u);
}

TEST(SearchOptimum, PruningKeepsTheTopAndTheParetoFront) {
  SearchSpace space;
  space.base = small_job();
  SearchOptions every;
  every.threads = 2;
  SearchOptions pruned = every;
  pruned.keep = 5;
  const SearchResult all = run_search(space, every);
  const SearchResult some = run_search(space, pruned);
  EXPECT_EQ(all.pruned_by_bound, 0u);
  ASSERT_GE(all.ranking.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(all.candidates[all.ranking[i]].iteration_time_s, some.candidates[some.ranking[i]].iteration_time_s);
  }
  EXPECT_EQ(all.pareto_front, some.pareto_front);
}

// --front-within F: the front is the front of every simulated candidate less the points slower
// than F times the best (a point is dominated only by points no slower than itself, so cutting the
// slow end of a front leaves the rest of it a front), and the search may prune by bound what lies
// beyond that reach. Worked out from the unpruned search of the whole front.
TEST(SearchOptimum, TheFrontReachesAsFarAsAsked) {
  SearchSpace space;
  space.base = small_job();
  SearchOptions every;
  every.threads = 2;
  every.objectives.front_within = std::numeric_limits<double>::infinity();
  const SearchResult all = run_search(space, every);
  ASSERT_FALSE(all.ranking.empty());
  const double best = all.candidates[all.ranking.front()].iteration_time_s;
  constexpr double kWithin = 1.2;
  std::vector<std::size_t> expected;
  for (const std::size_t index : all.pareto_front) {
    if (all.candidates[index].iteration_time_s <= kWithin * best) expected.push_back(index);
  }
  ASSERT_LT(expected.size(), all.pareto_front.size()) << "the whole front lies within the reach: no test";
  ASSERT_FALSE(expected.empty());
  SearchOptions reaching = every;
  reaching.keep = 5;
  reaching.objectives.front_within = kWithin;
  const SearchResult some = run_search(space, reaching);
  EXPECT_EQ(some.pareto_front, expected);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(all.candidates[all.ranking[i]].iteration_time_s, some.candidates[some.ranking[i]].iteration_time_s);
  }
  SearchOptions whole_front = reaching;
  whole_front.objectives.front_within = std::numeric_limits<double>::infinity();
  EXPECT_GT(some.pruned_by_bound, run_search(space, whole_front).pruned_by_bound);
  const auto beyond = std::find_if(some.candidates.begin(), some.candidates.end(), [](const Candidate& candidate) {
    return candidate.status == CandidateStatus::pruned &&
           candidate.reason().find("beyond the Pareto front's reach") != std::string::npos;
  });
  ASSERT_NE(beyond, some.candidates.end());
  EXPECT_NE(beyond->reason().find("loses to the top 5, over 1.2x the best: beyond the Pareto front's reach "
                                  "(--front-within)"),
            std::string::npos)
      << beyond->reason();
}

TEST(SearchOptimum, TheLowerBoundNeverExceedsTheSimulatedTime) {
  SearchSpace space;
  space.base = small_job();
  for (const auto& candidate : enumerate_candidates(space)) {
    if (candidate.status != CandidateStatus::ok) continue;
    const SimTime bound = bound::iteration_lower_bound(candidate.job());
    const SimTime time = api::simulate(candidate.job()).summary.iteration_time;
    EXPECT_LE(bound, time) << candidate.label();
    EXPECT_GT(bound, 0) << candidate.label();
  }
}

TEST(SearchOptimum, AMemoryLimitMarksCandidatesOutOfMemory) {
  SearchSpace space;
  space.base = small_job();
  SearchOptions options;
  options.threads = 2;
  options.memory_limit_bytes = 2.0 * 1024 * 1024 * 1024;  // 2 GiB instead of the H100's 80
  const SearchResult result = run_search(space, options);
  EXPECT_GT(result.out_of_memory, 0u);
  EXPECT_FALSE(result.ranking.empty());
  for (const std::size_t index : result.ranking) {
    EXPECT_LE(result.candidates[index].peak_memory_bytes, 2.0 * 1024 * 1024 * 1024);
  }
}

}  // namespace

}  // namespace distsim::search

namespace distsim::search {

namespace {

TEST(MemoryRemedies, EachLowersTheLeanestCandidateByItsOwnChange) {
  // GPT-2 345M (4 layers) on 8 GPUs, global batch 8, with dp 2 and nothing that saves memory:
  // each change applies. Twice the stages halves dp; ZeRO-3, the deepest stage, shards the
  // parameters, gradients and optimizer states over dp 2; full recomputation drops the stored
  // activations. All three: with dp 1 after the stages are doubled, nothing is left to shard.
  Candidate leanest = candidate_for(small_job());
  auto& s = leanest.strategy;
  s.tensor_parallel = 2;
  s.pipeline_parallel = 2;
  s.data_parallel = 2;
  leanest.peak_memory_bytes = static_cast<double>(memory::estimate_memory(leanest.job()).peak().total());
  const auto remedies = memory_remedies(leanest, 1.0);
  std::vector<std::string> changes;
  for (const auto& remedy : remedies) {
    changes.push_back(remedy.change);
    EXPECT_LT(remedy.changed.peak_memory_bytes, leanest.peak_memory_bytes) << remedy.change;
    EXPECT_FALSE(remedy.fits);  // a 1-byte limit
  }
  const std::vector<std::string> expected{"more pipeline stages", "full recomputation", "more sharding", "all three"};
  ASSERT_EQ(changes, expected);
  EXPECT_EQ(remedies[0].changed.strategy.notation(), "2M4P1D");
  EXPECT_EQ(remedies[1].changed.strategy.recompute, strategy::Recompute::full);
  EXPECT_EQ(remedies[2].changed.strategy.sharding, strategy::Sharding::full);
  EXPECT_EQ(remedies[2].changed.strategy.notation(), "2M2P2D");
  EXPECT_EQ(remedies[3].changed.strategy.notation(), "2M4P1D");
  EXPECT_EQ(remedies[3].changed.strategy.recompute, strategy::Recompute::full);
  EXPECT_EQ(remedies[3].changed.strategy.sharding, strategy::Sharding::none);
}

// Sharding the experts' gradients or parameters is not modelled, so for Mixtral the deepest
// stage a remedy offers is ZeRO-1, the distributed optimizer.
TEST(MemoryRemedies, MoreShardingStopsAtTheDeepestStageModelledForTheModel) {
  Candidate leanest = candidate_for(small_job());
  leanest.strategy.pipeline_parallel = 2;
  leanest.strategy.data_parallel = 4;
  strategy::JobSpec moe = leanest.job();
  moe.model = catalog::find_model("mixtral-8x7b");
  moe.model.num_layers = 4;
  leanest = candidate_for(moe);
  leanest.peak_memory_bytes = static_cast<double>(memory::estimate_memory(leanest.job()).peak().total());
  const auto remedies = memory_remedies(leanest, 1.0);
  const auto sharding = std::find_if(remedies.begin(), remedies.end(),
                                     [](const MemoryRemedy& remedy) { return remedy.change == "more sharding"; });
  ASSERT_NE(sharding, remedies.end());
  EXPECT_EQ(sharding->changed.strategy.zero_stage(), strategy::Sharding::optimizer);
  EXPECT_EQ(sharding->changed.label(), leanest.label() + " zero1");
}

TEST(MemoryRemedies, ASearchWhereNothingFitsNamesTheLeanestCandidate) {
  SearchSpace space;
  space.base = small_job();
  SearchOptions options;
  options.memory_limit_bytes = 1.0;  // nothing fits in one byte
  const SearchResult result = run_search(space, options);
  EXPECT_TRUE(result.ranking.empty());
  ASSERT_TRUE(result.leanest.has_value());
  for (const auto& candidate : result.candidates) {
    if (candidate.status == CandidateStatus::out_of_memory) {
      EXPECT_GE(candidate.peak_memory_bytes, result.candidates[*result.leanest].peak_memory_bytes);
    }
  }
}

}  // namespace

}  // namespace distsim::search

namespace distsim::search {

namespace {

//! The cost objective over two cluster sizes: the ground truth is every candidate simulated
//! (no pruning) and the one of least iteration time x GPUs picked here, independently of the
//! search's ranking and pruning.
TEST(SearchOptimum, TheCheapestOverSeveralClusterSizesEqualsTheExhaustiveOne) {
  SearchSpace space;
  space.base = small_job();
  space.node_counts = {1, 2};
  SearchOptions every;
  every.threads = 2;
  every.objectives = {Objective::cost, Objective::time};
  const SearchResult all = run_search(space, every);
  double cheapest = std::numeric_limits<double>::infinity();
  std::set<int> gpu_counts;
  for (const auto& candidate : all.candidates) {
    if (candidate.status != CandidateStatus::ok) continue;
    gpu_counts.insert(candidate.cluster().total_gpus());
    cheapest = std::min(cheapest, candidate.iteration_time_s * candidate.cluster().total_gpus() / 3600.0);
  }
  EXPECT_EQ(gpu_counts, (std::set<int>{8, 16}));
  SearchOptions pruned = every;
  pruned.keep = 3;
  const SearchResult some = run_search(space, pruned);
  ASSERT_GE(some.ranking.size(), 3u);
  EXPECT_DOUBLE_EQ(gpu_hours_per_iteration(some.candidates[some.ranking.front()]), cheapest);
  EXPECT_GT(some.pruned_by_bound, 0u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(gpu_hours_per_iteration(all.candidates[all.ranking[i]]),
              gpu_hours_per_iteration(some.candidates[some.ranking[i]]));
  }
  // The front of cost versus time is the same with and without pruning.
  EXPECT_EQ(all.pareto_front, some.pareto_front);
}

}  // namespace

}  // namespace distsim::search
