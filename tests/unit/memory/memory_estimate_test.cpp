#include "memory/memory_estimate.hpp"

#include <gtest/gtest.h>

#include "catalog/builtin_models.hpp"
#include "memory/activation_memory.hpp"

namespace distsim::memory {

namespace {

constexpr std::int64_t gib = std::int64_t{1} << 30;

//! GPT-2 345M on t × 4 stages, micro-batch 1, eight micro-batches, 1F1B, bf16.
strategy::JobSpec gpt2_job(int tp = 1) {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.cluster.gpu.name = "test-gpu";
  job.cluster.gpu.memory_gb = 40;
  job.strategy.tensor_parallel = tp;
  job.strategy.pipeline_parallel = 4;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 8;
  job.strategy.schedule = "1f1b";
  return job;
}

}  // namespace

// One [s, b, h] bf16 tensor is 1024 · 1024 · 2 = 2,097,152 bytes; two buffers per direction,
// two directions per boundary: the end stages have one boundary (4 buffers, 8,388,608), the
// middle ones two (16,777,216); SP shards the tensor over t = 2.
TEST(EstimateMemory, PipelineBuffersPerBoundary) {
  const auto estimate = estimate_memory(gpt2_job());
  EXPECT_EQ(estimate.stages[0].pipeline_buffers, 8'388'608);
  EXPECT_EQ(estimate.stages[1].pipeline_buffers, 16'777'216);
  EXPECT_EQ(estimate.stages[3].pipeline_buffers, 8'388'608);
  auto sequence_parallel = gpt2_job(2);
  sequence_parallel.strategy.sequence_parallel = true;
  EXPECT_EQ(estimate_memory(sequence_parallel).stages[0].pipeline_buffers, 4'194'304);
}

// Interleaving wraps the pipeline around, so stage 0 also talks to stage 3: 8 buffers.
TEST(EstimateMemory, InterleavingGivesEveryStageTwoNeighbours) {
  auto job = gpt2_job();
  job.strategy.schedule = "interleaved";
  job.strategy.virtual_stages = 2;
  EXPECT_EQ(estimate_memory(job).stages[0].pipeline_buffers, 16'777'216);
}

// The V (zbv, two chunks per stage): stage 0 holds layers 0-2 and 21-23, the embedding and the
// LM head, whose tied table is the embedding's own (no copy): the 1F1B stage 0's 128,137,216
// (AddsUpEveryComponent) plus the final norm's 2048. Stage 3 holds layers 9-14 and nothing else:
// 6 · 12,596,224 = 75,577,344. Both exchange tensors on two sides: 16,777,216 of buffers. At
// p = 4 micro-batches in flight (1F1B's count), stage 0 keeps per micro-batch 6 layers
// (6 · 34 · 2^20 = 213,909,504), the embedding's 1,056,768 and the head's 210,239,488 (stage 3's
// 424,148,992 in the 1F1B test below less its layers): 4 · 425,205,760 = 1,700,823,040;
// stage 3 4 · 213,909,504 = 855,638,016.
TEST(EstimateMemory, VPlacementGivesStageZeroBothEnds) {
  auto job = gpt2_job();
  job.strategy.schedule = "zbv";
  job.strategy.virtual_stages = 2;
  const auto estimate = estimate_memory(job);
  EXPECT_EQ(estimate.stages[0].parameters, 128'139'264);
  EXPECT_EQ(estimate.stages[3].parameters, 75'577'344);
  EXPECT_EQ(estimate.stages[0].pipeline_buffers, 16'777'216);
  EXPECT_EQ(estimate.stages[3].pipeline_buffers, 16'777'216);
  EXPECT_EQ(estimate.stages[0].microbatches_in_flight, 4);
  EXPECT_EQ(estimate.stages[0].activations, 1'700'823'040);
  EXPECT_EQ(estimate.stages[3].activations, 855'638'016);
}

// DualPipe (a copy of stage r and of stage 3 − r on rank r): rank 1 holds layers 6-11 and 12-17,
// 12 · 12,596,224 = 151,154,688 parameters, twice 1F1B's stage 1 (75,577,344); rank 0 holds the
// zbv stage 0's 128,139,264 above (layers 0-2 and 21-23, embedding, final norm, the tied head on
// the embedding's table) plus layers 3-5 and 18-20, 6 · 12,596,224 = 75,577,344: 203,716,608.
// The DualPipe README's PP + 1 = 5 stage activations, 2.5 micro-batches of rank 1's 12 layers:
// 2.5 · 12 · 34 · 2^20 = 1,069,547,520.
TEST(EstimateMemory, DualPipeHoldsTwoStagesPerRank) {
  auto job = gpt2_job();
  job.strategy.schedule = "dualpipe";
  job.strategy.virtual_stages = 2;
  const auto estimate = estimate_memory(job);
  EXPECT_EQ(estimate.stages[1].parameters, 151'154'688);
  EXPECT_EQ(estimate.stages[2].parameters, 151'154'688);
  EXPECT_EQ(estimate.stages[0].parameters, 203'716'608);
  EXPECT_EQ(estimate.stages[3].parameters, 203'716'608);
  EXPECT_EQ(estimate.stages[1].microbatches_in_flight, 2.5);
  EXPECT_EQ(estimate.stages[1].activations, 1'069'547'520);
}

TEST(EstimateMemory, OneStageHasNoPipelineBuffers) {
  auto job = gpt2_job();
  job.strategy.pipeline_parallel = 1;
  EXPECT_EQ(estimate_memory(job).stages[0].pipeline_buffers, 0);
}

// Stage 0 of GPT-2 345M, t 1, p 4: 6 · 12,596,224 + 52,559,872 = 128,137,216 parameters;
// bf16: 256,274,432 weights, 512,548,864 gradients, 1,537,646,592 optimizer states;
// activations 4 in flight · (6 · 34 · 2^20 + 1,056,768) = 859,865,088; buffers 8,388,608;
// overhead 2^30 + 0.05 · (859,865,088 + 8,388,608) = 1,073,741,824 + 43,412,685 (rounded).
// Total 4,291,878,093 — just under 4 GiB = 4,294,967,296.
TEST(EstimateMemory, AddsUpEveryComponent) {
  const auto estimate = estimate_memory(gpt2_job());
  const StageMemory& stage = estimate.stages[0];
  EXPECT_EQ(stage.parameters, 128'137'216);
  EXPECT_EQ(stage.microbatches_in_flight, 4);
  EXPECT_EQ(stage.weights, 256'274'432);
  EXPECT_EQ(stage.gradients, 512'548'864);
  EXPECT_EQ(stage.optimizer_states, 1'537'646'592);
  EXPECT_EQ(stage.activations, 859'865'088);
  EXPECT_EQ(stage.overhead, 1'117'154'509);
  EXPECT_EQ(stage.total(), 4'291'878'093);
  EXPECT_EQ(estimate.capacity, 40 * gib);
}

// Stage 3: 75,577,344 + 2048 + 51,511,296 = 127,090,688 parameters · 18 = 2,287,632,384;
// activations 424,148,992, buffers 8,388,608, overhead 2^30 + 21,626,880: 3,815,538,688.
// Stage 1: 37,788,672 · 2 parameters · 18 = 1,360,392,192; 3 · 213,909,504 = 641,728,512;
// buffers 16,777,216; overhead 2^30 + 32,925,286: 3,125,565,030.
// At 4 GiB everything fits; at 3.5 GiB (3,758,096,384) stages 0 and 3 do not.
TEST(EstimateMemory, PeakStageAndFit) {
  auto job = gpt2_job();
  job.cluster.gpu.memory_gb = 4;
  auto estimate = estimate_memory(job);
  EXPECT_EQ(estimate.stages[3].total(), 3'815'538'688);
  EXPECT_EQ(estimate.stages[1].total(), 3'125'565'030);
  EXPECT_EQ(estimate.peak().stage, 0);
  EXPECT_TRUE(estimate.fits());
  EXPECT_EQ(estimate.stages_over_capacity(), 0);
  job.cluster.gpu.memory_gb = 3.5;
  estimate = estimate_memory(job);
  EXPECT_FALSE(estimate.fits());
  EXPECT_EQ(estimate.stages_over_capacity(), 2);
}

// Distributed optimizer on stage 1 with t 2, d 4: 37,788,672 parameters · (6 + 12/4) = 340,098,048.
TEST(EstimateMemory, DistributedOptimizerShardsTheOptimizerStates) {
  auto job = gpt2_job(2);
  job.strategy.data_parallel = 4;
  job.strategy.global_batch_size = 32;
  job.strategy.distributed_optimizer = true;
  const StageMemory stage = estimate_memory(job).stages[1];
  EXPECT_EQ(stage.optimizer_states, 113'366'016);
  EXPECT_EQ(stage.weights + stage.gradients + stage.optimizer_states, 340'098'048);
}

// A published check: GPT-3 175B as Korthikanti et al. 2022 trained it (data/published_calibration.csv
// rows R044/R045): t 8, p 8, d 1, micro-batch 1, 64 micro-batches, sequence parallelism and selective
// recomputation, 1F1B. Megatron-LM's estimator (megatron/training/theoretical_memory_usage.py,
// compute_activation_memory, "Table 2 of 2205.05198") gives for the first stage
//   (s·b·h·(18 + 4f/h) · l + 8·s·b·p + s·b·h·p) / t
//   = (25,165,824 · 34 · 96 + 131,072 + 201,326,592) / 8 = 10,292,838,400 bytes (9816.0 MiB),
// and we hold p = 8 micro-batches of 12 layers plus the embedding extras: the same number.
TEST(EstimateMemory, Gpt3ActivationsMatchMegatronsEstimator) {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt3-175b");
  job.cluster.gpu.memory_gb = 80;
  job.strategy.tensor_parallel = 8;
  job.strategy.pipeline_parallel = 8;
  job.strategy.global_batch_size = 64;
  job.strategy.sequence_parallel = true;
  job.strategy.recompute = strategy::Recompute::selective;
  const StageMemory stage = estimate_memory(job).stages[0];
  EXPECT_EQ(stage.activations, 10'292'838'400);
  // Megatron's compute_weight_and_optimizer_memory: (l·(12h² + 4h) + 2h)/p + V·h, over t, · 18 =
  // (173,950,918,656/8 + 629,145,600)/8 · 18 = 50,339,273,472 bytes. We also count the linear
  // biases (9h a layer) and the 2048 · h position table: 2,799,937,536 parameters · 18 =
  // 50,398,875,648, 0.12 % more.
  const std::int64_t state = stage.weights + stage.gradients + stage.optimizer_states;
  EXPECT_EQ(state, 50'398'875'648);
  EXPECT_NEAR(static_cast<double>(state) / 50'339'273'472.0, 1.0, 0.002);
}

// Korthikanti et al.'s abstract: sequence parallelism with selective recomputation "reduces
// activation memory by 5x". Per GPT-3 layer at t 8 (a = 96, s = 2048, h = 12288, so
// 5·a·s/(h·t) = 10): tensor parallelism alone stores s·b·h·(10 + 24/8 + 10) = 23·sbh, the
// combination 34/8 = 4.25·sbh: 5.4 times less. sbh = 2048 · 12288 = 25,165,824.
TEST(EstimateMemory, Gpt3FiveTimesLessActivationMemory) {
  const auto model = catalog::find_model("gpt3-175b");
  strategy::Strategy baseline;
  baseline.tensor_parallel = 8;
  strategy::Strategy combined = baseline;
  combined.sequence_parallel = true;
  combined.recompute = strategy::Recompute::selective;
  const std::int64_t gpt3_sbh = 25'165'824;
  EXPECT_EQ(layer_activation_bytes(model, baseline, 0, AttentionKernel::unfused), 23 * gpt3_sbh);
  EXPECT_EQ(layer_activation_bytes(model, combined, 0, AttentionKernel::unfused), 17 * gpt3_sbh / 4);
}

}  // namespace distsim::memory

namespace distsim::memory {

// On a cluster of two GPU types each stage is held to its own GPU's memory: stages 0 and 1 on
// 40 GB GPUs fit, stages 2 and 3 on 1 GB GPUs do not (GPT-2 345M's quarter of the weights alone,
// 6 layers x 12.6M parameters x 2 bytes, is 0.14 GiB, and its Adam states 12 bytes a parameter).
TEST(EstimateMemory, EachStageAgainstItsGpusMemory) {
  strategy::JobSpec job = gpt2_job();
  cluster::GpuSpec small = job.cluster.gpu;
  small.name = "small-gpu";
  small.memory_gb = 1;
  job.cluster.host_groups = {{job.cluster.gpu, 2}, {small, 2}};
  job.cluster.num_hosts = 4;
  const auto estimate = estimate_memory(job);
  EXPECT_EQ(estimate.stages[1].capacity, 40 * gib);
  EXPECT_EQ(estimate.stages[1].gpu, "test-gpu");
  EXPECT_EQ(estimate.stages[2].capacity, 1 * gib);
  EXPECT_EQ(estimate.stages[2].gpu, "small-gpu");
  EXPECT_EQ(estimate.capacity, 1 * gib);
  EXPECT_TRUE(estimate.capacities_differ());
  EXPECT_FALSE(estimate.fits());
  EXPECT_EQ(estimate.stages_over_capacity(), 2);
  // The stage with least to spare is one on the small GPUs, the larger of the two, although
  // stage 0 (four micro-batches in flight and the embedding) needs the most.
  EXPECT_EQ(estimate.tightest().stage, estimate.stages[3].total() > estimate.stages[2].total() ? 3 : 2);
  EXPECT_EQ(estimate.peak().stage, 0);
}

}  // namespace distsim::memory
