#include <gtest/gtest.h>

#include <algorithm>

#include "built_rank_work.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "events/job_events.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::events {

namespace {

// GPT-2 345M: 24 layers, h 1024, 16 heads of d 64 (no GQA), s 1024, learned positions; on one
// DGX A100 node (8 GPUs) with micro-batch b = 4.
strategy::JobSpec gpt2_job(int tp, int cp, int pp, int dp) {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.cluster = catalog::find_cluster("dgx-a100");
  job.cluster.num_hosts = 1;
  job.strategy.tensor_parallel = tp;
  job.strategy.context_parallel = cp;
  job.strategy.pipeline_parallel = pp;
  job.strategy.data_parallel = dp;
  job.strategy.micro_batch_size = 4;
  job.strategy.global_batch_size = 4 * dp * 8;
  return job;
}

//! Indices of the steps of layer 0 with `label`, in order.
std::vector<int> layer0(const std::vector<TaskTemplate>& list, std::string_view label) {
  std::vector<int> found;
  for (int i = 0; i < static_cast<int>(list.size()); ++i) {
    if (list[static_cast<size_t>(i)].layer == 0 && list[static_cast<size_t>(i)].label == label) {
      found.push_back(i);
    }
  }
  return found;
}

std::string key_of(const Built& built, const std::vector<TaskTemplate>& list, int index) {
  return built.event(list[static_cast<size_t>(index)]).key();
}

}  // namespace

// tp 2, cp 2: every per-token GEMM has M = b·s/cp = 4·1024/2 = 2048 rows (4096 without CP).
TEST(ContextParallelEvents, HalvesTheTokensOfEveryPerTokenOperator) {
  const Built built = build(gpt2_job(2, 2, 1, 2));
  const auto& forward = built.chunk().forward;
  EXPECT_EQ(key_of(built, forward, layer0(forward, "qkv").front()), "gemm m=2048 n=1536 k=1024 bf16");
  EXPECT_EQ(key_of(built, forward, layer0(forward, "fc1").front()), "gemm m=2048 n=2048 k=1024 bf16");
  EXPECT_EQ(key_of(built, forward, layer0(forward, "norm").front()), "layernorm rows=2048 cols=1024 bf16");
  const auto embedding =
      std::find_if(forward.begin(), forward.end(), [](const auto& t) { return t.label == "embedding"; });
  EXPECT_EQ(built.event(*embedding).key(), "embedding rows=2048 cols=1024 bf16");
  // The weight-gradient GEMM of QKV sums over the local 2048 tokens: k = 2048.
  const auto& backward = built.chunk().backward;
  EXPECT_EQ(key_of(built, backward, layer0(backward, "qkv").back()), "gemm m=1024 n=1536 k=2048 bf16");
}

// Ring attention, cp 2, 16/2 = 8 heads per tensor rank, causal: step 0 is the causal block of the
// local 512 tokens, step 1 half a block: the second local chunk (256 queries) against the 512
// received keys. FLOPs 4·b·heads·sq·skv·d (halved when causal):
//   step 0: 4·4·8·512·512·64 / 2 = 2^30; step 1: 4·4·8·256·512·64 = 2^30;
//   without CP the layer's attention is 4·4·8·1024·1024·64 / 2 = 2^32, so each rank does half.
TEST(ContextParallelEvents, SplitsAttentionIntoRingStepsWithHalfTheFlops) {
  const Built built = build(gpt2_job(2, 2, 1, 2));
  const auto& forward = built.chunk().forward;
  const auto steps = layer0(forward, "attention");
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_EQ(key_of(built, forward, steps[0]),
            "flash_attention_fwd b=4 heads=8 kv_heads=8 sq=512 skv=512 d=64 causal=1 bf16");
  EXPECT_EQ(key_of(built, forward, steps[1]),
            "flash_attention_fwd b=4 heads=8 kv_heads=8 sq=256 skv=512 d=64 causal=0 bf16");
  const double ring_flops = built.event(forward[static_cast<size_t>(steps[0])]).flops +
                            built.event(forward[static_cast<size_t>(steps[1])]).flops;
  EXPECT_DOUBLE_EQ(ring_flops, 2147483648.0);  // 2^31

  const Built whole = build(gpt2_job(2, 1, 1, 4));
  const auto full_step = layer0(whole.chunk().forward, "attention");
  ASSERT_EQ(full_step.size(), 1U);
  EXPECT_DOUBLE_EQ(whole.event(whole.chunk().forward[static_cast<size_t>(full_step[0])]).flops, 4294967296.0);
  // Backward runs the blocks in reverse: the causal one last; 2.5x the forward FLOPs each.
  const auto& backward = built.chunk().backward;
  const auto back_steps = layer0(backward, "attention");
  ASSERT_EQ(back_steps.size(), 2U);
  EXPECT_EQ(key_of(built, backward, back_steps[0]),
            "flash_attention_bwd b=4 heads=8 kv_heads=8 sq=256 skv=512 d=64 causal=0 bf16");
  EXPECT_EQ(key_of(built, backward, back_steps[1]),
            "flash_attention_bwd b=4 heads=8 kv_heads=8 sq=512 skv=512 d=64 causal=1 bf16");
  EXPECT_DOUBLE_EQ(built.event(backward[static_cast<size_t>(back_steps[1])]).flops, 2.5 * 1073741824.0);
}

// The K/V block of a rank: K and V, b = 4, s/cp = 512 tokens, 16/2 = 8 KV heads of d = 64, bf16:
// 2·4·512·8·64·2 = 4,194,304 bytes. Ranks 0 and 2 (tp 0, cp 0 and 1) share the node: intra.
TEST(ContextParallelEvents, ExchangesKeyValueBlocksOnTheContextStream) {
  const Built built = build(gpt2_job(2, 2, 1, 2));
  const auto& forward = built.chunk().forward;
  const auto& backward = built.chunk().backward;
  EXPECT_EQ(count(forward, "cp kv exchange"), 24);  // cp − 1 = 1 per layer
  EXPECT_EQ(count(backward, "cp kv exchange"), 24);
  EXPECT_EQ(count(backward, "cp dkv exchange"), 24);
  EXPECT_EQ(count(backward, "cp kv dkv exchange"), 0);  // only between the first and last of cp > 2
  const int exchange = layer0(forward, "cp kv exchange").front();
  EXPECT_EQ(forward[static_cast<size_t>(exchange)].stream, StreamKind::cp_comm);
  EXPECT_EQ(key_of(built, forward, exchange), "ring_exchange bytes=4194304 group=2 intra");
  EXPECT_EQ(key_of(built, backward, layer0(backward, "cp dkv exchange").front()),
            "ring_exchange bytes=4194304 group=2 intra");
}

// Forward: exchange, step 0, step 1 waiting for the exchange. Backward: K/V exchange, step 0,
// dK/dV exchange, step 1 waiting for the K/V exchange; the next compute step (the QKV input
// gradient; GPT-2 has no RoPE) waits for the dK/dV exchange.
TEST(ContextParallelEvents, EachStepWaitsForThePreviousExchange) {
  const Built built = build(gpt2_job(2, 2, 1, 2));
  const auto& forward = built.chunk().forward;
  const int exchange = layer0(forward, "cp kv exchange").front();
  const auto steps = layer0(forward, "attention");
  EXPECT_EQ(steps[0], exchange + 1);
  EXPECT_EQ(forward[static_cast<size_t>(steps[1])].waits_for, exchange);

  const auto& backward = built.chunk().backward;
  const int kv = layer0(backward, "cp kv exchange").front();
  const int dkv = layer0(backward, "cp dkv exchange").front();
  const auto back_steps = layer0(backward, "attention");
  EXPECT_EQ(back_steps[0], kv + 1);
  EXPECT_EQ(dkv, back_steps[0] + 1);
  EXPECT_EQ(back_steps[1], dkv + 1);
  EXPECT_EQ(backward[static_cast<size_t>(back_steps[1])].waits_for, kv);
  auto next = static_cast<size_t>(back_steps[1] + 1);
  while (backward[next].stream != StreamKind::compute) {
    ++next;
  }
  EXPECT_EQ(backward[next].label, "qkv");
  EXPECT_EQ(backward[next].waits_for, dkv);
}

// cp 4, tp 1: K/V block 2·4·256·16·64·2 = 4,194,304 bytes; the middle backward exchanges carry
// K/V and dK/dV, twice that. Ranks 0, 1, 2, 3 of one node form the ring.
TEST(ContextParallelEvents, MiddleBackwardExchangesCarryKeysValuesAndTheirGradients) {
  const Built built = build(gpt2_job(1, 4, 1, 2));
  const auto& forward = built.chunk().forward;
  const auto& backward = built.chunk().backward;
  EXPECT_EQ(layer0(forward, "cp kv exchange").size(), 3U);
  EXPECT_EQ(layer0(forward, "attention").size(), 4U);
  EXPECT_EQ(layer0(backward, "cp kv exchange").size(), 1U);
  EXPECT_EQ(layer0(backward, "cp dkv exchange").size(), 1U);
  const auto middle = layer0(backward, "cp kv dkv exchange");
  ASSERT_EQ(middle.size(), 2U);
  EXPECT_EQ(key_of(built, forward, layer0(forward, "cp kv exchange").front()),
            "ring_exchange bytes=4194304 group=4 intra");
  EXPECT_EQ(key_of(built, backward, middle.front()), "ring_exchange bytes=8388608 group=4 intra");
  // Steps 1-3: 128 queries (the second of the rank's two 128-token chunks) against 256 keys.
  EXPECT_EQ(key_of(built, forward, layer0(forward, "attention").back()),
            "flash_attention_fwd b=4 heads=16 kv_heads=16 sq=128 skv=256 d=64 causal=0 bf16");
}

// Weights are replicated over the cp ranks, so gradients are reduced over dp·cp = 2·2 = 4 ranks
// (0, 2, 4, 6 for tp rank 0: one node); the distributed optimizer updates a quarter of them.
TEST(ContextParallelEvents, ReducesGradientsOverDataAndContextRanks) {
  strategy::JobSpec job = gpt2_job(2, 2, 1, 2);
  job.strategy.distributed_optimizer = true;
  const Built built = build(job);
  const auto& buckets = built.chunk().gradient_buckets;
  ASSERT_FALSE(buckets.empty());
  const Event& reduction = built.table.at(buckets.front().reduction.value());
  EXPECT_EQ(reduction.op, Operator::reduce_scatter);
  EXPECT_EQ(reduction.group_size, 4);
  EXPECT_TRUE(reduction.within_domain);
  const std::int64_t per_rank = built.work.parameters;
  EXPECT_EQ(built.table.at(built.work.optimizer_step).dim("params"), (per_rank + 3) / 4);
  // dp 1, cp 2 still reduces: over the 2 context ranks.
  const Built context_only = build(gpt2_job(4, 2, 1, 1));
  ASSERT_FALSE(context_only.chunk().gradient_buckets.empty());
  EXPECT_EQ(context_only.table.at(context_only.chunk().gradient_buckets.front().reduction.value()).group_size, 2);
}

// A context rank sends its s/cp tokens to the next stage: 4·512·1024·2 = 4,194,304 bytes.
TEST(ContextParallelEvents, SendsTheLocalTokensBetweenStages) {
  const Built built = build(gpt2_job(1, 2, 2, 2));
  ASSERT_TRUE(built.chunk().send_activation.has_value());
  EXPECT_EQ(built.table.at(*built.chunk().send_activation).bytes, 4194304);
}

TEST(ContextParallelEvents, WithoutContextParallelismThereIsNoRing) {
  const Built built = build(gpt2_job(2, 1, 1, 4));
  for (const auto* list : {&built.chunk().forward, &built.chunk().backward}) {
    EXPECT_TRUE(
        std::none_of(list->begin(), list->end(), [](const auto& t) { return t.stream == StreamKind::cp_comm; }));
  }
  EXPECT_EQ(count(built.chunk().forward, "attention"), 24);
}

namespace {

strategy::JobSpec with_comm_type(strategy::JobSpec job, strategy::CpCommType type) {
  job.strategy.cp_comm_type = type;
  return job;
}

}  // namespace

// cp_comm_type a2a, tp 2, cp 2 (b = 4, s = 1024, 16 heads of d = 64, no GQA). Each rank sends its
// s/cp = 512 tokens of Q, K and V for its 16/2 = 8 heads: 4·512·(512 + 2·512)·2 = 6,291,456 bytes,
// and of the output 4·512·512·2 = 2,097,152. Attention then runs over the whole 1024 tokens for
// 8/2 = 4 heads: 4·4·4·1024²·64 / 2 = 2^31 FLOPs, what the ring's two steps do together.
TEST(ContextParallelEvents, AllToAllTurnsSequenceShardsIntoHeadShards) {
  const Built built = build(with_comm_type(gpt2_job(2, 2, 1, 2), strategy::CpCommType::a2a));
  const auto& forward = built.chunk().forward;
  const int inputs = layer0(forward, "cp qkv all_to_all").front();
  const auto steps = layer0(forward, "attention");
  const int output = layer0(forward, "cp o all_to_all").front();
  ASSERT_EQ(steps.size(), 1U);
  EXPECT_EQ(forward[static_cast<size_t>(inputs)].stream, StreamKind::cp_comm);
  EXPECT_EQ(key_of(built, forward, inputs), "all_to_all bytes=6291456 group=2 intra");
  EXPECT_EQ(key_of(built, forward, output), "all_to_all bytes=2097152 group=2 intra");
  EXPECT_EQ(key_of(built, forward, steps[0]),
            "flash_attention_fwd b=4 heads=4 kv_heads=4 sq=1024 skv=1024 d=64 causal=1 bf16");
  EXPECT_DOUBLE_EQ(built.event(forward[static_cast<size_t>(steps[0])]).flops, 2147483648.0);
  EXPECT_EQ(forward[static_cast<size_t>(steps[0])].waits_for, inputs);
  EXPECT_EQ(output, steps[0] + 1);
  // The output projection waits for the output's all-to-all.
  EXPECT_EQ(forward[static_cast<size_t>(output + 1)].label, "attention out");
  EXPECT_EQ(forward[static_cast<size_t>(output + 1)].waits_for, output);
  EXPECT_EQ(count(forward, "cp kv exchange"), 0);

  const auto& backward = built.chunk().backward;
  const int output_gradient = layer0(backward, "cp do all_to_all").front();
  const int input_gradients = layer0(backward, "cp dqkv all_to_all").front();
  EXPECT_EQ(key_of(built, backward, output_gradient), "all_to_all bytes=2097152 group=2 intra");
  EXPECT_EQ(key_of(built, backward, input_gradients), "all_to_all bytes=6291456 group=2 intra");
  const int step = layer0(backward, "attention").front();
  EXPECT_EQ(backward[static_cast<size_t>(step)].waits_for, output_gradient);
  EXPECT_EQ(input_gradients, step + 1);
}

// cp_comm_type a2a+p2p, tp 1, cp 4 as all-to-all groups of 2 adjacent context ranks (ranks {0, 1}
// and {2, 3}) and rings of 2 across them ({0, 2}, {1, 3}); b = 4, s = 1024, 16 heads of d = 64.
// Each rank sends its s/cp = 256 tokens of Q, K and V for all 16 heads: 4·256·(1024 + 2·1024)·2 =
// 6,291,456 bytes to its group of 2, and of the output 4·256·1024·2 = 2,097,152. The ring then
// holds the group's 512 tokens for 16/2 = 8 heads: the local causal block 512 x 512, then half a
// block (256 queries x 512 keys), exchanging K and V of 2·4·512·8·64·2 = 4,194,304 bytes with the
// other group's rank.
TEST(ContextParallelEvents, HierarchicalExchangeRunsTheRingOnTheAllToAllsHeadShards) {
  auto job = with_comm_type(gpt2_job(1, 4, 1, 2), strategy::CpCommType::a2a_p2p);
  job.strategy.cp_a2a_size = 2;
  const Built built = build(job);
  const auto& forward = built.chunk().forward;
  const int inputs = layer0(forward, "cp qkv all_to_all").front();
  const auto steps = layer0(forward, "attention");
  const auto exchanges = layer0(forward, "cp kv exchange");
  const int output = layer0(forward, "cp o all_to_all").front();
  ASSERT_EQ(steps.size(), 2U);
  ASSERT_EQ(exchanges.size(), 1U);
  EXPECT_EQ(key_of(built, forward, inputs), "all_to_all bytes=6291456 group=2 intra");
  EXPECT_EQ(key_of(built, forward, output), "all_to_all bytes=2097152 group=2 intra");
  EXPECT_EQ(key_of(built, forward, exchanges[0]), "ring_exchange bytes=4194304 group=2 intra");
  EXPECT_EQ(key_of(built, forward, steps[0]),
            "flash_attention_fwd b=4 heads=8 kv_heads=8 sq=512 skv=512 d=64 causal=1 bf16");
  EXPECT_EQ(key_of(built, forward, steps[1]),
            "flash_attention_fwd b=4 heads=8 kv_heads=8 sq=256 skv=512 d=64 causal=0 bf16");
  EXPECT_EQ(forward[static_cast<size_t>(steps[0])].waits_for, inputs);
  EXPECT_EQ(forward[static_cast<size_t>(steps[1])].waits_for, exchanges[0]);
  EXPECT_EQ(forward[static_cast<size_t>(output + 1)].waits_for, output);

  const auto& backward = built.chunk().backward;
  const int output_gradient = layer0(backward, "cp do all_to_all").front();
  const int input_gradients = layer0(backward, "cp dqkv all_to_all").front();
  EXPECT_EQ(backward[static_cast<size_t>(layer0(backward, "attention").front())].waits_for, output_gradient);
  EXPECT_EQ(key_of(built, backward, input_gradients), "all_to_all bytes=6291456 group=2 intra");
  EXPECT_EQ(backward[static_cast<size_t>(input_gradients + 1)].waits_for, input_gradients);
}

// cp_comm_type allgather, tp 2, cp 2: K and V gathered whole, each 4·1024·512·2 = 4,194,304 bytes.
// CP rank 0 holds chunks 0 and 3 of 2·cp = 4 chunks of 256 tokens: chunk 0 against itself
// (4·4·8·256²·64 / 2 = 268,435,456 FLOPs), chunk 3 against all 1024 keys under the bottom-right
// causal mask (4·4·8·64·(256·1024 − 256²/2) = 8192·229,376 = 1,879,048,192): 2^31 together.
TEST(ContextParallelEvents, AllGatherRunsTheLocalChunksAgainstGatheredKeys) {
  const Built built = build(with_comm_type(gpt2_job(2, 2, 1, 2), strategy::CpCommType::allgather));
  const auto& forward = built.chunk().forward;
  const auto gathers = layer0(forward, "cp kv all_gather");
  const auto steps = layer0(forward, "attention");
  ASSERT_EQ(gathers.size(), 2U);
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_EQ(key_of(built, forward, gathers[0]), "all_gather bytes=4194304 group=2 intra");
  EXPECT_EQ(key_of(built, forward, steps[0]),
            "flash_attention_fwd b=4 heads=8 kv_heads=8 sq=256 skv=256 d=64 causal=1 bf16");
  EXPECT_EQ(key_of(built, forward, steps[1]),
            "flash_attention_fwd b=4 heads=8 kv_heads=8 sq=256 skv=1024 d=64 causal=1 bf16");
  EXPECT_DOUBLE_EQ(built.event(forward[static_cast<size_t>(steps[0])]).flops, 268435456.0);
  EXPECT_DOUBLE_EQ(built.event(forward[static_cast<size_t>(steps[1])]).flops, 1879048192.0);
  EXPECT_EQ(forward[static_cast<size_t>(steps[0])].waits_for, gathers[1]);

  // Backward gathers K and V again and reduce-scatters dK and dV (the whole 1024 tokens each).
  const auto& backward = built.chunk().backward;
  EXPECT_EQ(layer0(backward, "cp kv all_gather").size(), 2U);
  const auto scatters = layer0(backward, "cp dkv reduce_scatter");
  ASSERT_EQ(scatters.size(), 2U);
  EXPECT_EQ(key_of(built, backward, scatters[1]), "reduce_scatter bytes=4194304 group=2 intra");
  auto next = static_cast<size_t>(scatters[1] + 1);
  while (backward[next].stream != StreamKind::compute) {
    ++next;
  }
  EXPECT_EQ(backward[next].label, "qkv");
  EXPECT_EQ(backward[next].waits_for, scatters[1]);
}

}  // namespace distsim::events
