#include <gtest/gtest.h>

#include <set>

#include "api/simulation.hpp"
#include "catalog/builtin_clusters.hpp"
#include "cost/fixed_cost_model.hpp"
#include "program/job_program.hpp"

namespace distsim::program {

using strategy::ParallelDim;

namespace {

//! One layer (8 heads, s = 128), tp 2 × cp 2 × dp 2 on two PCIe A40 nodes of 4 GPUs, two
//! micro-batches. Rank order tp-cp-dp: node 0 holds dp 0 (ranks 0-3), node 1 dp 1 (ranks 4-7).
strategy::JobSpec job() {
  strategy::JobSpec spec;
  spec.model.name = "tiny";
  spec.model.num_layers = 1;
  spec.model.hidden_size = 256;
  spec.model.num_attention_heads = 8;
  spec.model.num_kv_heads = 8;
  spec.model.ffn_hidden_size = 1024;
  spec.model.vocab_size = 1000;
  spec.model.seq_length = 128;
  spec.cluster = catalog::find_cluster("pcie-a40");
  spec.cluster.gpus_per_host = 4;
  spec.cluster.num_hosts = 2;
  spec.strategy.tensor_parallel = 2;
  spec.strategy.context_parallel = 2;
  spec.strategy.data_parallel = 2;
  spec.strategy.micro_batch_size = 1;
  spec.strategy.global_batch_size = 4;
  return spec;
}

JobProgram build(bool all_ranks) {
  const cost::FixedCostModel costs({}, 1000, 1000);
  return build_job_program(job(), schedule::find_schedule("1f1b"), costs,
                           all_ranks ? SimulatedRanks::every_rank_alone : SimulatedRanks::one_per_stage);
}

}  // namespace

// Every rank is simulated: each ring exchange is one task on the CP streams of the two context
// ranks of one (tp, dp) position, and each TP collective one task on the tensor group's streams.
// Per micro-batch and ring: 1 forward exchange, 2 backward (cp = 2); 2 micro-batches, 4 rings.
TEST(ContextParallelProgram, RingExchangesSpanTheContextGroup) {
  const JobProgram program = build(true);
  int exchanges = 0;
  for (engine::TaskId task = 0; task < program.tasks.size(); ++task) {
    const auto& info = program.tasks[task];
    if (info.label != "cp kv exchange" && info.label != "cp dkv exchange") {
      continue;
    }
    ++exchanges;
    const auto streams = program.program.streams(task);
    ASSERT_EQ(streams.size(), 2U);
    const auto& a = program.devices[streams[0] / events::kStreamKinds];
    const auto& b = program.devices[streams[1] / events::kStreamKinds];
    EXPECT_EQ(streams[0] % events::kStreamKinds, static_cast<unsigned>(events::StreamKind::cp_comm));
    EXPECT_EQ(a.coord[ParallelDim::tp], b.coord[ParallelDim::tp]);
    EXPECT_EQ(a.coord[ParallelDim::dp], b.coord[ParallelDim::dp]);
    EXPECT_EQ(std::set<int>({a.coord[ParallelDim::cp], b.coord[ParallelDim::cp]}), std::set<int>({0, 1}));
  }
  EXPECT_EQ(exchanges, 3 * 2 * 4);
}

// In symmetric mode the one device of the stage stands for all 8 ranks and its exchanges sit on
// its own CP stream; each counts as 8 instances, as in all-ranks mode (4 rings x 2 members).
TEST(ContextParallelProgram, SymmetricModeKeepsTheExchangeOnOneStream) {
  const JobProgram symmetric = build(false);
  const JobProgram all = build(true);
  EXPECT_EQ(symmetric.devices[0].ranks, 8);
  for (engine::TaskId task = 0; task < symmetric.tasks.size(); ++task) {
    if (symmetric.tasks[task].label == "cp kv exchange") {
      EXPECT_EQ(symmetric.program.streams(task).size(), 1U);
    }
  }
  EXPECT_EQ(symmetric.events.total_instances(), all.events.total_instances());
}

}  // namespace distsim::program
