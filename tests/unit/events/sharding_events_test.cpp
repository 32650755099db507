#include <gtest/gtest.h>

#include <algorithm>

#include "built_rank_work.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "events/job_events.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::events {

namespace {

// GPT-2 345M (24 layers, h 1024, vocab 50304, s 1024, learned positions, tied, LayerNorm with
// bias). Worked by hand:
//   layer: QKV 1024·3072 + 3072, projection 1024·1024 + 1024, fc1 1024·4096 + 4096,
//          fc2 4096·1024 + 1024, two LayerNorms 2·2·1024: 12,582,912 + 9,216 + 4,096 = 12,596,224
//   embedding: 50304·1024 + 1024·1024 = 51,511,296 + 1,048,576 = 52,559,872
//   head on the only stage: the final LayerNorm, 2·1024 = 2,048 (the tied table is the embedding's)
//   head on the last of two stages: 2,048 + the output copy of the table 51,511,296 = 51,513,344
//   whole model: 52,559,872 + 24·12,596,224 + 2,048 = 354,871,296
constexpr std::int64_t kLayer = 12'596'224;
constexpr std::int64_t kEmbedding = 52'559'872;

// On one DGX A100 node (8 GPUs), micro-batch 1, sharding zero3.
strategy::JobSpec zero3_job(int tp, int dp, int shard_group) {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.cluster = catalog::find_cluster("dgx-a100");
  job.cluster.num_hosts = 1;
  job.strategy.tensor_parallel = tp;
  job.strategy.data_parallel = dp;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = dp;
  job.strategy.sharding = strategy::Sharding::full;
  job.strategy.shard_group = shard_group;
  return job;
}

std::vector<int> steps_labelled(const std::vector<TaskTemplate>& list, std::string_view label) {
  std::vector<int> found;
  for (int i = 0; i < static_cast<int>(list.size()); ++i) {
    if (list[static_cast<size_t>(i)].label == label) {
      found.push_back(i);
    }
  }
  return found;
}

int first_compute_of_layer(const std::vector<TaskTemplate>& list, int layer) {
  for (int i = 0; i < static_cast<int>(list.size()); ++i) {
    const TaskTemplate& step = list[static_cast<size_t>(i)];
    if (step.layer == layer && step.stream == StreamKind::compute) {
      return i;
    }
  }
  return -1;
}

}  // namespace

// FSDP2 wraps each block, then the root (embedding, final norm, output): the only stage has the
// embedding, 24 layers and the head; the second of two stages (layers 12–23) has no embedding
// and its head carries the output copy of the tied table.
TEST(FsdpUnits, EmbeddingEachLayerAndHead) {
  const model::ModelSpec model = catalog::find_model("gpt2-345m");
  const auto whole = fsdp_units(model, {0, 24});
  ASSERT_EQ(whole.size(), 26U);
  EXPECT_TRUE(whole.front().embedding);
  EXPECT_EQ(whole.front().parameters, kEmbedding);
  EXPECT_EQ(whole[1].layer, 0);
  EXPECT_EQ(whole[1].parameters, kLayer);
  EXPECT_EQ(whole.back().layer, -1);
  EXPECT_EQ(whole.back().parameters, 2'048);
  const auto second = fsdp_units(model, {12, 12});
  ASSERT_EQ(second.size(), 13U);
  EXPECT_EQ(second.front().layer, 12);
  EXPECT_EQ(second.back().parameters, 51'513'344);
}

// A layer unit of a model with latent attention records the down-projections and latent norms
// that every tensor-parallel rank holds whole. Toy (h 8, 2 heads, q_lora 4, kv_lora 3, nope 2,
// rope 1, v 2, SwiGLU FFN 16, RMSNorm, no biases): attention 151 (of which W_DQ 32, q norm 4,
// W_DKV 32, kv norm 3 = 71 whole), MLP 3·8·16 = 384, two norms 16: 551; at tp 2 a rank gathers
// 71 + (551 − 71)/2 = 311.
TEST(FsdpUnits, LatentDownProjectionsAreGatheredWhole) {
  model::ModelSpec model;
  model.num_layers = 2;
  model.hidden_size = 8;
  model.num_attention_heads = 2;
  model.num_kv_heads = 2;
  model.ffn_hidden_size = 16;
  model.ffn_type = model::FfnType::swiglu;
  model.norm = model::NormType::rmsnorm;
  model.position_embedding = model::PositionEmbedding::rope;
  model.vocab_size = 10;
  model.seq_length = 32;
  model.mla = {.q_lora_rank = 4, .kv_lora_rank = 3, .qk_nope_head_dim = 2, .qk_rope_head_dim = 1, .v_head_dim = 2};
  const auto units = fsdp_units(model, {0, 2});
  ASSERT_EQ(units.size(), 4U);
  EXPECT_EQ(units[1].parameters, 551);
  EXPECT_EQ(units[1].duplicated, 71);
  EXPECT_EQ(units[1].rank_parameters(2), 311);
  EXPECT_EQ(units.front().rank_parameters(2), units.front().parameters / 2);
}

// tp 2, dp 4: each unit's all-gather carries the unit's parameters per tensor-parallel rank in
// bf16, P_u/2 · 2 bytes = 12,596,224 for a layer, over the 4 data-parallel ranks; its
// reduce-scatter the fp32 gradients, P_u/2 · 4 = 25,192,448 bytes. Every one of the 26 units is
// gathered once in forward and once in backward and reduced once; no bucket is reduced.
TEST(ShardingEvents, PerUnitAllGatherAndReduceScatterBytes) {
  const Built built = build(zero3_job(2, 4, 0));
  const ChunkWork& chunk = built.chunk();
  const auto forward_gathers = steps_labelled(chunk.forward, "fsdp parameter all_gather");
  const auto backward_gathers = steps_labelled(chunk.backward, "fsdp parameter all_gather");
  const auto scatters = steps_labelled(chunk.backward, "fsdp gradient reduce_scatter");
  ASSERT_EQ(forward_gathers.size(), 26U);
  EXPECT_EQ(backward_gathers.size(), 26U);
  ASSERT_EQ(scatters.size(), 26U);
  EXPECT_TRUE(steps_labelled(chunk.backward, "hsdp gradient all_reduce").empty());
  EXPECT_TRUE(chunk.gradient_buckets.empty());
  const TaskTemplate& layer0_gather = chunk.forward[static_cast<size_t>(forward_gathers[1])];
  EXPECT_EQ(layer0_gather.layer, 0);
  EXPECT_EQ(layer0_gather.stream, StreamKind::dp_comm);
  EXPECT_EQ(built.key(layer0_gather), "all_gather bytes=12596224 group=4 intra");
  // Backward runs in reverse: the first reduce-scatter is the head's, the second layer 23's.
  const TaskTemplate& layer23_scatter = chunk.backward[static_cast<size_t>(scatters[1])];
  EXPECT_EQ(layer23_scatter.layer, 23);
  EXPECT_EQ(layer23_scatter.stream, StreamKind::dp_reduce);
  EXPECT_EQ(built.key(layer23_scatter), "reduce_scatter bytes=25192448 group=4 intra");
}

// Prefetch: the all-gather of layer 1 is issued after the embedding's compute and before layer
// 0's first compute step, so it runs beside layer 0; layer 0 waits for its own all-gather.
TEST(ShardingEvents, NextUnitIsGatheredWhileTheCurrentOneRuns) {
  const Built built = build(zero3_job(1, 2, 0));
  const auto& forward = built.chunk().forward;
  const auto gathers = steps_labelled(forward, "fsdp parameter all_gather");
  const int embedding = steps_labelled(forward, "embedding").front();
  const int layer0 = first_compute_of_layer(forward, 0);
  EXPECT_LT(gathers[0], embedding);
  EXPECT_LT(gathers[1], embedding);
  EXPECT_GT(gathers[2], embedding);
  EXPECT_LT(gathers[2], layer0);
  EXPECT_EQ(forward[static_cast<size_t>(gathers[2])].layer, 1);
  EXPECT_EQ(forward[static_cast<size_t>(layer0)].waits_for_parameters, gathers[1]);
  EXPECT_EQ(forward[static_cast<size_t>(embedding)].waits_for_parameters, gathers[0]);
}

// HSDP, dp 4 in shard groups of 2, tp 1: a layer's reduce-scatter of 4 · 12,596,224 =
// 50,384,896 bytes runs over 2 ranks, then the all-reduce of the 1/2 shard, 25,192,448 bytes,
// over the 2 replicas, on the replica stream, after the reduce-scatter.
TEST(ShardingEvents, HsdpAllReducesTheShardAcrossReplicas) {
  const Built built = build(zero3_job(1, 4, 2));
  const auto& backward = built.chunk().backward;
  const auto scatters = steps_labelled(backward, "fsdp gradient reduce_scatter");
  const auto replicas = steps_labelled(backward, "hsdp gradient all_reduce");
  ASSERT_EQ(replicas.size(), 26U);
  const TaskTemplate& scatter = backward[static_cast<size_t>(scatters[1])];
  const TaskTemplate& replica = backward[static_cast<size_t>(replicas[1])];
  EXPECT_EQ(built.key(scatter), "reduce_scatter bytes=50384896 group=2 intra");
  EXPECT_EQ(built.key(replica), "all_reduce bytes=25192448 group=2 intra");
  EXPECT_EQ(replica.stream, StreamKind::dp_replica);
  EXPECT_EQ(replica.waits_for, scatters[1]);
}

// The optimizer updates its shard: ⌈354,871,296 / 4⌉ = 88,717,824 parameters with zero3 over dp 4
// (tp 1), the same as zero1 (the distributed optimizer); with HSDP groups of 2, 177,435,648.
TEST(ShardingEvents, OptimizerUpdatesTheShardOfItsGroup) {
  const auto updated = [](int shard_group, strategy::Sharding sharding) {
    strategy::JobSpec job = zero3_job(1, 4, shard_group);
    job.strategy.sharding = sharding;
    const Built built = build(job);
    return built.table.at(built.work.optimizer_step).dim("params");
  };
  EXPECT_EQ(updated(0, strategy::Sharding::full), 88'717'824);
  EXPECT_EQ(updated(0, strategy::Sharding::optimizer), 88'717'824);
  EXPECT_EQ(updated(2, strategy::Sharding::full), 177'435'648);
  EXPECT_EQ(updated(0, strategy::Sharding::none), 354'871'296);
}

// A shard group of one rank holds every parameter whole: zero3 on dp 1 gathers and reduces
// nothing, and its optimizer updates all 354,871,296 parameters.
TEST(ShardingEvents, OneRankGathersNothing) {
  const Built built = build(zero3_job(1, 1, 0));
  EXPECT_TRUE(steps_labelled(built.chunk().forward, "fsdp parameter all_gather").empty());
  EXPECT_TRUE(steps_labelled(built.chunk().backward, "fsdp gradient reduce_scatter").empty());
  EXPECT_EQ(built.table.at(built.work.optimizer_step).dim("params"), 354'871'296);
}

// zero2 keeps the weights whole and the gradients sharded: like zero3 it reduce-scatters each of
// the 26 units' fp32 gradients after the unit's backward, in every micro-batch (at tp 1 a layer's
// P_u · 4 = 50,384,896 bytes over the 4 data-parallel ranks), but gathers no parameters before a
// unit; its buckets reduce nothing and all-gather the updated bf16 parameters after the optimizer
// step, as zero1's do.
TEST(ShardingEvents, Zero2ReducesEachUnitAndGathersTheUpdatedParameters) {
  strategy::JobSpec job = zero3_job(1, 4, 0);
  job.strategy.sharding = strategy::Sharding::gradients;
  const Built built = build(job);
  const ChunkWork& chunk = built.chunk();
  EXPECT_TRUE(steps_labelled(chunk.forward, "fsdp parameter all_gather").empty());
  EXPECT_TRUE(steps_labelled(chunk.backward, "fsdp parameter all_gather").empty());
  const auto scatters = steps_labelled(chunk.backward, "fsdp gradient reduce_scatter");
  ASSERT_EQ(scatters.size(), 26U);
  const Event& layer = built.table.at(chunk.backward[static_cast<size_t>(scatters[1])].event);
  EXPECT_EQ(layer.collective, Collective::reduce_scatter);
  EXPECT_EQ(layer.bytes, kLayer * 4);
  EXPECT_EQ(layer.group_size, 4);
  const auto& buckets = chunk.gradient_buckets;
  ASSERT_FALSE(buckets.empty());
  for (const auto& bucket : buckets) {
    EXPECT_FALSE(bucket.reduction.has_value());
    ASSERT_TRUE(bucket.parameter_gather.has_value());
    EXPECT_EQ(built.table.at(*bucket.parameter_gather).collective, Collective::all_gather);
  }
}

}  // namespace distsim::events
