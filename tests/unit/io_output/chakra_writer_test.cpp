#include "io/chakra/chakra_writer.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/delimited_message_util.h>
#include <nlohmann/json.hpp>

#include "../api/pipeline_test_jobs.hpp"
#include "io/chakra/et_def.pb.h"
#include "tiny_simulation.hpp"

namespace distsim::io {

namespace {

using testing::fixed_costs;
using testing::tiny_job;

//! A rank file read back with the generated message classes.
struct RankTrace {
  ChakraProtoMsg::GlobalMetadata metadata;
  std::vector<ChakraProtoMsg::Node> nodes;
};

//! What chakra_files writes, read back: the rank files by rank, and the group file.
struct Export {
  std::map<int, RankTrace> ranks;
  nlohmann::json groups;
};

Export export_of(const api::Simulation& simulation, TraceRanks shown) {
  Export result;
  for (const OutputFile& file : chakra_files(simulation, shown, "/out/job")) {
    std::ostringstream out;
    file.write(out);
    const std::string bytes = out.str();
    if (file.path == "/out/job.comm_groups.json") {
      result.groups = nlohmann::json::parse(bytes);
      continue;
    }
    const std::string rank_text = file.path.substr(std::string("/out/job.").size());
    RankTrace& trace = result.ranks[std::stoi(rank_text.substr(0, rank_text.size() - 3))];
    google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
    bool clean_eof = false;
    EXPECT_TRUE(google::protobuf::util::ParseDelimitedFromZeroCopyStream(&trace.metadata, &stream, &clean_eof));
    for (;;) {
      ChakraProtoMsg::Node node;
      if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&node, &stream, &clean_eof)) break;
      trace.nodes.push_back(node);
    }
    EXPECT_TRUE(clean_eof) << file.path << " ends inside a message";
  }
  return result;
}

const ChakraProtoMsg::AttributeProto* attr(const ChakraProtoMsg::Node& node, const std::string& name) {
  for (const auto& a : node.attr()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

bool is_comm(const ChakraProtoMsg::Node& node) { return node.type() != ChakraProtoMsg::COMP_NODE; }

api::SimulationOptions whole_iteration(api::SimulationOptions options = {}) {
  options.steady_state = false;
  return options;
}

// 1M2P2D on two hosts of two GPUs (rank = dp + 2·pp: stage 0 is ranks 0 and 1, stage 1 ranks 2
// and 3), GPipe over two micro-batches, no host thread, untied embeddings so that each stage has
// one gradient all-reduce. tiny_simulation.hpp prices embedding 2 µs, attention 1.5 µs forward and
// 3 µs backward, a transfer 0.5 µs, everything else nothing, so each replica's timeline is the
// one worked out there. Hand counts for the tiny model (h 64, FFN 256, GELU with biases,
// LayerNorm, learned positions of 32, vocabulary 128):
//   - an activation or its gradient: s·b·h·2 bytes = 32·1·64·2 = 4,096;
//   - a layer: LayerNorms 2·2h + QKV 3h²+3h + projection h²+h + FC1 h·f+f + FC2 f·h+h = 49,984;
//   - stage 0: word table 128·64 + positions 32·64 + a layer = 8,192 + 2,048 + 49,984 = 60,224;
//   - stage 1: a layer + final LayerNorm 2h + LM head 128·64 = 49,984 + 128 + 8,192 = 58,304;
//   - gradients all-reduced in fp32 (Megatron's main grads): 4 bytes each, in one bucket
//     (Megatron's default bucket of 40 M parameters): 240,896 and 233,216 bytes.
TEST(ChakraExport, ATwoStagePipelineWithOneAllReduceNodeByNode) {
  auto job = tiny_job(1, 2, 2, 2, 2, 4);
  job.model.tie_embeddings = false;
  job.strategy.host_time = strategy::HostTime::none;
  const api::Simulation simulation = api::simulate(job, whole_iteration(fixed_costs()));
  const Export exported = export_of(simulation, TraceRanks::all);
  ASSERT_EQ(exported.ranks.size(), 4U);
  EXPECT_EQ(exported.ranks.at(0).metadata.version(), "0.0.4");
  // Each gradient group once, in the order the ranks name them.
  EXPECT_EQ(exported.groups, nlohmann::json::parse(R"({"1": [0, 1], "2": [2, 3]})"));

  // (type, peer or group, bytes) of each communication node, in file order.
  using Comm = std::tuple<ChakraProtoMsg::NodeType, std::string, std::int64_t>;
  const auto comms = [&](int rank) {
    std::vector<Comm> result;
    for (const auto& node : exported.ranks.at(rank).nodes) {
      if (!is_comm(node)) continue;
      std::string with;
      if (node.type() == ChakraProtoMsg::COMM_COLL_NODE) {
        with = "pg " + attr(node, "pg_name")->string_val();
        EXPECT_EQ(attr(node, "comm_type")->int64_val(), ChakraProtoMsg::ALL_REDUCE);
      } else {
        with = std::to_string(attr(node, "comm_src")->int32_val()) + "->" +
               std::to_string(attr(node, "comm_dst")->int32_val());
      }
      result.emplace_back(node.type(), with, attr(node, "comm_size")->int64_val());
    }
    return result;
  };
  const auto send = ChakraProtoMsg::COMM_SEND_NODE;
  const auto recv = ChakraProtoMsg::COMM_RECV_NODE;
  const auto coll = ChakraProtoMsg::COMM_COLL_NODE;
  EXPECT_EQ(comms(0), (std::vector<Comm>{{send, "0->2", 4096},
                                         {send, "0->2", 4096},
                                         {recv, "2->0", 4096},
                                         {recv, "2->0", 4096},
                                         {coll, "pg 1", 240896}}));
  // Stage 1 ends B1 at 15,000 ns; its all-reduce, free in these prices, waits only for that
  // (without --overlap-grad-reduce) and starts before the second gradient leaves at 15,500.
  EXPECT_EQ(comms(2), (std::vector<Comm>{{recv, "0->2", 4096},
                                         {recv, "0->2", 4096},
                                         {send, "2->0", 4096},
                                         {coll, "pg 2", 233216},
                                         {send, "2->0", 4096}}));
  EXPECT_EQ(comms(1)[0], (Comm{send, "1->3", 4096}));

  // The priced steps of rank 0, with their starts on the hand-worked timeline, in whole µs
  // (rounded to the nearest): F0 embedding [0, 2000), attention [2000, 3500), the send
  // [3500, 4000); F1 from 3500; B0 attention from 12500, B1 from 16000 (its gradient arrives at
  // 16000).
  std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>> priced;
  for (const auto& node : exported.ranks.at(0).nodes) {
    if (node.duration_micros() > 0) priced.emplace_back(node.name(), node.start_time_micros(), node.duration_micros());
  }
  EXPECT_EQ(priced,
            (std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>>{{"fwd embedding mb0", 0, 2},
                                                                                {"fwd attention mb0 layer0", 2, 2},
                                                                                {"fwd embedding mb1", 4, 2},
                                                                                {"fwd send activation mb0", 4, 1},
                                                                                {"fwd attention mb1 layer0", 6, 2},
                                                                                {"fwd send activation mb1", 7, 1},
                                                                                {"bwd send gradient mb0", 12, 1},
                                                                                {"bwd attention mb0 layer0", 13, 3},
                                                                                {"bwd send gradient mb1", 16, 1},
                                                                                {"bwd attention mb1 layer0", 16, 3}}));
}

// Rules every export keeps, on jobs that exercise each kind of communication: tensor, context
// (ring and hierarchical), expert, sharded data parallelism with HSDP, tied embeddings, the
// interleaved schedule, and all-ranks mode.
struct ExportCase {
  std::string name;
  strategy::JobSpec job;
  bool all_ranks = false;
};

std::vector<ExportCase> export_cases() {
  using api::make_job;
  std::vector<ExportCase> cases;
  cases.push_back({"gpt2 tp2 pp2 dp2 1f1b", make_job("gpt2-345m", "dgx-a100", 1, 2, 2, 2, 4, "1f1b")});
  auto interleaved = make_job("gpt2-345m", "dgx-a100", 1, 2, 2, 2, 4, "interleaved");
  interleaved.strategy.virtual_stages = 2;
  cases.push_back({"gpt2 interleaved, all ranks", interleaved, true});
  auto ring = make_job("llama-3.1-8b", "dgx-h100", 1, 2, 1, 2, 2, "1f1b");
  ring.strategy.context_parallel = 2;
  ring.model.seq_length = 8192;
  cases.push_back({"llama cp2 ring", ring});
  auto hierarchical = make_job("llama-3.1-8b", "dgx-h100", 1, 1, 2, 1, 2, "1f1b");
  hierarchical.strategy.context_parallel = 4;
  hierarchical.strategy.cp_comm_type = strategy::CpCommType::a2a_p2p;
  hierarchical.strategy.cp_a2a_size = 2;
  hierarchical.model.seq_length = 8192;
  cases.push_back({"llama cp4 a2a+p2p", hierarchical});
  auto experts = make_job("mixtral-8x7b", "dgx-h100", 1, 1, 2, 4, 2, "1f1b");
  experts.strategy.expert_parallel = 2;
  experts.model.num_layers = 4;
  cases.push_back({"mixtral ep2 pp2 dp4", experts});
  auto hsdp = make_job("gpt2-345m", "dgx-a100", 1, 1, 1, 8, 2, "1f1b");
  hsdp.strategy.sharding = strategy::Sharding::full;
  hsdp.strategy.shard_group = 4;
  cases.push_back({"gpt2 zero3 hsdp 4x2", hsdp});
  return cases;
}

TEST(ChakraExport, KeepsItsRulesOnEveryKindOfCommunication) {
  for (const auto& c : export_cases()) {
    SCOPED_TRACE(c.name);
    api::SimulationOptions options;
    options.all_ranks = c.all_ranks;
    const api::Simulation simulation = api::simulate(c.job, whole_iteration(options));
    const Export exported = export_of(simulation, TraceRanks::all);
    const strategy::RankLayout layout(simulation.job.strategy, simulation.job.cluster);
    ASSERT_EQ(exported.ranks.size(), static_cast<size_t>(layout.world_size()));
    // Sends and receives by (source, destination, tag) and size; collectives by group.
    std::map<std::tuple<int, int, int>, std::int64_t> sends;
    std::map<std::tuple<int, int, int>, std::int64_t> receives;
    std::map<std::string, std::map<int, int>> collectives_by_group;
    for (const auto& [rank, trace] : exported.ranks) {
      const int device = simulation.program.device_for_rank(layout, rank);
      std::set<std::uint64_t> seen;
      std::int64_t compute_micros = 0;
      std::size_t gpu_compute_nodes = 0;
      std::size_t ring_receives = 0;
      for (const auto& node : trace.nodes) {
        // Every dependency is on a node earlier in the file: the graph is acyclic and a reader
        // that issues nodes in order meets each after what it waits for.
        for (const auto dep : node.data_deps()) EXPECT_TRUE(seen.count(dep)) << node.name();
        for (const auto dep : node.ctrl_deps()) EXPECT_TRUE(seen.count(dep)) << node.name();
        EXPECT_TRUE(seen.insert(node.id()).second) << "node id " << node.id() << " twice";
        const bool cpu = attr(node, "is_cpu_op")->bool_val();
        if (node.type() == ChakraProtoMsg::COMP_NODE && !cpu) {
          compute_micros += static_cast<std::int64_t>(node.duration_micros());
          ++gpu_compute_nodes;
        }
        const auto task = static_cast<engine::TaskId>(node.id() % simulation.program.program.num_tasks());
        ring_receives += node.id() >= simulation.program.program.num_tasks() ? 1 : 0;
        const auto& event = simulation.program.events.at(simulation.program.tasks[task].event);
        if (node.type() == ChakraProtoMsg::COMM_COLL_NODE) {
          const std::string group = attr(node, "pg_name")->string_val();
          const auto& members = exported.groups.at(group);
          EXPECT_EQ(static_cast<int>(members.size()), event.group_size) << node.name();
          EXPECT_NE(std::find(members.begin(), members.end(), rank), members.end()) << node.name();
          ++collectives_by_group[group][rank];
        } else if (node.type() != ChakraProtoMsg::COMP_NODE) {
          const auto key = std::make_tuple(attr(node, "comm_src")->int32_val(), attr(node, "comm_dst")->int32_val(),
                                           attr(node, "comm_tag")->int32_val());
          auto& side = node.type() == ChakraProtoMsg::COMM_SEND_NODE ? sends : receives;
          EXPECT_TRUE(side.emplace(key, attr(node, "comm_size")->int64_val()).second) << node.name();
        }
      }
      // One node per task of the rank's timeline, two for a ring exchange.
      std::size_t tasks = 0;
      for (const auto& kind : events::kStreamKindTable) {
        const auto stream = simulation.program.devices[static_cast<size_t>(device)].stream(kind.kind);
        for (auto t = simulation.program.program.first_on_stream(stream); t != engine::kNoTask;) {
          ++tasks;
          const auto streams = simulation.program.program.streams(t);
          const auto at = std::find(streams.begin(), streams.end(), stream) - streams.begin();
          t = simulation.program.program.next_on_streams(t)[static_cast<size_t>(at)];
        }
      }
      EXPECT_EQ(trace.nodes.size(), tasks + ring_receives);
      // Each node's duration is its task's to the nearest µs, so the sum is the compute stream's
      // busy time within half a µs a node.
      const SimTime busy = simulation.summary.devices[static_cast<size_t>(device)].busy_compute;
      EXPECT_NEAR(static_cast<double>(compute_micros) * 1000, static_cast<double>(busy),
                  500.0 * static_cast<double>(gpu_compute_nodes));
    }
    // Each send has its receive at the other end with the same tag and size.
    EXPECT_EQ(sends, receives);
    // Every member of a group takes part in the same number of its collectives.
    for (const auto& [group, by_rank] : collectives_by_group) {
      const auto& members = exported.groups.at(group);
      ASSERT_EQ(by_rank.size(), members.size()) << "group " << group;
      for (const auto& [rank, count] : by_rank) EXPECT_EQ(count, by_rank.begin()->second) << "group " << group;
    }
  }
}

TEST(ChakraExport, WritesTheRanksOfOneReplicaOrEveryRank) {
  const api::Simulation simulation =
      api::simulate(api::make_job("gpt2-345m", "dgx-a100", 1, 2, 2, 2, 4, "1f1b"), whole_iteration());
  std::vector<std::string> paths;
  for (const auto& file : chakra_files(simulation, TraceRanks::replica, "run")) paths.push_back(file.path);
  // rank = tp + 2·(dp + 2·pp): replica 0 is ranks 0, 1 (stage 0) and 4, 5 (stage 1).
  EXPECT_EQ(paths, (std::vector<std::string>{"run.0.et", "run.1.et", "run.4.et", "run.5.et", "run.comm_groups.json"}));
  EXPECT_EQ(chakra_files(simulation, TraceRanks::all, "run").size(), 9U);
}

TEST(ChakraExport, RefusesASteadyStatesShorterRun) {
  const api::Simulation simulation = api::simulate(api::make_job("gpt2-345m", "dgx-a100", 1, 1, 4, 2, 64, "1f1b"));
  ASSERT_TRUE(simulation.repeats.has_value());
  EXPECT_THROW(chakra_files(simulation, TraceRanks::replica, "run"), InputError);
}

}  // namespace

}  // namespace distsim::io
