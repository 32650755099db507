#include <gtest/gtest.h>

#include <map>
#include <string>

#include "catalog/builtin_clusters.hpp"
#include "cost/fixed_cost_model.hpp"
#include "program/job_program.hpp"

namespace distsim::program {

namespace {

using events::StreamKind;

//! A GPT-like model with one layer per stage on tp × 2 stages of one node.
strategy::JobSpec two_stage_job(int tp) {
  strategy::JobSpec job;
  job.model.name = "uniform";
  job.model.num_layers = 2;
  job.model.hidden_size = 256;
  job.model.num_attention_heads = 8;
  job.model.num_kv_heads = 8;
  job.model.ffn_hidden_size = 1024;
  job.model.vocab_size = 1000;
  job.model.seq_length = 128;
  job.cluster = catalog::find_cluster("pcie-a40");
  job.cluster.gpus_per_host = 2 * tp;
  job.cluster.num_hosts = 1;
  job.strategy.tensor_parallel = tp;
  job.strategy.pipeline_parallel = 2;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 4;
  return job;
}

JobProgram build(int tp, bool all_ranks) {
  static const cost::FixedCostModel costs(std::map<std::string, SimTime>{}, 1000, 1000);
  return build_job_program(two_stage_job(tp), schedule::find_schedule("1f1b"), costs,
                           all_ranks ? SimulatedRanks::every_rank_alone : SimulatedRanks::one_per_stage);
}

}  // namespace

// Symmetric mode: two devices (one per stage) with the 13 stream kinds each (the host thread's
// last), 26 streams; stream 13 + 3 is stage 1's PP receive from the previous stage.
TEST(StreamTable, SaysTheDeviceAndKindOfEveryStream) {
  const auto program = build(1, false);
  ASSERT_EQ(program.streams.size(), 26U);
  EXPECT_EQ(program.streams[16].device, 1);
  EXPECT_EQ(program.streams[16].kind, StreamKind::pp_recv_prev);
  EXPECT_EQ(program.streams[25].kind, StreamKind::host);
  EXPECT_EQ(program.streams[0].kind, StreamKind::compute);
  for (int device = 0; device < 2; ++device) {
    for (const auto& stream : events::kStreamKindTable) {
      const auto& info = program.streams[program.devices[static_cast<size_t>(device)].stream(stream.kind)];
      EXPECT_EQ(info.device, device);
      EXPECT_EQ(info.kind, stream.kind);
    }
  }
}

// All ranks of tp 2 × pp 2: four devices in rank order, 52 streams; stream 3·13 + 1 is rank 3's TP
// stream. Every task of a pass's compute template runs on a compute stream of its device.
TEST(StreamTable, CoversEveryRankInAllRanksMode) {
  const auto program = build(2, true);
  ASSERT_EQ(program.streams.size(), 52U);
  EXPECT_EQ(program.streams[40].device, 3);
  EXPECT_EQ(program.streams[40].kind, StreamKind::tp_comm);
  for (engine::TaskId task = 0; task < program.program.num_tasks(); ++task) {
    if (program.tasks[task].label == "optimizer step") {
      const auto stream = program.program.streams(task).front();
      EXPECT_EQ(program.streams[stream].kind, StreamKind::compute);
    }
  }
}

}  // namespace distsim::program
