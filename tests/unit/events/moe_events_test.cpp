#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "built_rank_work.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "events/job_events.hpp"
#include "events/moe_routing.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::events {

namespace {

// A two-layer Mixtral shape: h 256, 8 heads of 32, 4 KV heads, 8 routed experts of FFN 512, top-2,
// SwiGLU, RMSNorm, vocabulary 1024, 128-token sequences; 8 ranks of 4-GPU hosts as tp 1 x dp 8,
// ep 4, one stage. Each rank routes T = 128 tokens; expert ranks hold 8 / 4 = 2 experts.
strategy::JobSpec moe_job() {
  strategy::JobSpec job;
  job.model = catalog::find_model("mixtral-8x7b");
  job.model.num_layers = 2;
  job.model.hidden_size = 256;
  job.model.num_attention_heads = 8;
  job.model.num_kv_heads = 4;
  job.model.ffn_hidden_size = 512;
  job.model.vocab_size = 1024;
  job.model.seq_length = 128;
  job.model.moe.expert_ffn_hidden_size = 512;
  job.cluster = catalog::find_cluster("dgx-h100");
  job.cluster.num_hosts = 2;
  job.cluster.gpus_per_host = 4;
  job.strategy.data_parallel = 8;
  job.strategy.expert_parallel = 4;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 8;
  return job;
}

std::vector<std::string> mlp_labels(const std::vector<TaskTemplate>& list, int layer, std::string_view from) {
  std::vector<std::string> labels;
  bool started = false;
  for (const auto& step : list) {
    if (step.layer != layer) continue;
    started = started || step.label == from;
    if (started) labels.emplace_back(step.label);
  }
  return labels;
}

int index_of(const std::vector<TaskTemplate>& list, int layer, std::string_view label) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].layer == layer && list[i].label == label) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

// The MoE block's forward steps in Megatron-Core's order: route, permute, dispatch, the experts,
// combine, unpermute, then the residual add (no shared experts in Mixtral).
TEST(MoeEvents, ForwardRunsDispatchExpertsCombineInOrder) {
  const Built built = build(moe_job());
  const std::vector<std::string> expected = {"norm",        "router",     "router top-k",      "permute",
                                             "ep dispatch", "expert fc1", "expert activation", "expert fc2",
                                             "ep combine",  "unpermute",  "bias dropout add"};
  // The layer's second "norm" is the MoE block's (the first is attention's).
  auto labels = mlp_labels(built.chunk().forward, 0, "router");
  labels.insert(labels.begin(), "norm");
  EXPECT_EQ(labels, expected);
  const auto& forward = built.chunk().forward;
  const int dispatch = index_of(forward, 0, "ep dispatch");
  const int combine = index_of(forward, 0, "ep combine");
  EXPECT_EQ(forward[static_cast<size_t>(dispatch)].stream, StreamKind::ep_comm);
  EXPECT_EQ(forward[static_cast<size_t>(index_of(forward, 0, "expert fc1"))].waits_for, dispatch);
  EXPECT_EQ(forward[static_cast<size_t>(index_of(forward, 0, "unpermute"))].waits_for, combine);
}

// The flex dispatcher (DeepEP, HybridEP) sends a token once to each rank that holds one of its
// experts. With 8 experts on 4 ranks (2 each) and top-2, a rank misses both of a token's experts
// with probability (6/8)·(5/7) = 15/28, so a token goes to 4·13/28 = 13/7 ranks on average: a rank
// sends ⌈128·13/7⌉ = 238 rows of 256 (121,856 bytes) where the alltoall dispatcher sends its 256
// copies. The exchange comes first, the host waiting for the routing before it (the received
// counts); the permutation into the local experts' copies follows, and the unpermutation precedes
// the combine.
TEST(MoeEvents, TheFlexDispatcherSendsATokenOncePerDestinationRank) {
  auto job = moe_job();
  EXPECT_DOUBLE_EQ(moe_destination_ranks(job.model, 4), 13.0 / 7.0);
  job.strategy.moe_dispatcher = strategy::MoeDispatcher::deepep;
  EXPECT_EQ(moe_dispatched_rows(job.model, job.strategy, 128), 238);
  const Built built = build(job);
  const auto& forward = built.chunk().forward;
  const std::vector<std::string> expected = {"router",     "router top-k",      "ep dispatch", "permute",
                                             "expert fc1", "expert activation", "expert fc2",  "unpermute",
                                             "ep combine", "bias dropout add"};
  EXPECT_EQ(mlp_labels(forward, 0, "router"), expected);
  const int dispatch = index_of(forward, 0, "ep dispatch");
  EXPECT_EQ(built.table.at(forward[static_cast<size_t>(dispatch)].event).key(),
            "all_to_all bytes=121856 group=4 intra");
  EXPECT_TRUE(forward[static_cast<size_t>(index_of(forward, 0, "router top-k"))].host_waits);
  EXPECT_FALSE(forward[static_cast<size_t>(dispatch)].host_waits);
  EXPECT_EQ(forward[static_cast<size_t>(index_of(forward, 0, "permute"))].waits_for, dispatch);
  const auto last = std::find_if(forward.rbegin(), forward.rend(), [](const TaskTemplate& step) {
    return step.layer == 0 && step.label == "bias dropout add";
  });
  EXPECT_EQ(last->waits_for, index_of(forward, 0, "ep combine"));  // the MoE block's residual add
  const auto& backward = built.chunk().backward;
  EXPECT_EQ(backward[static_cast<size_t>(index_of(backward, 0, "unpermute"))].waits_for,
            index_of(backward, 0, "ep combine"));
  EXPECT_EQ(backward[static_cast<size_t>(index_of(backward, 0, "router top-k"))].waits_for,
            index_of(backward, 0, "ep dispatch"));
}

// The host reads the token counts back once per MoE layer and forward, at the permutation before
// the dispatch (Megatron-Core's d2h_event.synchronize() before the EP all-to-all); the backward
// reuses the forward's splits and reads nothing back; a recomputed forward reads them again.
TEST(MoeEvents, TheHostReadsTheTokenCountsBackBeforeEachForwardDispatch) {
  const auto read_backs = [](const std::vector<TaskTemplate>& list) {
    std::vector<std::pair<int, std::string>> found;
    for (const auto& step : list) {
      if (step.host_waits) found.emplace_back(step.layer, std::string(step.label));
    }
    return found;
  };
  const Built built = build(moe_job());
  const std::vector<std::pair<int, std::string>> each_layer{{0, "permute"}, {1, "permute"}};
  EXPECT_EQ(read_backs(built.chunk().forward), each_layer);
  EXPECT_TRUE(read_backs(built.chunk().backward).empty());
  auto recomputed = moe_job();
  recomputed.strategy.recompute = strategy::Recompute::full;
  // The backward reruns each layer's forward before its gradients, the last layer first.
  const std::vector<std::pair<int, std::string>> last_first{{1, "permute"}, {0, "permute"}};
  EXPECT_EQ(read_backs(build(recomputed).chunk().backward), last_first);
}

// bytes = T·k·h·2 = 128·2·256·2 = 131072, over the 4 ranks {0..3} of host 0.
// Grouped GEMM: 2 local experts, M = 128·2 / 2 = 128 tokens each; FC1 is h → 2·512 (SwiGLU).
TEST(MoeEvents, DispatchBytesAndGroupedGemmShapes) {
  const Built built = build(moe_job());
  const auto& forward = built.chunk().forward;
  EXPECT_EQ(built.table.at(forward[static_cast<size_t>(index_of(forward, 0, "ep dispatch"))].event).key(),
            "all_to_all bytes=131072 group=4 intra");
  EXPECT_EQ(built.table.at(forward[static_cast<size_t>(index_of(forward, 0, "expert fc1"))].event).key(),
            "grouped_gemm groups=2 m=128 n=1024 k=256 bf16");
  EXPECT_EQ(built.table.at(forward[static_cast<size_t>(index_of(forward, 0, "expert fc2"))].event).key(),
            "grouped_gemm groups=2 m=128 n=256 k=512 bf16");
}

// The router's key carries top-k (2), which its profiled kernel needs: rows T = 128, cols 8
// experts. Forward reads the logits and writes probabilities and routing map, backward reads two
// such tensors and writes one: 3 · 128 · 8 · 2 bytes = 6144 either way.
TEST(MoeEvents, RouterKeyCarriesTopK) {
  const Built built = build(moe_job());
  const auto& forward = built.chunk().forward;
  const auto& router = built.table.at(forward[static_cast<size_t>(index_of(forward, 0, "router top-k"))].event);
  EXPECT_EQ(router.key(), "moe_router rows=128 cols=8 top_k=2 bf16");
  EXPECT_DOUBLE_EQ(router.bytes_moved, 6144.0);
  const auto& backward = built.chunk().backward;
  EXPECT_EQ(built.table.at(backward[static_cast<size_t>(index_of(backward, 0, "router top-k"))].event).key(),
            "moe_router_bwd rows=128 cols=8 top_k=2 bf16");
}

// Expert tensor parallelism 2 with ep 2 on the 8 ranks: ranks are numbered etp + 2·(ep + 2·edp),
// so rank 0's expert tensor group is {0, 1} and its EP group {0, 2}, both on host 0. After the
// dispatch (T·k·h·2 = 131072 bytes, as with etp 1) the group gathers its dispatched rows:
// 2 · 256 rows of h = 256 in bf16, 262144 bytes. Each rank then holds 8 / 2 = 4 experts with
// M = 2·128·2 / 4 = 128 rows each on half of each expert's FFN: FC1 h → 2·256 (SwiGLU), FC2
// 256 → h. The outputs are reduce-scattered before the combine, which waits for that.
TEST(MoeEvents, ExpertTensorParallelismGathersTheGroupsTokensAndSplitsTheFfn) {
  auto job = moe_job();
  job.strategy.expert_parallel = 2;
  job.strategy.expert_tensor_parallel = 2;
  const Built built = build(job);
  const auto& forward = built.chunk().forward;
  const std::vector<std::string> expected = {
      "router",     "router top-k",      "permute",    "ep dispatch",        "etp all_gather",
      "expert fc1", "expert activation", "expert fc2", "etp reduce_scatter", "ep combine",
      "unpermute",  "bias dropout add"};
  EXPECT_EQ(mlp_labels(forward, 0, "router"), expected);
  const auto key = [&](std::string_view label) {
    return built.table.at(forward[static_cast<size_t>(index_of(forward, 0, label))].event).key();
  };
  EXPECT_EQ(key("ep dispatch"), "all_to_all bytes=131072 group=2 intra");
  EXPECT_EQ(key("etp all_gather"), "all_gather bytes=262144 group=2 intra");
  EXPECT_EQ(key("expert fc1"), "grouped_gemm groups=4 m=128 n=512 k=256 bf16");
  EXPECT_EQ(key("expert fc2"), "grouped_gemm groups=4 m=128 n=256 k=256 bf16");
  EXPECT_EQ(key("etp reduce_scatter"), "reduce_scatter bytes=262144 group=2 intra");
  const auto at = [&](std::string_view label) { return forward[static_cast<size_t>(index_of(forward, 0, label))]; };
  EXPECT_EQ(at("etp all_gather").stream, StreamKind::etp_comm);
  EXPECT_EQ(at("etp all_gather").waits_for, index_of(forward, 0, "ep dispatch"));
  EXPECT_EQ(at("expert fc1").waits_for, index_of(forward, 0, "etp all_gather"));
  EXPECT_EQ(at("ep combine").waits_for, index_of(forward, 0, "etp reduce_scatter"));
  EXPECT_EQ(at("unpermute").waits_for, index_of(forward, 0, "ep combine"));
}

// MXFP8 (TransformerEngine's MXFP8BlockScaling) runs the expert GEMMs in the block format: FC1 of
// 2 experts of 128 x 1024 x 256 is 2·2·128·1024·256 = 134217728 FLOPs; it reads A and B at
// 1 + 1/32 bytes per element (an E8M0 scale per 32) and writes C in bf16:
// 2·((128·256 + 256·1024)·1.03125 + 128·1024·2) = 2·(294912·1.03125 + 262144)
// = 2·(304128 + 262144) = 1132544 bytes.
// Each grouped GEMM's operand is quantized first.
TEST(MoeEvents, Mxfp8RunsTheGroupedExpertGemmsInTheBlockFormat) {
  auto job = moe_job();
  job.cluster = catalog::find_cluster("dgx-b200");
  job.cluster.num_hosts = 2;
  job.cluster.gpus_per_host = 4;
  job.strategy.gemm_format = strategy::GemmFormat::mxfp8;
  const Built built = build(job);
  const auto& forward = built.chunk().forward;
  const Event& fc1 = built.table.at(forward[static_cast<size_t>(index_of(forward, 0, "expert fc1"))].event);
  EXPECT_EQ(fc1.key(), "grouped_gemm groups=2 m=128 n=1024 k=256 mxfp8");
  EXPECT_DOUBLE_EQ(fc1.flops, 134217728.0);
  EXPECT_DOUBLE_EQ(fc1.bytes_moved, 1132544.0);
  const std::vector<std::string> expected = {"ep dispatch", "quantize",   "expert fc1", "expert activation",
                                             "quantize",    "expert fc2", "ep combine"};
  auto labels = mlp_labels(forward, 0, "ep dispatch");
  ASSERT_GE(labels.size(), expected.size());
  labels.resize(expected.size());
  EXPECT_EQ(labels, expected);
}

// The allgather dispatcher gathers the group's 4 x 128 tokens: 4·128·256·2 = 262144 bytes, and
// reduce-scatters as many back.
TEST(MoeEvents, AllGatherDispatcherGathersTheGroupsTokens) {
  auto job = moe_job();
  job.strategy.moe_dispatcher = strategy::MoeDispatcher::allgather;
  const Built built = build(job);
  const auto& forward = built.chunk().forward;
  EXPECT_EQ(built.table.at(forward[static_cast<size_t>(index_of(forward, 0, "ep dispatch"))].event).key(),
            "all_gather bytes=262144 group=4 intra");
  EXPECT_EQ(built.table.at(forward[static_cast<size_t>(index_of(forward, 0, "ep combine"))].event).key(),
            "reduce_scatter bytes=262144 group=4 intra");
}

// Imbalance 1.5: the busiest rank gets ⌈256·1.5⌉ = 384 copies, 192 per expert; a capacity factor
// of 1.25 caps it at ⌈256·1.25⌉ = 320, 160 per expert. Megatron-Core's router drops the surplus
// before the dispatch (apply_router_token_dropping), so the dispatch carries the 320 too.
TEST(MoeEvents, ImbalanceAndCapacityFactorSetTokensPerExpert) {
  auto job = moe_job();
  job.strategy.moe_imbalance = 1.5;
  EXPECT_EQ(moe_tokens_per_expert(job.model, job.strategy, 128), 192);
  EXPECT_EQ(moe_dispatched_copies(job.model, job.strategy, 128), 384);
  job.model.moe.capacity_factor = 1.25;
  EXPECT_EQ(moe_tokens_per_expert(job.model, job.strategy, 128), 160);
  EXPECT_EQ(moe_dispatched_copies(job.model, job.strategy, 128), 320);
}

// Drop and pad (--moe-pad-expert-input-to-capacity) with capacity factor 1.25 and a balanced
// router: each rank's capacity per expert is ⌈128·2 / 8 · 1.25⌉ = 40 tokens (get_capacity over the
// rank's 256 copies), whatever was routed. A rank sends 40 to each of the 8 experts, 320 rows:
// 320·256·2 = 163,840 bytes, against the dropless 256 rows (131,072). Each of its 2 local experts
// takes 40 from each of the 4 expert-parallel ranks: m = 160 instead of 128. The sizes are fixed,
// so the host reads nothing back.
TEST(MoeEvents, PaddingToCapacitySizesTheDispatchAndTheExpertsByTheCapacity) {
  auto job = moe_job();
  job.model.moe.capacity_factor = 1.25;
  job.strategy.moe_pad_to_capacity = true;
  EXPECT_EQ(moe_expert_capacity(job.model, 128), 40);
  EXPECT_EQ(moe_dispatched_copies(job.model, job.strategy, 128), 320);
  EXPECT_EQ(moe_tokens_per_expert(job.model, job.strategy, 128), 160);
  job.strategy.moe_imbalance = 1.5;  // padding hides the imbalance: the sizes stay
  EXPECT_EQ(moe_tokens_per_expert(job.model, job.strategy, 128), 160);
  job.strategy.moe_imbalance = 1.0;
  const Built built = build(job);
  const auto& forward = built.chunk().forward;
  EXPECT_EQ(built.table.at(forward[static_cast<size_t>(index_of(forward, 0, "ep dispatch"))].event).key(),
            "all_to_all bytes=163840 group=4 intra");
  EXPECT_EQ(built.table.at(forward[static_cast<size_t>(index_of(forward, 0, "expert fc1"))].event).key(),
            "grouped_gemm groups=2 m=160 n=1024 k=256 bf16");
  for (const auto& step : forward) EXPECT_FALSE(step.host_waits) << step.label;
}

// Expert parameters per rank: each of the 2 layers has 8 experts of 3·256·512 = 393216 (SwiGLU
// FC1 256 → 1024 and FC2 512 → 256, no biases); a rank holds 2 of them: 2·2·393216 = 1572864.
// Their gradients (fp32, 4 B) are all-reduced over the expert data-parallel group, 8 / 4 = 2
// ranks {0, 4} on two hosts.
TEST(MoeEvents, ExpertParametersPerRankAndTheirReduction) {
  const Built built = build(moe_job());
  EXPECT_EQ(built.work.expert_parameters, 1572864);
  ASSERT_TRUE(built.work.expert_gradient_reduction.has_value());
  EXPECT_EQ(built.table.at(*built.work.expert_gradient_reduction).key(),
            "all_reduce bytes=6291456 group=2 inter per_node=1");
}

}  // namespace distsim::events
