#include <gtest/gtest.h>

#include "strategy/job_spec.hpp"
#include "strategy/rank_layout.hpp"
#include "validation_test_jobs.hpp"

namespace distsim::strategy {

namespace {

Strategy make(int tp, int cp, int pp, int dp) {
  Strategy s;
  s.tensor_parallel = tp;
  s.context_parallel = cp;
  s.pipeline_parallel = pp;
  s.data_parallel = dp;
  return s;
}

// GPT-2 345M (24 layers, 1024 hidden, 16 heads, s = 1024) on 4 nodes x 4 GPUs, 2M2C2P2D.
JobSpec context_parallel_job() {
  JobSpec job;
  job.model = gpt2_345m_shape();
  job.cluster.num_hosts = 4;
  job.cluster.gpus_per_host = 4;
  job.strategy = make(2, 2, 2, 2);
  job.strategy.micro_batch_size = 4;
  job.strategy.global_batch_size = 64;
  return job;
}

}  // namespace

// Megatron-Core's order tp-cp-dp-pp with t = c = d = 2, p = 1: rank = tp + 2·(cp + 2·dp).
// TP groups [0,1] [2,3] [4,5] [6,7]; CP groups [0,2] [1,3] [4,6] [5,7]; DP groups [0,4] [1,5]
// [2,6] [3,7]; DP-with-CP groups [0,2,4,6] [1,3,5,7].
TEST(ContextParallelLayout, PutsContextBetweenTensorAndData) {
  const RankLayout layout(parallel_dims(make(2, 2, 1, 2)), {8, 8});
  EXPECT_EQ(layout.world_size(), 8);
  EXPECT_EQ(layout.rank_of(RankCoord{{ParallelDim::cp, 1}}), 2);
  EXPECT_EQ(layout.rank_of(RankCoord{{ParallelDim::dp, 1}}), 4);
  EXPECT_EQ(layout.rank_of(RankCoord{{ParallelDim::tp, 1}, {ParallelDim::dp, 1}, {ParallelDim::cp, 1}}), 7);
  EXPECT_EQ(layout.coord_of(6), (RankCoord{{ParallelDim::dp, 1}, {ParallelDim::cp, 1}}));
  EXPECT_EQ(layout.coord_of(3), (RankCoord{{ParallelDim::tp, 1}, {ParallelDim::cp, 1}}));
  EXPECT_EQ(layout.coord_of(5), (RankCoord{{ParallelDim::tp, 1}, {ParallelDim::dp, 1}}));
}

// The same grid on 2 nodes of 4: node 0 holds ranks 0-3 (dp 0), node 1 ranks 4-7 (dp 1).
TEST(ContextParallelLayout, PlacesEachGroupOnItsNodes) {
  const RankLayout layout(parallel_dims(make(2, 2, 1, 2)), {4, 4});
  const GroupPlacement ring =
      layout.context_group(RankCoord{{ParallelDim::tp, 1}, {ParallelDim::dp, 1}});  // ranks 5, 7
  EXPECT_TRUE(ring.within_host());
  EXPECT_EQ(ring.ranks_per_host, 2);
  const GroupPlacement data = layout.data_group(RankCoord{{ParallelDim::cp, 1}});  // ranks 2, 6
  EXPECT_FALSE(data.within_host());
  EXPECT_EQ(data.ranks_per_host, 1);
  EXPECT_EQ(data.hosts, 2);
  const GroupPlacement gradients = layout.gradient_group(RankCoord{});  // ranks 0, 2, 4, 6
  EXPECT_FALSE(gradients.within_host());
  EXPECT_EQ(gradients.ranks_per_host, 2);
  EXPECT_EQ(gradients.hosts, 2);
  EXPECT_TRUE(layout.tensor_group(RankCoord{{ParallelDim::dp, 1}, {ParallelDim::cp, 1}}).within_host());  // ranks 6, 7
  EXPECT_TRUE(layout.is_uniform());
}

// t = 2, c = 2, p = 2 on nodes of 4: stage 1 starts at rank 2·2 = 4, on the next node, and the
// CP ring of a stage stays on its node; with one node of 8 the rings stay intra-node too.
TEST(ContextParallelLayout, LinksStagesAtTheSameContextRank) {
  const RankLayout layout(parallel_dims(make(2, 2, 2, 1)), {4, 4});
  EXPECT_EQ(layout.rank_of(RankCoord{{ParallelDim::tp, 1}, {ParallelDim::pp, 1}, {ParallelDim::cp, 1}}),
            7);  // 1 + 2·(1 + 2·(0 + 1·1))
  EXPECT_FALSE(
      layout.pipeline_link(RankCoord{{ParallelDim::tp, 1}, {ParallelDim::cp, 1}}).within_host());  // ranks 3 and 7
  EXPECT_TRUE(layout.context_group(RankCoord{{ParallelDim::pp, 1}}).within_host());                // ranks 4, 6
  EXPECT_EQ(layout.embedding_group(RankCoord{{ParallelDim::cp, 1}}).hosts, 2);                     // ranks 2 and 6
}

// A CP group of 4 with t = 2 on nodes of 4 GPUs spans two nodes: ranks 0, 2 | 4, 6.
TEST(ContextParallelLayout, ARingMaySpanNodes) {
  const RankLayout layout(parallel_dims(make(2, 4, 1, 1)), {4, 4});
  const GroupPlacement ring = layout.context_group(RankCoord{});
  EXPECT_FALSE(ring.within_host());
  EXPECT_EQ(ring.ranks_per_host, 2);
  EXPECT_EQ(ring.hosts, 2);
}

TEST(ContextParallelNotation, ParsesAndPrintsTheCPart) {
  const Strategy s = parse_strategy_notation("2M2C2P4D");
  EXPECT_EQ(s.tensor_parallel, 2);
  EXPECT_EQ(s.context_parallel, 2);
  EXPECT_EQ(s.pipeline_parallel, 2);
  EXPECT_EQ(s.data_parallel, 4);
  EXPECT_EQ(s.world_size(), 32);          // 2 x 2 x 2 x 4
  EXPECT_EQ(s.gradient_group_size(), 8);  // dp x cp
  EXPECT_EQ(s.notation(), "2M2C2P4D");
  EXPECT_EQ(parse_strategy_notation("8d4c").notation(), "1M4C1P8D");
  EXPECT_EQ(parse_strategy_notation("2M1C2P4D").notation(), "2M2P4D");  // cp 1 prints as before
  EXPECT_THROW(parse_strategy_notation("2C2C"), InputError);
}

TEST(ContextParallelValidation, AcceptsAValidJob) { EXPECT_EQ(error_of(context_parallel_job()), ""); }

TEST(ContextParallelValidation, CountsContextRanksInTheWorldSize) {
  JobSpec job = context_parallel_job();
  job.strategy.data_parallel = 4;
  EXPECT_EQ(error_of(job),
            "invalid job: strategy 2M2C2P4D uses 2 x 2 x 2 x 4 = 32 GPUs, but the cluster has 4 nodes x 4 GPUs = 16");
}

TEST(ContextParallelValidation, NeedsAPositiveSize) {
  JobSpec job = context_parallel_job();
  job.strategy.context_parallel = 0;
  EXPECT_EQ(error_of(job), "invalid job: context parallel size must be positive, got 0");
}

TEST(ContextParallelValidation, NeedsTwiceTheSizeToDivideTheSequence) {
  JobSpec job = context_parallel_job();
  job.model.seq_length = 1026;  // 1026 = 4 x 256 + 2
  EXPECT_EQ(error_of(job),
            "invalid job: context parallelism needs seq_length 1026 of model 'gpt2-345m' to be divisible by 2 x "
            "context parallel size = 2 x 2 = 4 (each rank holds 2 of the sequence's 4 load-balanced chunks)");
}

TEST(ContextParallelValidation, WithSequenceParallelismTheLocalSequenceMustSplitOverTheTensorGroup) {
  JobSpec job = context_parallel_job();
  job.strategy = make(4, 2, 2, 1);
  job.strategy.micro_batch_size = 4;
  job.strategy.global_batch_size = 64;
  job.strategy.sequence_parallel = true;
  job.model.seq_length = 1012;  // 1012 / 4 = 253 chunks of 4; each rank holds 1012 / 2 = 506 = 4 x 126 + 2
  EXPECT_EQ(error_of(job),
            "invalid job: sequence parallelism needs each context-parallel rank's seq_length 1012 / 2 = 506 of "
            "model 'gpt2-345m' to be divisible by the tensor parallel size 4");
}

TEST(ContextParallelValidation, NeedsFusedAttention) {
  JobSpec job = context_parallel_job();
  job.strategy.attention = Attention::unfused;
  EXPECT_EQ(error_of(job),
            "invalid job: context parallelism (cp 2) needs attention 'flash': it runs as ring attention inside the "
            "fused attention kernel (TransformerEngine), got 'unfused'");
}

TEST(ContextParallelValidation, RejectsEncoderDecoderModels) {
  JobSpec job = context_parallel_job();
  job.model.name = "t5";
  job.model.architecture = model::Architecture::encoder_decoder;
  job.model.num_layers = 12;
  job.model.decoder_num_layers = 12;
  EXPECT_EQ(error_of(job),
            "invalid job: context parallelism (cp 2) is modelled for decoder-only and encoder-only models, not for "
            "the encoder-decoder model 't5'");
}

TEST(ContextParallelValidation, RefusesASlidingWindow) {
  JobSpec job = context_parallel_job();
  job.model.sliding_window = 128;
  EXPECT_EQ(error_of(job),
            "invalid job: context parallelism (cp 2) is not modelled with the sliding-window attention of model "
            "'gpt2-345m' (window 128): a rank's chunk would need only the keys within the window of its "
            "neighbours, which the ring exchange does not model; use cp 1");
}

TEST(SlidingWindowValidation, RefusesTheUnfusedCoreAndNonDecoderModels) {
  JobSpec job = context_parallel_job();
  job.strategy = make(2, 1, 2, 4);
  job.strategy.micro_batch_size = 4;
  job.strategy.global_batch_size = 64;
  job.model.sliding_window = 128;
  EXPECT_EQ(error_of(job), "");
  job.strategy.attention = Attention::unfused;
  EXPECT_EQ(error_of(job),
            "invalid job: attention 'unfused' is not modelled with the sliding-window attention of model "
            "'gpt2-345m': its window runs in fused attention; use attention 'flash'");
  job.strategy.attention = Attention::flash;
  job.model.architecture = model::Architecture::encoder;
  EXPECT_EQ(error_of(job),
            "invalid job: model 'gpt2-345m': sliding_window 128 is modelled for decoder-only models (a causal "
            "band), not for this encoder-only model");
  job.model.architecture = model::Architecture::decoder;
  job.model.sliding_window = -1;
  EXPECT_EQ(error_of(job), "invalid job: model 'gpt2-345m': sliding_window must be 0 (none) or positive, got -1");
}

}  // namespace distsim::strategy
