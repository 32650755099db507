#include <gtest/gtest.h>

#include "strategy/job_spec.hpp"
#include "validation_test_jobs.hpp"

namespace distsim::strategy {

namespace {

// A GPT-2 345M shape (24 layers, 1024 hidden, 16 heads) on 4 nodes x 4 GPUs, 2M2P4D.
JobSpec valid_job() {
  JobSpec job;
  job.model = gpt2_345m_shape();
  job.cluster.num_hosts = 4;
  job.cluster.gpus_per_host = 4;
  job.strategy.tensor_parallel = 2;
  job.strategy.pipeline_parallel = 2;
  job.strategy.data_parallel = 4;
  job.strategy.micro_batch_size = 4;
  job.strategy.global_batch_size = 64;
  return job;
}

}  // namespace

TEST(ValidateJob, AcceptsAValidJob) { EXPECT_EQ(error_of(valid_job()), ""); }

TEST(ValidateJob, RejectsAWrongGpuCount) {
  JobSpec job = valid_job();
  job.strategy.data_parallel = 2;
  EXPECT_EQ(error_of(job),
            "invalid job: strategy 2M2P2D uses 2 x 2 x 2 = 8 GPUs, but the cluster has 4 nodes x 4 GPUs = 16");
}

TEST(ValidateJob, RejectsTensorParallelNotDividingHeads) {
  JobSpec job = valid_job();
  job.strategy.tensor_parallel = 3;
  job.strategy.data_parallel = 1;
  job.strategy.pipeline_parallel = 1;
  job.cluster.num_hosts = 1;
  job.cluster.gpus_per_host = 3;
  job.strategy.global_batch_size = 4;
  EXPECT_EQ(error_of(job), "invalid job (3 problems):\n"
                           "  - tensor parallel size 3 does not divide num_attention_heads 16 of model 'gpt2-345m'\n"
                           "  - tensor parallel size 3 does not divide num_kv_heads 16 of model 'gpt2-345m'\n"
                           "  - tensor parallel size 3 does not divide ffn_hidden_size 4096 of model 'gpt2-345m'");
}

TEST(ValidateJob, RejectsMoreStagesThanLayers) {
  JobSpec job = valid_job();
  job.model.num_layers = 1;
  EXPECT_EQ(error_of(job), "invalid job: pipeline parallel size 2 exceeds the 1 layers of model 'gpt2-345m'");
}

TEST(ValidateJob, RejectsIndivisibleGlobalBatch) {
  JobSpec job = valid_job();
  job.strategy.global_batch_size = 40;
  EXPECT_EQ(error_of(job),
            "invalid job: global batch size 40 is not divisible by micro-batch size x data parallel size = "
            "4 x 4 = 16");
}

TEST(ValidateJob, RejectsNonPositiveSizes) {
  JobSpec job = valid_job();
  job.strategy.micro_batch_size = 0;
  EXPECT_EQ(error_of(job), "invalid job: micro-batch size must be positive, got 0");
  job = valid_job();
  job.model.hidden_size = -5;
  EXPECT_NE(error_of(job).find("model 'gpt2-345m': hidden_size must be positive, got -5"), std::string::npos);
}

TEST(ValidateJob, RejectsADomainOfNoHosts) {
  JobSpec job = valid_job();
  job.cluster.hosts_per_domain = 0;
  EXPECT_EQ(error_of(job), "invalid job: hosts per scale-up domain must be positive, got 0");
}

JobSpec interleaved_job() {
  // valid_job has m = 64 / (4 x 4) = 4 micro-batches over p = 2 stages and 24 layers.
  JobSpec job = valid_job();
  job.strategy.schedule = "interleaved";
  job.strategy.virtual_stages = 2;
  return job;
}

TEST(ValidateJob, AcceptsInterleavingThatMegatronAccepts) { EXPECT_EQ(error_of(interleaved_job()), ""); }

TEST(ValidateJob, RejectsInterleavingWithOneChunk) {
  JobSpec job = interleaved_job();
  job.strategy.virtual_stages = 1;
  EXPECT_EQ(error_of(job),
            "invalid job: schedule 'interleaved' needs virtual_stages (model chunks per pipeline stage) of at "
            "least 2, got 1");
}

TEST(ValidateJob, RejectsInterleavingWithOneStage) {
  JobSpec job = interleaved_job();
  job.strategy.pipeline_parallel = 1;
  job.strategy.data_parallel = 8;
  job.strategy.global_batch_size = 32;
  EXPECT_EQ(error_of(job), "invalid job: schedule 'interleaved' needs a pipeline parallel size of at least 2, got 1");
}

TEST(ValidateJob, RejectsInterleavingWithPartialMicrobatchGroups) {
  // 48 / (4 x 4) = 3 micro-batches on 2 stages (Megatron-LM asserts the same).
  JobSpec job = interleaved_job();
  job.strategy.global_batch_size = 48;
  EXPECT_EQ(error_of(job),
            "invalid job: schedule 'interleaved' needs the number of micro-batches 3 to be a multiple of the "
            "pipeline parallel size 2");
}

TEST(ValidateJob, RejectsInterleavingWithUnequalChunks) {
  // 24 layers cannot be cut into 2 x 5 = 10 equal chunks.
  JobSpec job = interleaved_job();
  job.strategy.virtual_stages = 5;
  EXPECT_EQ(error_of(job),
            "invalid job: schedule 'interleaved' splits the 24 layers of model 'gpt2-345m' into pipeline x virtual "
            "stages = 2 x 5 = 10 equal chunks, but 10 does not divide 24");
}

TEST(ValidateJob, RejectsInterleavingEncoderDecoderModels) {
  JobSpec job = interleaved_job();
  job.model.architecture = model::Architecture::encoder_decoder;
  job.model.num_layers = 12;
  job.model.decoder_num_layers = 12;
  EXPECT_EQ(error_of(job),
            "invalid job: schedule 'interleaved' does not support the encoder-decoder model 'gpt2-345m' (neither "
            "does Megatron-LM)");
}

TEST(ValidateJob, RejectsVirtualStagesWithoutInterleaving) {
  JobSpec job = valid_job();
  job.strategy.virtual_stages = 2;
  EXPECT_EQ(error_of(job),
            "invalid job: virtual_stages 2 needs schedule 'interleaved', 'zbv', 'dualpipe' or 'dualpipev', got '1f1b'");
  job.strategy.virtual_stages = 0;
  EXPECT_EQ(error_of(job), "invalid job: virtual_stages must be positive, got 0");
}

TEST(ValidateJob, RejectsSequenceParallelismThatCannotShardTheSequence) {
  JobSpec job = valid_job();
  job.strategy.sequence_parallel = true;
  job.model.seq_length = 1023;
  EXPECT_EQ(error_of(job),
            "invalid job: sequence parallelism needs seq_length 1023 of model 'gpt2-345m' to be divisible by the "
            "tensor parallel size 2");
}

TEST(ValidateJob, AcceptsSequenceParallelismWithoutTensorParallelism) {
  // Megatron-LM switches sequence parallelism off when tp = 1 (arguments.py); so does distsim.
  JobSpec job = valid_job();
  job.strategy.sequence_parallel = true;
  job.strategy.tensor_parallel = 1;
  job.strategy.data_parallel = 8;
  job.model.seq_length = 1023;
  EXPECT_EQ(error_of(job), "");
}

}  // namespace distsim::strategy

namespace distsim::strategy {

// An MoE model with a rule broken and tensor parallelism without sequence parallelism: both
// problems are listed, the model's rule under its moe.* field.
TEST(JobValidation, RefusesAnMoeModelWithItsBrokenRules) {
  JobSpec job = valid_job();
  job.model.moe = {.num_experts = 8, .top_k = 9, .expert_ffn_hidden_size = 1024};
  EXPECT_EQ(error_of(job),
            "invalid job (2 problems):\n"
            "  - model 'gpt2-345m': moe.top_k 9 must be between 1 and num_experts 8\n"
            "  - tensor parallel size 2 with model 'gpt2-345m''s experts needs sequence parallelism "
            "(--sequence-parallel, or sequence_parallel: true in a job file), as Megatron-Core requires");
}

// Expert parallel 3 does not divide 8 experts nor the 2 x 4 = 8 ranks of a stage.
TEST(JobValidation, ExpertParallelSizeMustDivideExpertsAndStage) {
  JobSpec job = valid_job();
  job.model.moe = {.num_experts = 8, .top_k = 2, .expert_ffn_hidden_size = 1024};
  job.strategy.sequence_parallel = true;
  job.strategy.expert_parallel = 3;
  EXPECT_EQ(error_of(job),
            "invalid job (2 problems):\n"
            "  - ep 3: expert parallel size must divide the 8 routed experts of model 'gpt2-345m'; valid sizes: 1, 2, "
            "4, 8\n"
            "  - ep 3, etp 1: expert tensor parallel x expert parallel = 3 must divide the 8 ranks of a pipeline stage "
            "(tp x cp x dp); valid products: 1, 2, 4, 8");
  job.strategy.expert_parallel = 8;
  EXPECT_EQ(error_of(job), "");
}

TEST(JobValidation, ADenseModelHasNoUnsimulatedFeatures) {
  EXPECT_TRUE(unsimulated_features(valid_job().model).empty());
}

}  // namespace distsim::strategy
