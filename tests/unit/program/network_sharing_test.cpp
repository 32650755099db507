#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "api/simulation.hpp"
#include "catalog/builtin_clusters.hpp"
#include "cost/fixed_cost_model.hpp"
#include "program/job_program.hpp"

namespace distsim::program {

namespace {

//! GPT-like, two layers per stage, pp = 2 and dp = 2 on `nodes` nodes of 4 / nodes GPUs;
//! every communication costs 1 ms, attention 1 ms, the rest nothing.
api::Simulation simulate_two_by_two(int nodes, bool all_ranks) {
  strategy::JobSpec job;
  job.model.name = "small";
  job.model.num_layers = 4;
  job.model.hidden_size = 256;
  job.model.num_attention_heads = 8;
  job.model.num_kv_heads = 8;
  job.model.ffn_hidden_size = 1024;
  job.model.vocab_size = 1000;
  job.model.seq_length = 128;
  job.cluster = catalog::find_cluster("pcie-a40");
  job.cluster.num_hosts = nodes;
  job.cluster.gpus_per_host = 4 / nodes;
  job.strategy.pipeline_parallel = 2;
  job.strategy.data_parallel = 2;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 4;
  job.strategy.schedule = "1f1b";
  api::SimulationOptions options;
  options.all_ranks = all_ranks;
  options.merge_placement_classes = false;  // every rank on a device of its own
  options.preferred_costs = std::make_shared<cost::FixedCostModel>(
      std::map<std::string, SimTime>{{"flash_attention_fwd", 1'000'000}, {"flash_attention_bwd", 1'000'000}}, 0,
      1'000'000);
  return api::simulate(job, options);
}

using Uses = std::map<engine::TaskId, std::set<engine::ResourceId>>;

Uses uses_of(const JobProgram& program) {
  Uses uses;
  for (const auto& [task, resource] : program.program.resource_uses()) {
    uses[task].insert(resource);
  }
  return uses;
}

//! The simulated device a stream belongs to.
int device_of(engine::StreamId stream) { return static_cast<int>(stream / events::kStreamKinds); }

}  // namespace

TEST(NetworkSharing, LeavesIntraNodeCommunicationAlone) {
  // One node of 4 GPUs: every transfer and reduction stays on the node's own links.
  const api::Simulation sim = simulate_two_by_two(1, false);
  EXPECT_TRUE(sim.program.program.resource_uses().empty());
}

TEST(NetworkSharing, PutsInterNodeCommunicationOnTheNicsOfItsDevices) {
  // Four one-GPU nodes, so every communication crosses the network. A transfer sends on the
  // sender's NIC share and receives on the receiver's; the gradient all-reduce of a stage (one
  // device in symmetric mode) and the embedding all-reduce between the stages send and receive
  // on all of theirs; computation uses none.
  const api::Simulation sim = simulate_two_by_two(4, false);
  const JobProgram& program = sim.program;
  const Uses uses = uses_of(program);
  const auto& stage = program.devices;
  int transfers = 0;
  int reductions = 0;
  for (engine::TaskId task = 0; task < program.program.num_tasks(); ++task) {
    const auto& info = program.tasks[task];
    const auto streams = program.program.streams(task);
    const auto found = uses.find(task);
    const std::set<engine::ResourceId> used = found == uses.end() ? std::set<engine::ResourceId>{} : found->second;
    if (info.label == "send activation" || info.label == "send gradient") {
      const auto& sender = stage[static_cast<size_t>(device_of(streams[0]))];
      const auto& receiver = stage[static_cast<size_t>(device_of(streams[1]))];
      EXPECT_EQ(used, (std::set<engine::ResourceId>{sender.nic_send, receiver.nic_receive})) << info.label;
      ++transfers;
    } else if (info.label == "dp gradient all_reduce") {
      const auto& device = stage[static_cast<size_t>(device_of(streams[0]))];
      EXPECT_EQ(used, (std::set<engine::ResourceId>{device.nic_send, device.nic_receive}));
      ++reductions;
    } else if (info.label == "embedding all_reduce") {
      EXPECT_EQ(used, (std::set<engine::ResourceId>{stage[0].nic_send, stage[0].nic_receive, stage[1].nic_send,
                                                    stage[1].nic_receive}));
    } else {
      EXPECT_TRUE(used.empty()) << info.label;
    }
  }
  // 2 micro-batches: 2 activations forward and 2 gradients back; at least one bucket per stage.
  EXPECT_EQ(transfers, 4);
  EXPECT_GE(reductions, 2);
}

TEST(NetworkSharing, GivesEachRankItsOwnNicsInAllRanksMode) {
  // The data-parallel all-reduce of stage 0 joins ranks 0 and 1 (Megatron order tp, dp, pp),
  // each on its own node: it uses both directions of both ranks' NIC shares.
  const api::Simulation sim = simulate_two_by_two(4, true);
  const JobProgram& program = sim.program;
  const Uses uses = uses_of(program);
  bool checked = false;
  for (engine::TaskId task = 0; task < program.program.num_tasks(); ++task) {
    const auto streams = program.program.streams(task);
    if (program.tasks[task].label != "dp gradient all_reduce" || device_of(streams[0]) != 0) {
      continue;
    }
    const auto& rank0 = program.devices[0];
    const auto& rank1 = program.devices[1];
    EXPECT_EQ(uses.at(task),
              (std::set<engine::ResourceId>{rank0.nic_send, rank0.nic_receive, rank1.nic_send, rank1.nic_receive}));
    checked = true;
  }
  EXPECT_TRUE(checked);
}

TEST(NetworkSharing, KeepsSymmetricAndAllRanksTimelinesEqual) {
  // Every rank of a stage shares its NICs the way the stage's one simulated device does.
  const api::Simulation symmetric = simulate_two_by_two(4, false);
  const api::Simulation all_ranks = simulate_two_by_two(4, true);
  EXPECT_EQ(symmetric.summary.iteration_time, all_ranks.summary.iteration_time);
  EXPECT_EQ(symmetric.summary.bubble_fraction, all_ranks.summary.bubble_fraction);
}

}  // namespace distsim::program
