#include "events/job_events.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "built_rank_work.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::events {

namespace {

strategy::JobSpec gpt2_job(int tp, int pp, int dp) {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");  // 24 layers, h 1024, 16 heads, ffn 4096, s 1024
  job.cluster = catalog::find_cluster("dgx-a100");
  job.cluster.num_hosts = std::max(1, tp * pp * dp / 8);
  job.strategy.tensor_parallel = tp;
  job.strategy.pipeline_parallel = pp;
  job.strategy.data_parallel = dp;
  job.strategy.micro_batch_size = 4;
  job.strategy.global_batch_size = 4 * dp * 8;
  return job;
}

const Event& first_with_label(const Built& built, const std::vector<TaskTemplate>& list, std::string_view label) {
  const auto found = std::find_if(list.begin(), list.end(), [&](const auto& t) { return t.label == label; });
  return built.table.at(found->event);
}

}  // namespace

TEST(StageLayers, SplitsEvenlyWithTheRemainderFirst) {
  EXPECT_EQ(stage_layers(24, 4, 0).count, 6);
  EXPECT_EQ(stage_layers(10, 4, 0).count, 3);  // 3, 3, 2, 2
  EXPECT_EQ(stage_layers(10, 4, 1).first, 3);
  EXPECT_EQ(stage_layers(10, 4, 2).first, 6);
  EXPECT_EQ(stage_layers(10, 4, 3).count, 2);
}

TEST(PaddedVocab, RoundsUpToAMultipleOf128TimesTp) {
  EXPECT_EQ(padded_vocab(50257, 1), 50304);  // docs/reference/formats.md §5.1
  EXPECT_EQ(padded_vocab(50257, 8), 51200);
}

TEST(RankWork, SplitsGemmsAcrossTensorParallelRanks) {
  // tp = 2: QKV is (s·b) x h · h x 3h/2 = 4096 x 1024 · 1024 x 1536; FC1 h x 4h/2 = 2048.
  const Built built = build(gpt2_job(2, 1, 1), strategy::RankCoord{});
  EXPECT_EQ(first_with_label(built, built.chunk().forward, "qkv").key(), "gemm m=4096 n=1536 k=1024 bf16");
  EXPECT_EQ(first_with_label(built, built.chunk().forward, "fc1").key(), "gemm m=4096 n=2048 k=1024 bf16");
  EXPECT_EQ(first_with_label(built, built.chunk().forward, "fc2").key(), "gemm m=4096 n=1024 k=2048 bf16");
  // Attention: 16/2 = 8 heads per rank, causal.
  EXPECT_EQ(first_with_label(built, built.chunk().forward, "attention").key(),
            "flash_attention_fwd b=4 heads=8 kv_heads=8 sq=1024 skv=1024 d=64 causal=1 bf16");
}

TEST(RankWork, HasTwoTensorAllReducesPerLayerEachWay) {
  // One stage holds all 24 layers, the embedding (1 all-reduce) and the loss (3 small ones).
  const Built built = build(gpt2_job(2, 1, 1), strategy::RankCoord{});
  EXPECT_EQ(count(built.chunk().forward, "tp all_reduce"), 2 * 24 + 1 + 3);
  // Backward: QKV and FC1 input gradients per layer, plus the LM head's input gradient.
  EXPECT_EQ(count(built.chunk().backward, "tp all_reduce"), 2 * 24 + 1);
  const Event& reduce = first_with_label(built, built.chunk().forward, "tp all_reduce");
  EXPECT_EQ(reduce.bytes, 4096 * 1024 * 2);  // [s, b, h] in bf16
  EXPECT_TRUE(reduce.within_domain);
}

TEST(RankWork, HasNoTensorCollectivesWithoutTensorParallelism) {
  const Built built = build(gpt2_job(1, 1, 1), strategy::RankCoord{});
  EXPECT_EQ(count(built.chunk().forward, "tp all_reduce"), 0);
  EXPECT_EQ(count(built.chunk().backward, "tp all_reduce"), 0);
}

TEST(RankWork, PutsEmbeddingFirstAndHeadLast) {
  const auto job = gpt2_job(1, 4, 1);
  const Built first = build(job, strategy::RankCoord{});
  const Built middle = build(job, strategy::RankCoord{{strategy::ParallelDim::pp, 1}});
  const Built last = build(job, strategy::RankCoord{{strategy::ParallelDim::pp, 3}});
  EXPECT_EQ(count(first.chunk().forward, "embedding"), 1);
  EXPECT_EQ(count(first.chunk().forward, "lm head"), 0);
  EXPECT_EQ(count(middle.chunk().forward, "embedding") + count(middle.chunk().forward, "lm head"), 0);
  EXPECT_EQ(count(last.chunk().forward, "lm head"), 1);
  EXPECT_EQ(count(last.chunk().backward, "lm head"), 2);  // dgrad and wgrad
  EXPECT_EQ(middle.chunk().num_layers, 6);
  EXPECT_EQ(middle.chunk().first_layer, 6);
  // Transfers: none forward from the last stage, none backward from the first.
  EXPECT_TRUE(first.chunk().send_activation && !first.chunk().send_gradient);
  EXPECT_TRUE(last.chunk().send_gradient && !last.chunk().send_activation);
  EXPECT_EQ(first.table.at(*first.chunk().send_activation).bytes, 1024 * 4 * 1024 * 2);  // [s, b, h] bf16
  // GPT-2 ties its embedding: first and last stage reduce its gradient between them.
  EXPECT_TRUE(first.work.embedding_reduction && last.work.embedding_reduction);
  EXPECT_FALSE(middle.work.embedding_reduction);
}

// zbv places 2p = 8 chunks of 3 layers in a V: stage 0 holds layers 0-2 (with the embedding)
// and 21-23 (with the LM head), stage 3 layers 9-11 and 12-14. Stage 0's chunk 0 sends
// activations to stage 1, its chunk 1 ends the pipeline and sends gradients back to stage 1;
// stage 3 hands chunk 0's output to its chunk 1 without a transfer. The tied head reads the
// embedding's own table on stage 0: no second copy, no embedding all-reduce anywhere.
TEST(RankWork, VPlacementKeepsBothEndsOnStageZero) {
  auto job = gpt2_job(1, 4, 1);
  job.strategy.schedule = "zbv";
  job.strategy.virtual_stages = 2;
  const Built first = build(job, strategy::RankCoord{});
  const Built last = build(job, strategy::RankCoord{{strategy::ParallelDim::pp, 3}});
  ASSERT_EQ(first.work.chunks.size(), 2U);
  const ChunkWork& down = first.work.chunks[0];
  const ChunkWork& up = first.work.chunks[1];
  EXPECT_EQ(count(down.forward, "embedding"), 1);
  EXPECT_EQ(count(up.forward, "lm head"), 1);
  EXPECT_EQ(up.first_layer, 21);
  EXPECT_TRUE(down.send_activation && !down.send_gradient);
  EXPECT_TRUE(up.send_gradient && !up.send_activation);
  EXPECT_FALSE(first.work.embedding_reduction);
  EXPECT_FALSE(last.work.embedding_reduction);
  EXPECT_TRUE(last.work.chunks[0].send_gradient && !last.work.chunks[0].send_activation);
  EXPECT_TRUE(last.work.chunks[1].send_activation && !last.work.chunks[1].send_gradient);
  // 6 layers of 12,596,224 parameters, the table 50,304 x 1024 = 51,511,296 (the catalog's
  // vocabulary is already padded), the learned positions 1024 x 1024 = 1,048,576 and the final
  // norm's 2048, and no copy of the table.
  EXPECT_EQ(first.work.parameters, 6 * 12'596'224 + 51'511'296 + 1'048'576 + 2048);
}

TEST(RankWork, BucketsTheDataParallelGradients) {
  // dp = 2, one stage: the whole model's ~355M parameters in 40M-parameter fp32 buckets.
  const auto job = gpt2_job(1, 1, 2);
  const Built built = build(job, strategy::RankCoord{});
  const std::int64_t params = built.work.parameters;
  EXPECT_EQ(static_cast<std::int64_t>(built.chunk().gradient_buckets.size()), (params + 39'999'999) / 40'000'000);
  const Event& bucket = built.table.at(built.chunk().gradient_buckets.front().reduction.value());
  EXPECT_EQ(bucket.bytes, 40'000'000LL * 4);
  EXPECT_EQ(bucket.group_size, 2);
}

TEST(RankWork, UsesGroupedQueryAttentionAndSwiglu) {
  strategy::JobSpec job = gpt2_job(8, 1, 1);
  job.model = catalog::find_model("llama-3.1-8b");  // h 4096, 32 heads, 8 KV heads, d 128, ffn 14336
  job.strategy.micro_batch_size = 1;
  const Built built = build(job, strategy::RankCoord{});
  // QKV per rank: (32 + 2·8)·128 / 8 = 768 columns; FC1 gate+up: 2·14336/8 = 3584.
  EXPECT_EQ(first_with_label(built, built.chunk().forward, "qkv").dim("n"), 768);
  EXPECT_EQ(first_with_label(built, built.chunk().forward, "fc1").dim("n"), 3584);
  EXPECT_EQ(count(built.chunk().forward, "swiglu"), 32);
  EXPECT_EQ(count(built.chunk().forward, "rope"), 32);
}

TEST(RankWork, AddsCrossAttentionToEncoderDecoderLayers) {
  strategy::JobSpec job = gpt2_job(1, 1, 1);
  job.model = catalog::find_model("t5-large");
  const Built built = build(job, strategy::RankCoord{});
  EXPECT_EQ(count(built.chunk().forward, "cross attention"), job.model.decoder_num_layers);
  EXPECT_EQ(count(built.chunk().forward, "attention"), job.model.num_layers + job.model.decoder_num_layers);
}

}  // namespace distsim::events

namespace distsim::events {

namespace {

//! The TP collectives of one label in a list, e.g. every "tp all_gather".
std::vector<const Event*> events_with_label(const Built& built, const std::vector<TaskTemplate>& list,
                                            std::string_view label) {
  std::vector<const Event*> found;
  for (const auto& step : list) {
    if (step.label == label) {
      found.push_back(&built.table.at(step.event));
    }
  }
  return found;
}

int count_phase(const std::vector<TaskTemplate>& list, Phase phase, std::string_view label) {
  return static_cast<int>(
      std::count_if(list.begin(), list.end(), [&](const auto& t) { return t.phase == phase && t.label == label; }));
}

std::vector<std::string> keys(const Built& built, const std::vector<TaskTemplate>& list) {
  std::vector<std::string> result;
  for (const auto& step : list) {
    result.push_back(built.table.at(step.event).key() + " " + std::string(step.label));
  }
  return result;
}

// GPT-2 345M: 24 layers, h = 1024, s = 1024, micro-batch b = 4, so [s, b, h] in bf16 is
// 1024·4·1024·2 = 8,388,608 bytes; tied embeddings; LayerNorm with biases.
constexpr std::int64_t kSbh2 = 1024LL * 4 * 1024 * 2;
// One layer: QKV 1024·3072 + 3072, out 1024·1024 + 1024, FC1 1024·4096 + 4096, FC2 4096·1024 +
// 1024, two LayerNorms 2·2048: 12·1024² + 13·1024 = 12,596,224 parameters.
constexpr std::int64_t kLayerParams = 12'596'224;

strategy::JobSpec with_sequence_parallel(strategy::JobSpec job) {
  job.strategy.sequence_parallel = true;
  return job;
}

}  // namespace

TEST(SequenceParallelWork, GathersAndScattersInsteadOfAllReducing) {
  // tp = 2, one stage with all 24 layers. Forward, per layer: an all-gather before QKV and FC1
  // and a reduce-scatter after the attention output and FC2 (Korthikanti et al. §4.2.2); plus a
  // reduce-scatter after the embedding and an all-gather before the LM head. Only the loss's
  // three fp32 all-reduces stay.
  const Built built = build(with_sequence_parallel(gpt2_job(2, 1, 1)), strategy::RankCoord{});
  const auto& forward = built.chunk().forward;
  EXPECT_EQ(count(forward, "tp all_gather"), 2 * 24 + 1);
  EXPECT_EQ(count(forward, "tp reduce_scatter"), 2 * 24 + 1);
  EXPECT_EQ(count(forward, "tp all_reduce"), 3);
  // Each moves the whole [s, b, h] buffer as nccl-tests counts it: every rank holds a
  // s·b·h·2/t = 4,194,304-byte shard of it.
  for (const auto* label : {"tp all_gather", "tp reduce_scatter"}) {
    for (const Event* event : events_with_label(built, forward, label)) {
      EXPECT_EQ(event->bytes, kSbh2) << label;
      EXPECT_EQ(event->group_size, 2);
    }
  }
  EXPECT_EQ(first_with_label(built, forward, "tp all_gather").collective, Collective::all_gather);
  EXPECT_EQ(first_with_label(built, forward, "tp reduce_scatter").collective, Collective::reduce_scatter);
}

TEST(SequenceParallelWork, SwapsTheCollectivesInBackward) {
  // Backward, per layer: an all-gather of the output gradient before the attention output's and
  // FC2's dgrad; for QKV and FC1 an all-gather of the saved input shard (for wgrad) and a
  // reduce-scatter of the input gradient. Plus the LM head's pair and the embedding's gather.
  const Built built = build(with_sequence_parallel(gpt2_job(2, 1, 1)), strategy::RankCoord{});
  const auto& backward = built.chunk().backward;
  EXPECT_EQ(count(backward, "tp all_gather"), 4 * 24 + 1 + 1);
  EXPECT_EQ(count(backward, "tp reduce_scatter"), 2 * 24 + 1);
  EXPECT_EQ(count(backward, "tp all_reduce"), 0);
}

TEST(SequenceParallelWork, ShardsNormsAndDropoutButNotGemms) {
  // Norms and bias-dropout-add see s·b/t = 4096/2 = 2048 rows; GEMMs still see all 4096 tokens.
  const Built built = build(with_sequence_parallel(gpt2_job(2, 1, 1)), strategy::RankCoord{});
  const auto& forward = built.chunk().forward;
  EXPECT_EQ(first_with_label(built, forward, "norm").key(), "layernorm rows=2048 cols=1024 bf16");
  EXPECT_EQ(first_with_label(built, forward, "bias dropout add").dim("rows"), 2048);
  EXPECT_EQ(first_with_label(built, forward, "qkv").key(), "gemm m=4096 n=1536 k=1024 bf16");
  // QKV waits for the all-gather right before it.
  const auto qkv = std::find_if(forward.begin(), forward.end(), [](const auto& t) { return t.label == "qkv"; });
  ASSERT_GE(qkv->waits_for, 0);
  EXPECT_EQ(forward[static_cast<size_t>(qkv->waits_for)].label, "tp all_gather");
}

TEST(SequenceParallelWork, SendsSequenceShardsBetweenStages) {
  // Megatron-LM sends [s/t, b, h] between stages: 8,388,608 / 2 bytes.
  const Built built = build(with_sequence_parallel(gpt2_job(2, 2, 1)), strategy::RankCoord{});
  EXPECT_EQ(built.table.at(*built.chunk().send_activation).bytes, kSbh2 / 2);
}

strategy::JobSpec with_scatter_gather(strategy::JobSpec job) {
  job.strategy.p2p_scatter_gather = true;
  return job;
}

TEST(ScatterGatherTransfers, SendASliceAndGatherItOnTheReceivingStage) {
  // [NAR21] §4.1: each of the t = 2 tensor ranks sends 1/t of the 8,388,608-byte [s, b, h]
  // activation; the next stage all-gathers the whole tensor over its tensor group before its
  // first layer, and the previous stage does the same with the gradient before its backward.
  const strategy::JobSpec job = with_scatter_gather(gpt2_job(2, 2, 1));
  const Built first = build(job, strategy::RankCoord{});
  const Built last = build(job, strategy::RankCoord{{strategy::ParallelDim::pp, 1}});
  EXPECT_EQ(first.table.at(*first.chunk().send_activation).bytes, kSbh2 / 2);
  EXPECT_EQ(last.table.at(*last.chunk().send_gradient).bytes, kSbh2 / 2);

  const auto& received = last.chunk().forward.front();
  EXPECT_EQ(received.label, "tp all_gather");
  EXPECT_EQ(last.table.at(received.event).bytes, kSbh2);
  EXPECT_EQ(last.table.at(received.event).group_size, 2);
  EXPECT_EQ(last.chunk().forward[1].waits_for, 0);  // the first layer's norm waits for the gather

  const auto& gradient = first.chunk().backward.front();
  EXPECT_EQ(gradient.label, "tp all_gather");
  EXPECT_EQ(first.table.at(gradient.event).bytes, kSbh2);
  EXPECT_EQ(first.chunk().backward[1].waits_for, 0);
  // The pipeline's ends neither gather an activation nor a gradient.
  EXPECT_NE(first.chunk().forward.front().label, "tp all_gather");
  EXPECT_NE(last.chunk().backward.front().label, "tp all_gather");
}

TEST(ScatterGatherTransfers, ChangeNothingUnderSequenceParallelismOrWithoutTensorParallelism) {
  // Sequence-parallel tensors are already 1/t shards, and with t = 1 there is nothing to slice:
  // the work is the same as without the option.
  for (const auto& job : {with_sequence_parallel(gpt2_job(2, 2, 1)), gpt2_job(1, 2, 1)}) {
    const Built plain = build(job, strategy::RankCoord{{strategy::ParallelDim::pp, 1}});
    const Built sliced = build(with_scatter_gather(job), strategy::RankCoord{{strategy::ParallelDim::pp, 1}});
    EXPECT_EQ(keys(plain, plain.chunk().forward), keys(sliced, sliced.chunk().forward));
    EXPECT_EQ(plain.table.at(*plain.chunk().send_gradient).key(), sliced.table.at(*sliced.chunk().send_gradient).key());
  }
}

TEST(SequenceParallelWork, AllReducesTheShardedParametersGradientsOnce) {
  // Per layer two LayerNorms (weight and bias, 2h each) and two row-parallel biases (h each):
  // 6·1024 = 6144 parameters; plus the final norm's 2048: 24·6144 + 2048 = 149,504 fp32 gradients
  // = 598,016 bytes, all-reduced over the tensor group.
  const Built built = build(with_sequence_parallel(gpt2_job(2, 1, 1)), strategy::RankCoord{});
  ASSERT_TRUE(built.work.sequence_parallel_reduction);
  const Event& reduction = built.table.at(*built.work.sequence_parallel_reduction);
  EXPECT_EQ(reduction.collective, Collective::all_reduce);
  EXPECT_EQ(reduction.bytes, 598'016);
  EXPECT_EQ(reduction.group_size, 2);
}

TEST(SequenceParallelWork, IsANoOpWithoutTensorParallelism) {
  // Megatron-LM turns sequence parallelism off when tp = 1; so does distsim.
  const Built plain = build(gpt2_job(1, 2, 1), strategy::RankCoord{});
  const Built sharded = build(with_sequence_parallel(gpt2_job(1, 2, 1)), strategy::RankCoord{});
  EXPECT_EQ(keys(plain, plain.chunk().forward), keys(sharded, sharded.chunk().forward));
  EXPECT_EQ(keys(plain, plain.chunk().backward), keys(sharded, sharded.chunk().backward));
  EXPECT_FALSE(sharded.work.sequence_parallel_reduction);
}

TEST(Recomputation, FullRerunsEachLayerForwardBeforeItsBackward) {
  // tp = 2: each of the 24 layers reruns its forward, with its two all-reduces, in backward.
  strategy::JobSpec job = gpt2_job(2, 1, 1);
  job.strategy.recompute = strategy::Recompute::full;
  const Built built = build(job, strategy::RankCoord{});
  const auto& backward = built.chunk().backward;
  EXPECT_EQ(count_phase(backward, Phase::recompute, "attention"), 24);
  EXPECT_EQ(count_phase(backward, Phase::recompute, "tp all_reduce"), 2 * 24);
  EXPECT_EQ(count_phase(backward, Phase::backward, "attention"), 24);
  // The recomputed steps of layer 23 are exactly its forward steps, right before its backward.
  std::vector<std::string> forward_steps;
  for (const auto& step : built.chunk().forward) {
    if (step.layer == 23) {
      forward_steps.push_back(built.table.at(step.event).key() + " " + std::string(step.label));
    }
  }
  std::vector<std::string> recomputed;
  size_t end = 0;
  for (size_t i = 0; i < backward.size(); ++i) {
    if (backward[i].phase == Phase::recompute && backward[i].layer == 23) {
      recomputed.push_back(built.table.at(backward[i].event).key() + " " + std::string(backward[i].label));
      end = i + 1;
    }
  }
  EXPECT_EQ(recomputed, forward_steps);
  EXPECT_EQ(backward[end].phase, Phase::backward);
  EXPECT_EQ(backward[end].layer, 23);
}

TEST(Recomputation, SelectiveAddsNoWorkOverFlashAttention) {
  // FlashAttention never stores the s x s scores and its backward recomputes them, which is
  // what selective recomputation would rerun (Korthikanti et al. §5; Dao et al. 2022 §3.1).
  strategy::JobSpec job = gpt2_job(2, 1, 1);
  const Built plain = build(job, strategy::RankCoord{});
  job.strategy.recompute = strategy::Recompute::selective;
  const Built selective = build(job, strategy::RankCoord{});
  EXPECT_EQ(keys(plain, plain.chunk().backward), keys(selective, selective.chunk().backward));
}

TEST(DistributedOptimizer, ReduceScattersGradientsAndGathersParameters) {
  // dp = 2, one stage: the same 40M-parameter buckets, reduce-scattered in fp32 (160 MB each)
  // and gathered back in bf16 (80 MB each); Adam updates half of the parameters.
  strategy::JobSpec job = gpt2_job(1, 1, 2);
  job.strategy.distributed_optimizer = true;
  const Built built = build(job, strategy::RankCoord{});
  const auto& buckets = built.chunk().gradient_buckets;
  ASSERT_FALSE(buckets.empty());
  const Event& reduction = built.table.at(buckets.front().reduction.value());
  EXPECT_EQ(reduction.collective, Collective::reduce_scatter);
  EXPECT_EQ(reduction.bytes, 40'000'000LL * 4);
  ASSERT_TRUE(buckets.front().parameter_gather);
  const Event& gather = built.table.at(*buckets.front().parameter_gather);
  EXPECT_EQ(gather.collective, Collective::all_gather);
  EXPECT_EQ(gather.bytes, 40'000'000LL * 2);
  EXPECT_EQ(gather.group_size, 2);
  EXPECT_EQ(built.table.at(built.work.optimizer_step).dim("params"), (built.work.parameters + 1) / 2);
}

TEST(GradientBuckets, BecomeReadyWhenTheirEarliestLayerHasItsGradients) {
  // dp = 2, one stage. Buckets fill from the back: the final norm (2048), then layer 23, 22, ...
  // After layers 23..21 a bucket holds 2048 + 3·12,596,224 = 37,790,720 < 40M parameters, so
  // the first bucket ends inside layer 20 and is ready after layer 20's backward.
  const Built built = build(gpt2_job(1, 1, 2), strategy::RankCoord{});
  const auto& backward = built.chunk().backward;
  const int ready = built.chunk().gradient_buckets.front().ready_after;
  ASSERT_GE(ready, 0);
  EXPECT_EQ(backward[static_cast<size_t>(ready)].layer, 20);
  EXPECT_EQ(backward[static_cast<size_t>(ready) + 1].layer, 19);
  static_assert(2048 + 3 * kLayerParams < 40'000'000 && 2048 + 4 * kLayerParams > 40'000'000);
  // The last bucket holds the embedding, whose gradient is the very last step.
  EXPECT_EQ(built.chunk().gradient_buckets.back().ready_after, static_cast<int>(backward.size()) - 1);
}

TEST(InterleavedWork, GivesEachStageEveryPthChunk) {
  // p = 4, v = 3: 24 layers in 12 chunks of 2; stage 1 holds chunks 1, 5 and 9 of the pipeline,
  // i.e. layers 2-3, 10-11 and 18-19.
  strategy::JobSpec job = gpt2_job(1, 4, 1);
  job.strategy.virtual_stages = 3;
  job.strategy.schedule = "interleaved";
  const Built stage1 = build(job, strategy::RankCoord{{strategy::ParallelDim::pp, 1}});
  ASSERT_EQ(stage1.work.chunks.size(), 3u);
  EXPECT_EQ(stage1.work.chunks[0].first_layer, 2);
  EXPECT_EQ(stage1.work.chunks[1].first_layer, 10);
  EXPECT_EQ(stage1.work.chunks[2].first_layer, 18);
  for (const auto& chunk : stage1.work.chunks) {
    EXPECT_EQ(chunk.num_layers, 2);
    EXPECT_TRUE(chunk.send_activation && chunk.send_gradient);
  }
}

TEST(InterleavedWork, PutsEmbeddingOnTheFirstChunkAndHeadOnTheLast) {
  strategy::JobSpec job = gpt2_job(1, 4, 1);
  job.strategy.virtual_stages = 3;
  job.strategy.schedule = "interleaved";
  const Built first = build(job, strategy::RankCoord{});
  const Built last = build(job, strategy::RankCoord{{strategy::ParallelDim::pp, 3}});
  EXPECT_EQ(count(first.work.chunks[0].forward, "embedding"), 1);
  EXPECT_EQ(count(first.work.chunks[1].forward, "embedding"), 0);
  EXPECT_FALSE(first.work.chunks[0].send_gradient);
  EXPECT_TRUE(first.work.chunks[1].send_gradient);  // back to stage 3's chunk 0
  EXPECT_EQ(count(last.work.chunks[2].forward, "lm head"), 1);
  EXPECT_EQ(count(last.work.chunks[1].forward, "lm head"), 0);
  EXPECT_FALSE(last.work.chunks[2].send_activation);
  ASSERT_TRUE(last.work.chunks[0].send_activation);  // on to stage 0's chunk 1
  // 4 stages of 1 GPU on one 8-GPU node: the wrap-around link stays inside the node.
  EXPECT_TRUE(last.table.at(*last.work.chunks[0].send_activation).within_domain);
}

}  // namespace distsim::events
