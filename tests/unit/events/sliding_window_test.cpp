// Sliding-window attention: the attention event's work over a causal band, its key, and which
// layers of a model with alternating windows carry it.
#include <gtest/gtest.h>

#include <string>

#include "built_rank_work.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "core/input_error.hpp"
#include "events/event_factory.hpp"
#include "events/event_key.hpp"

namespace distsim::events {

// s = 8, w = 3: queries 0, 1, 2 see 1, 2, 3 keys and queries 3..7 see 3 each: 1 + 2 + 3 + 5·3 = 21
// pairs (formula: s·w − w(w−1)/2 = 24 − 3 = 21). One sequence, 2 heads of d = 16: forward
// 4·2·21·16 = 2688 FLOPs, backward 2.5× = 6720. The full causal count would be 8²/2 = 32 pairs.
TEST(SlidingWindowAttention, CountsTheQueryKeyPairsInsideTheBand) {
  const EventFactory factory(Dtype::bf16);
  const Event forward = factory.attention(false, 1, 2, 1, 8, 8, 16, true, 3);
  EXPECT_DOUBLE_EQ(forward.flops, 2688.0);
  EXPECT_DOUBLE_EQ(factory.attention(true, 1, 2, 1, 8, 8, 16, true, 3).flops, 6720.0);
  EXPECT_DOUBLE_EQ(factory.attention(false, 1, 2, 1, 8, 8, 16, true).flops, 4.0 * 2 * 32 * 16);
  // The band reads Q, K, V and writes O once, as the full kernel does: 2·(8·2·16) + 2·(8·1·16)
  // elements of 2 bytes = 1536 bytes.
  EXPECT_DOUBLE_EQ(forward.bytes_moved, 1536.0);
}

TEST(SlidingWindowAttention, KeysTheWindowAndReadsItBack) {
  const EventFactory factory(Dtype::bf16);
  const std::string key = factory.attention(false, 1, 2, 1, 8, 8, 16, true, 3).key();
  EXPECT_EQ(key, "flash_attention_fwd b=1 heads=2 kv_heads=1 sq=8 skv=8 d=16 causal=1 window=3 bf16");
  EXPECT_EQ(parse_event_key(key).key(), key);
  EXPECT_EQ(parse_event_key(key).dim("window"), 3);
  EXPECT_EQ(parse_event_key(key).dim_or("window", 0), 3);
}

// A window of at least the sequence leaves every causal key in view: the event is the full one.
TEST(SlidingWindowAttention, AWindowAsLongAsTheSequenceIsFullAttention) {
  const EventFactory factory(Dtype::bf16);
  EXPECT_EQ(factory.attention(false, 1, 2, 1, 8, 8, 16, true, 8).key(),
            "flash_attention_fwd b=1 heads=2 kv_heads=1 sq=8 skv=8 d=16 causal=1 bf16");
  EXPECT_EQ(factory.attention(false, 1, 2, 1, 8, 8, 16, true, 8).flops,
            factory.attention(false, 1, 2, 1, 8, 8, 16, true).flops);
}

TEST(SlidingWindowAttention, RefusesAWindowOfZeroInAKey) {
  try {
    parse_event_key("flash_attention_fwd b=1 heads=2 kv_heads=1 sq=8 skv=8 d=16 causal=1 window=0 bf16");
    FAIL() << "window=0 was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "'window=0': operator 'flash_attention_fwd' needs window >= 1");
  }
}

// GPT-OSS 120B (s 4096, 64/8 heads of 64) on one H100 host with tp 8: 8 query and 1 KV head per
// rank. Layer 0 slides over 128 keys: 4096·128 − 128·127/2 = 516,160 pairs, forward FLOPs
// 4·8·516,160·64 = 1,057,095,680; layer 1 attends to the whole causal prefix.
TEST(SlidingWindowAttention, GptOssSlidesOnItsEvenLayers) {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt-oss-120b");
  job.model.num_layers = 2;
  job.cluster = catalog::find_cluster("dgx-h100");
  job.cluster.num_hosts = 1;
  job.strategy.tensor_parallel = 8;
  job.strategy.expert_parallel = 8;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 1;
  const Built built = build(job);
  const Event& sliding = built.find(built.chunk().forward, "attention", 0);
  const Event& full = built.find(built.chunk().forward, "attention", 1);
  EXPECT_EQ(sliding.key(), "flash_attention_fwd b=1 heads=8 kv_heads=1 sq=4096 skv=4096 d=64 causal=1 window=128 bf16");
  EXPECT_DOUBLE_EQ(sliding.flops, 1'057'095'680.0);
  EXPECT_EQ(full.key(), "flash_attention_fwd b=1 heads=8 kv_heads=1 sq=4096 skv=4096 d=64 causal=1 bf16");
  EXPECT_EQ(built.find(built.chunk().backward, "attention", 0).key(),
            "flash_attention_bwd b=1 heads=8 kv_heads=1 sq=4096 skv=4096 d=64 causal=1 window=128 bf16");
}

// Qwen2's max_window_layers (window_start_layer here): layers below it attend fully, the rest slide.
// Llama 3.1 8B cut to 3 layers with a 1024-key window from layer 2 on: layers 0 and 1 keep the
// full causal key, layer 2 carries window=1024 (8192 tokens, 32/8 heads of 128 on one rank).
TEST(SlidingWindowAttention, LayersBeforeTheStartLayerAttendFully) {
  strategy::JobSpec job;
  job.model = catalog::find_model("llama-3.1-8b");
  job.model.num_layers = 3;
  job.model.sliding_window = 1024;
  job.model.window_start_layer = 2;
  job.cluster = catalog::find_cluster("dgx-h100");
  job.cluster.num_hosts = 1;
  job.cluster.gpus_per_host = 1;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 1;
  const Built built = build(job);
  const std::string full = "flash_attention_fwd b=1 heads=32 kv_heads=8 sq=8192 skv=8192 d=128 causal=1 bf16";
  EXPECT_EQ(built.find(built.chunk().forward, "attention", 0).key(), full);
  EXPECT_EQ(built.find(built.chunk().forward, "attention", 1).key(), full);
  EXPECT_EQ(built.find(built.chunk().forward, "attention", 2).key(),
            "flash_attention_fwd b=1 heads=32 kv_heads=8 sq=8192 skv=8192 d=128 causal=1 window=1024 bf16");
}

}  // namespace distsim::events
