// The same jobs simulated every rank on its own and through one data-parallel replica per placement
// class (strategy::PlacementClasses) give the same results: the iteration, the bubble, every rank's
// busy and idle time and every event's instance count. Ground truth is the simulation of every rank.

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/simulation.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::api {

namespace {

struct ClassCase {
  std::string name;
  strategy::JobSpec job;
  int simulated_indices = 0;  //!< data-parallel indices the merged run simulates, worked out by hand
};

strategy::JobSpec placement_job(const std::string& model, const std::string& cluster, int gpus_per_host, int tp, int pp,
                                int dp, int microbatches) {
  strategy::JobSpec job;
  job.model = catalog::find_model(model);
  job.cluster = catalog::find_cluster(cluster);
  job.cluster.gpus_per_host = gpus_per_host;
  job.cluster.num_hosts = (tp * pp * dp + gpus_per_host - 1) / gpus_per_host;
  job.strategy.tensor_parallel = tp;
  job.strategy.pipeline_parallel = pp;
  job.strategy.data_parallel = dp;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = microbatches * dp;
  return job;
}

// Hand counts of simulated_indices: rank = tp + TP·(cp + CP·(dp + DP·pp)), hosts of 6 GPUs (each
// its own domain). A replica's ranks are split over hosts by where they start within a host.
std::vector<ClassCase> class_cases() {
  std::vector<ClassCase> cases;
  // Replica k: ranks 4k..4k+3 and 24+4k..27+4k, starting at GPU 4k mod 6 = 0, 4, 2, 0, 4, 2 of
  // a host (24 is a whole number of hosts): whole, split 2+2, whole (GPUs 2-5). Classes {0, 2, 3,
  // 5} and {1, 4}: two indices.
  cases.push_back({"tp4 pp2 dp6 on 6-GPU hosts", placement_job("gpt2-345m", "dgx-a100", 6, 4, 2, 6, 8), 2});
  auto context = placement_job("llama-3.1-8b", "dgx-h100", 6, 2, 2, 3, 8);
  context.strategy.context_parallel = 2;
  context.model.seq_length = 8192;
  context.cluster.num_hosts = 24 / 6;
  // Replica k: 4 ranks (tp x cp) at 4k and 12 + 4k, starting at GPU 0, 4, 2 of a host: whole,
  // split, whole. Classes {0, 2} and {1}: two indices.
  cases.push_back({"cp2 tp2 pp2 dp3 on 6-GPU hosts", context, 2});
  auto experts = placement_job("mixtral-8x7b", "dgx-h100", 6, 1, 2, 6, 8);
  experts.strategy.expert_parallel = 2;
  // Blocks of 2 indices (an EP group of 2 over tp 1), 3 of them, block b at ranks 2b, 2b+1 and
  // 6+2b, 7+2b: never split (a 6-GPU host holds three pairs). One class: one block of two indices.
  cases.push_back({"mixtral ep2 pp2 dp6 on 6-GPU hosts", experts, 2});
  auto hsdp = placement_job("llama-3.1-8b", "dgx-h100", 6, 2, 1, 6, 4);
  hsdp.strategy.sharding = strategy::Sharding::full;
  hsdp.strategy.shard_group = 2;
  // Shard groups of 2 data-parallel indices: blocks of 2 indices, 4 ranks at 4b, b = 0..2: ranks
  // 0-3 whole, 4-7 split 2+2, 8-11 whole (GPUs 2-5 of host 1). Classes {0, 2} and {1}: two
  // blocks of two indices.
  cases.push_back({"hsdp shard 2 tp2 dp6 on 6-GPU hosts", hsdp, 4});
  // As the first case.
  auto interleaved = placement_job("gpt2-345m", "dgx-a100", 6, 4, 2, 6, 8);
  interleaved.strategy.schedule = "interleaved";
  interleaved.strategy.virtual_stages = 2;
  cases.push_back({"interleaved tp4 pp2 dp6 on 6-GPU hosts", interleaved, 2});
  // Uniform, asked for every rank: replica k at ranks 2k, 2k+1 and 16+2k, 17+2k, pairs that 8-GPU
  // hosts never split. One class.
  cases.push_back({"uniform tp2 pp2 dp8 on 8-GPU hosts", placement_job("gpt2-345m", "dgx-a100", 8, 2, 2, 8, 8), 1});
  auto long_run = placement_job("gpt2-345m", "dgx-a100", 6, 4, 4, 3, 64);
  // Replica k: 4 ranks at 4k + 12s on stage s; 12s is a whole number of hosts, so as the first
  // case: {0, 2} and {1}. Its 64 micro-batches run in part (steady/steady_state.hpp).
  cases.push_back({"a long 1f1b pipeline", long_run, 2});
  // Hosts of 4 in 72-GPU NVLink domains: replica k of tp 16, dp 9 holds ranks 16k..16k+15; only
  // replica 4 (ranks 64-79) crosses the domain boundary at 72. Classes: {4} and the rest.
  auto rack = placement_job("gpt2-345m", "gb200-nvl72", 4, 16, 1, 9, 2);
  cases.push_back({"tp16 across NVL72 racks", rack, 2});
  return cases;
}

std::map<std::string, std::int64_t> instances_by_event(const Simulation& simulation) {
  std::map<std::string, std::int64_t> instances;
  for (events::EventId id = 0; id < simulation.program.events.size(); ++id) {
    instances[simulation.program.events.at(id).key()] += simulation.program.events.instances(id);
  }
  return instances;
}

Simulation simulate_every_rank(const strategy::JobSpec& job, bool merge) {
  SimulationOptions options;
  options.all_ranks = true;
  options.merge_placement_classes = merge;
  return simulate(job, options);
}

}  // namespace

TEST(PlacementClasses, MergedReplicasGiveEveryRanksOwnResults) {
  for (const auto& c : class_cases()) {
    SCOPED_TRACE(c.name);
    const Simulation alone = simulate_every_rank(c.job, false);
    const Simulation merged = simulate_every_rank(c.job, true);
    ASSERT_TRUE(merged.program.placement_classes);
    EXPECT_EQ(merged.program.placement_classes->simulated_indices(), c.simulated_indices);
    EXPECT_EQ(alone.program.devices.size(), static_cast<size_t>(c.job.strategy.world_size()));
    EXPECT_EQ(merged.simulated_microbatches, alone.simulated_microbatches);
    EXPECT_EQ(merged.summary.iteration_time, alone.summary.iteration_time);
    EXPECT_EQ(merged.summary.bubble_fraction, alone.summary.bubble_fraction);
    EXPECT_EQ(merged.summary.total_flops, alone.summary.total_flops);
    EXPECT_EQ(instances_by_event(merged), instances_by_event(alone));
    const strategy::RankLayout layout(c.job.strategy, c.job.cluster);
    for (int rank = 0; rank < layout.world_size(); ++rank) {
      const auto& a = alone.summary.devices.at(static_cast<size_t>(alone.program.device_for_rank(layout, rank)));
      const auto& m = merged.summary.devices.at(static_cast<size_t>(merged.program.device_for_rank(layout, rank)));
      EXPECT_EQ(m.busy_compute, a.busy_compute) << "rank " << rank;
      EXPECT_EQ(m.busy_communication, a.busy_communication) << "rank " << rank;
      EXPECT_EQ(m.idle, a.idle) << "rank " << rank;
    }
  }
}

}  // namespace distsim::api
