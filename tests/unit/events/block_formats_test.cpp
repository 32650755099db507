#include <gtest/gtest.h>

#include <algorithm>

#include "built_rank_work.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "events/job_events.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::events {

namespace {

// GPT-2 345M (24 layers, h 1024, ffn 4096, LayerNorm) on two GB200s of one tray, tp = 2 with
// sequence parallelism, micro-batch 4 of 1024 tokens: every rank sees 4096 tokens, its sequence
// shard 2048 rows; FC1 and FC2 are 2048 wide per rank.
strategy::JobSpec nvfp4_job() {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.cluster = catalog::find_cluster("gb200-nvl72");
  job.cluster.num_hosts = 1;
  job.cluster.gpus_per_host = 2;
  job.cluster.hosts_per_domain = 1;
  job.strategy.tensor_parallel = 2;
  job.strategy.sequence_parallel = true;
  job.strategy.micro_batch_size = 4;
  job.strategy.global_batch_size = 4;
  job.strategy.gemm_format = strategy::GemmFormat::nvfp4;
  return job;
}

std::vector<std::string> layer_keys(const Built& built, const std::vector<TaskTemplate>& list, int layer) {
  std::vector<std::string> keys;
  for (const auto& step : list) {
    if (step.layer == layer) keys.push_back(built.table.at(step.event).key());
  }
  return keys;
}

bool has(const std::vector<std::string>& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

}  // namespace

// The MLP of layer 0 under nvfp4 (TE NVFP4BlockScaling): the norm runs in bf16 on the 2048-row
// shard and its output is quantized there (one read of 2048·1024 bf16, the row-wise and the
// column-wise nvfp4 copy written), the quantized shard is all-gathered: 4096·1024 elements at 0.5
// + 1/16 bytes = 2,359,296 bytes instead of bf16's 8,388,608; FC1 [4096×1024]·[1024×2048] runs in
// nvfp4; FC2's input [4096 × 2048] is quantized before FC2.
TEST(BlockFormats, Nvfp4QuantizesBeforeTheSequenceGatherAndRunsTheLinearGemmsInNvfp4) {
  const Built built = build(nvfp4_job());
  const auto keys = layer_keys(built, built.chunk().forward, 0);
  EXPECT_TRUE(has(keys, "layernorm rows=2048 cols=1024 bf16"));
  EXPECT_TRUE(has(keys, "nvfp4_quantize rows=2048 cols=1024 bf16"));
  EXPECT_TRUE(has(keys, "all_gather bytes=2359296 group=2 intra"));
  EXPECT_TRUE(has(keys, "gemm m=4096 n=2048 k=1024 nvfp4"));
  EXPECT_TRUE(has(keys, "nvfp4_quantize rows=4096 cols=2048 bf16"));
  EXPECT_TRUE(has(keys, "gemm m=4096 n=1024 k=2048 nvfp4"));
}

// The quantize kernel reads the bf16 tensor once and writes two nvfp4 copies: 4096·2048 ·
// (2 + 2 · 0.5625) = 26,214,400 bytes.
TEST(BlockFormats, TheQuantizeKernelWritesARowwiseAndAColumnwiseCopy) {
  const Built built = build(nvfp4_job());
  for (EventId id = 0; id < built.table.size(); ++id) {
    const Event& event = built.table.at(id);
    if (event.key() == "nvfp4_quantize rows=4096 cols=2048 bf16") {
      EXPECT_DOUBLE_EQ(event.bytes_moved, 26'214'400.0);
      return;
    }
  }
  ADD_FAILURE() << "no nvfp4_quantize of FC2's input";
}

// With --bf16-layers-at-start 1 --bf16-layers-at-end 2, layers 0, 22 and 23 run bf16 GEMMs and
// gather bf16 shards; layer 1 runs nvfp4.
TEST(BlockFormats, LayersKeptInBf16RunBf16Gemms) {
  strategy::JobSpec job = nvfp4_job();
  job.strategy.bf16_layers_at_start = 1;
  job.strategy.bf16_layers_at_end = 2;
  const Built built = build(job);
  for (const int layer : {0, 22, 23}) {
    const auto keys = layer_keys(built, built.chunk().forward, layer);
    EXPECT_TRUE(has(keys, "gemm m=4096 n=1024 k=2048 bf16")) << layer;
    EXPECT_TRUE(has(keys, "all_gather bytes=8388608 group=2 intra")) << layer;
    EXPECT_FALSE(has(keys, "nvfp4_quantize rows=4096 cols=2048 bf16")) << layer;
  }
  EXPECT_TRUE(has(layer_keys(built, built.chunk().forward, 1), "gemm m=4096 n=1024 k=2048 nvfp4"));
}

// mxfp8 runs the same GEMMs in mxfp8 with its own quantize kernel (1 + 1/32 bytes per element).
TEST(BlockFormats, Mxfp8HasItsOwnQuantizeKernel) {
  strategy::JobSpec job = nvfp4_job();
  job.strategy.gemm_format = strategy::GemmFormat::mxfp8;
  const Built built = build(job);
  const auto keys = layer_keys(built, built.chunk().forward, 0);
  EXPECT_TRUE(has(keys, "mxfp8_quantize rows=4096 cols=2048 bf16"));
  EXPECT_TRUE(has(keys, "gemm m=4096 n=1024 k=2048 mxfp8"));
  EXPECT_TRUE(has(keys, "all_gather bytes=4325376 group=2 intra"));  // 4096·1024 · 1.03125
}

}  // namespace distsim::events
