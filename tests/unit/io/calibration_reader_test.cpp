#include "io/calibration/calibration_reader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "catalog/builtin_gpus.hpp"
#include "io_test_support.hpp"

namespace distsim::io {

namespace {

using validation::CalibrationRun;

// Five runs in the layout of data/published_calibration.csv (a subset of its columns, in another
// order): a GPT on 2 nodes of A100 40GB with everything switched on, a Llama on half a DGX H100, a
// GPT-2 on one V100 of a DGX-2H, an A100 row that gives no memory size, and a Llama trained with
// TransformerEngine's FP8 on a DGX H100.
constexpr const char* kRuns =
    "id,source,model,arch,num_layers,hidden_size,num_attention_heads,num_kv_heads,ffn_hidden_size,"
    "ffn_activation,seq_len,vocab_size,moe,precision,gpu,gpu_mem_gb,gpus_per_node,num_gpus,tp,pp,dp,cp,ep,"
    "sequence_parallel,vpp,micro_batch,global_batch,recompute,optimizer_sharding,comm_overlap,iter_time_s\n"
    "G1,Paper A,GPT 1B,\"GPT (decoder, GeLU)\",24,2048,16,16,8192,gelu,2048,51200,,\"fp16 mixed (--fp16)\","
    "A100-SXM4,40,8,16,2,2,4,1,1,\"yes (--sequence-parallel)\",3 (--num-layers-per-virtual-pipeline-stage 4),"
    "2,64,\"full (uniform, every layer)\",distributed optimizer,overlap_grad_reduce,1.5\n"
    "L1,Paper B,Llama 8B,Llama 3 (GQA),32,4096,32,8,14336,swiglu,8192,128256,no,BF16,H100-SXM5,80,8,4,4,1,1,"
    "1,1,no,n/a,1,16,\"selective (attention core only)\",none (Adam replicated over DP),,2.25\n"
    "V1,Paper A,GPT-2 1B,GPT-2,24,1920,15,,,,1024,51200,,fp16 mixed,V100-SXM3,32,16,1,1,1,1,,,no,n/a,8,8,"
    "none (no checkpointing),none,,1.121\n"
    "A2,Paper C,GPT 1B,GPT,24,2048,16,16,8192,gelu,2048,51200,,fp32,A100,,8,8,8,1,1,1,1,no,1,1,8,,,,0.5\n"
    "F8,Paper D,Llama 8B,Llama 3 (GQA),32,4096,32,8,14336,swiglu,8192,128256,no,\"FP8 (hybrid, delayed scaling)\","
    "H100-SXM5,80,8,8,1,1,8,1,1,no,n/a,1,128,none,none,,3.1\n";

std::vector<CalibrationRun> read(const std::string& text) { return read_calibration_runs(text, "calib.csv"); }

//! Run L1 with each changed column holding its new value instead.
CalibrationRun run_of(const std::map<std::string, std::string>& changes) {
  const std::string text = kRuns;
  const std::size_t header_end = text.find('\n');
  const std::string header = text.substr(0, header_end);
  const std::size_t l1_start = text.find("L1,");
  const std::string l1 = text.substr(l1_start, text.find('\n', l1_start) - l1_start);
  // L1 has no quoted commas before its recompute field, so splitting on ',' finds its columns.
  std::vector<std::string> names;
  std::vector<std::string> fields;
  for (std::size_t pos = 0, next = 0; next != std::string::npos; pos = next + 1) {
    next = header.find(',', pos);
    names.push_back(header.substr(pos, next - pos));
  }
  for (std::size_t pos = 0, next = 0; next != std::string::npos; pos = next + 1) {
    next = l1.find(',', pos);
    fields.push_back(l1.substr(pos, next - pos));
  }
  std::string row;
  for (std::size_t i = 0; i < names.size(); ++i) {
    row += (i ? "," : "") + (changes.count(names[i]) ? changes.at(names[i]) : fields.at(i));
  }
  return read(header + "\n" + row + "\n").at(0);
}

//! The reason run L1 is excluded once each changed column holds its new value instead.
std::string exclusion_of(const std::map<std::string, std::string>& changes) {
  const CalibrationRun run = run_of(changes);
  EXPECT_FALSE(run.job.has_value());
  return run.excluded_because;
}

std::string exclusion_of(const std::string& column, const std::string& value) {
  return exclusion_of({{column, value}});
}

}  // namespace

TEST(CalibrationReader, KeepsTheIdSourceLineAndALabelOfEveryRun) {
  const auto runs = read(kRuns);
  ASSERT_EQ(runs.size(), 5U);
  EXPECT_EQ(runs[0].id, "G1");
  EXPECT_EQ(runs[0].source, "Paper A");
  EXPECT_EQ(runs[0].line, 2);
  EXPECT_EQ(runs[0].label, "GPT 1B, 16 x A100-SXM4");
  EXPECT_DOUBLE_EQ(runs[0].measured_iteration_s, 1.5);
  EXPECT_EQ(runs[1].line, 3);
  EXPECT_DOUBLE_EQ(runs[1].measured_iteration_s, 2.25);
  for (const auto& run : runs) {
    EXPECT_TRUE(run.job.has_value()) << run.id << ": " << run.excluded_because;
    EXPECT_EQ(run.excluded_because, "") << run.id;
  }
}

TEST(CalibrationReader, ReadsTheStrategyOfAMegatronRunWithEveryFeatureOn) {
  const auto job = *read(kRuns)[0].job;
  const auto& s = job.strategy;
  EXPECT_EQ(s.tensor_parallel, 2);
  EXPECT_EQ(s.pipeline_parallel, 2);
  EXPECT_EQ(s.data_parallel, 4);
  EXPECT_EQ(s.micro_batch_size, 2);
  EXPECT_EQ(s.global_batch_size, 64);
  EXPECT_TRUE(s.sequence_parallel);  // "yes (...)"
  EXPECT_EQ(s.virtual_stages, 3);    // "3 (...)": the leading number
  EXPECT_EQ(s.schedule, "interleaved");
  EXPECT_EQ(s.recompute, strategy::Recompute::full);
  EXPECT_TRUE(s.distributed_optimizer);
  EXPECT_TRUE(s.overlap_grad_reduce);
  EXPECT_EQ(s.dtype, Dtype::fp16);
}

TEST(CalibrationReader, ReadsTheStrategyOfARunWithFeaturesOff) {
  const auto s = read(kRuns)[1].job->strategy;
  EXPECT_EQ(s.tensor_parallel, 4);
  EXPECT_EQ(s.pipeline_parallel, 1);
  EXPECT_EQ(s.data_parallel, 1);
  EXPECT_FALSE(s.sequence_parallel);  // "no"
  EXPECT_EQ(s.virtual_stages, 1);     // "n/a"
  EXPECT_EQ(s.schedule, "1f1b");
  EXPECT_EQ(s.recompute, strategy::Recompute::selective);
  EXPECT_FALSE(s.distributed_optimizer);  // "none (Adam replicated over DP)"
  EXPECT_FALSE(s.overlap_grad_reduce);
  EXPECT_EQ(s.dtype, Dtype::bf16);
  EXPECT_EQ(read(kRuns)[2].job->strategy.recompute, strategy::Recompute::none);  // "none (...)"
  EXPECT_EQ(read(kRuns)[3].job->strategy.dtype, Dtype::fp32);
}

TEST(CalibrationReader, ALlamaRowGetsSwigluRmsnormRopeAndAnUntiedHead) {
  const auto model = read(kRuns)[1].job->model;
  EXPECT_EQ(model.name, "Llama 8B");
  EXPECT_EQ(model.num_layers, 32);
  EXPECT_EQ(model.hidden_size, 4096);
  EXPECT_EQ(model.num_attention_heads, 32);
  EXPECT_EQ(model.num_kv_heads, 8);
  EXPECT_EQ(model.ffn_hidden_size, 14336);
  EXPECT_EQ(model.seq_length, 8192);
  EXPECT_EQ(model.vocab_size, 128256);
  EXPECT_EQ(model.ffn_type, model::FfnType::swiglu);
  EXPECT_EQ(model.norm, model::NormType::rmsnorm);
  EXPECT_EQ(model.position_embedding, model::PositionEmbedding::rope);
  EXPECT_FALSE(model.tie_embeddings);
}

TEST(CalibrationReader, AGptRowKeepsTheGptDefaults) {
  const auto model = read(kRuns)[2].job->model;
  EXPECT_EQ(model.ffn_type, model::FfnType::gelu);
  EXPECT_EQ(model.norm, model::NormType::layernorm);
  EXPECT_EQ(model.position_embedding, model::PositionEmbedding::learned);
  EXPECT_TRUE(model.tie_embeddings);
  // Empty num_kv_heads and ffn_hidden_size: one KV head per head and an FFN of 4h = 7680.
  EXPECT_EQ(model.num_kv_heads, 15);
  EXPECT_EQ(model.ffn_hidden_size, 4 * 1920);
}

TEST(CalibrationReader, MapsTheGpuAndItsMemoryToACatalogEntryAndNode) {
  const auto runs = read(kRuns);
  EXPECT_EQ(runs[0].job->cluster.gpu.name, "a100-40gb");  // A100 with gpu_mem_gb 40
  EXPECT_EQ(runs[0].job->cluster.name, "dgx-a100");
  EXPECT_EQ(runs[0].job->cluster.num_hosts, 2);  // 16 GPUs, 8 per node
  EXPECT_EQ(runs[0].job->cluster.gpus_per_host, 8);
  EXPECT_EQ(runs[1].job->cluster.gpu.name, "h100-sxm");
  EXPECT_EQ(runs[2].job->cluster.gpu.name, "v100-sxm3");
  EXPECT_EQ(runs[2].job->cluster.name, "dgx-2h");
  EXPECT_EQ(runs[3].job->cluster.gpu.name, "a100-80gb");  // no memory size given
}

// gpus_per_node 8 (L1) and 16 (V1) exceed the 4 and 1 GPUs used: the job gets one node of that size.
TEST(CalibrationReader, AJobSmallerThanANodeUsesOnePartialNode) {
  const auto runs = read(kRuns);
  EXPECT_EQ(runs[1].job->cluster.num_hosts, 1);
  EXPECT_EQ(runs[1].job->cluster.gpus_per_host, 4);
  EXPECT_EQ(runs[2].job->cluster.num_hosts, 1);
  EXPECT_EQ(runs[2].job->cluster.gpus_per_host, 1);
}

TEST(CalibrationReader, ExcludesRowsWithMissingOrMalformedFieldsAndSaysWhy) {
  EXPECT_EQ(exclusion_of("num_layers", ""), "missing num_layers");
  EXPECT_EQ(exclusion_of("hidden_size", "big"), "hidden_size 'big' is not a number");
  EXPECT_EQ(exclusion_of("tp", "1.5"), "tp '1.5' is not a positive whole number");
  // int holds at most 2^31 - 1 = 2147483647; the next whole number and 1e48 are refused by value.
  EXPECT_EQ(exclusion_of("num_gpus", "2147483648"), "num_gpus '2147483648' is larger than 2147483647");
  EXPECT_EQ(exclusion_of("num_gpus", "1e48"), "num_gpus '1e48' is larger than 2147483647");
  EXPECT_EQ(exclusion_of("iter_time_s", "0"), "iter_time_s must be positive");
  EXPECT_EQ(exclusion_of("iter_time_s", "n/a"), "missing iter_time_s");
}

// Context parallelism is modelled: L1 (tp 4 on 4 GPUs) with cp 2 becomes tp 4 x cp 2 on 8 GPUs.
TEST(CalibrationReader, ReadsTheContextParallelSize) {
  const std::string text = kRuns;
  const std::string header = text.substr(0, text.find('\n') + 1);
  const auto runs =
      read(header + "L1,Paper B,Llama 8B,Llama 3 (GQA),32,4096,32,8,14336,swiglu,8192,128256,no,BF16,H100-SXM5,"
                    "80,8,8,4,1,1,2,1,no,n/a,1,16,none,none,,2.25\n");
  ASSERT_TRUE(runs[0].job.has_value()) << runs[0].excluded_because;
  EXPECT_EQ(runs[0].job->strategy.context_parallel, 2);
  EXPECT_EQ(runs[0].job->strategy.world_size(), 8);             // 4 x 2 x 1 x 1
  EXPECT_EQ(read(kRuns)[1].job->strategy.context_parallel, 1);  // cp 1 in the column
  EXPECT_EQ(read(kRuns)[2].job->strategy.context_parallel, 1);  // cp left empty
}

TEST(CalibrationReader, ExcludesRowsThatUseFeaturesDistsimDoesNotModel) {
  EXPECT_EQ(exclusion_of("ep", "4"), "expert parallelism (ep 4) in a row without experts (moe 'no')");
  // An MoE row's model must be a built-in MoE model (moe_row_model.hpp); "Llama 8B" names none.
  EXPECT_EQ(exclusion_of("moe", "yes (8 experts)"),
            "model 'Llama 8B' is not a built-in model (distsim list models); did you mean 'llama-3.1-8b'?");
  EXPECT_EQ(exclusion_of("ffn_activation", "swish-x"),
            "ffn_activation 'swish-x' is not an MLP activation distsim models (gelu, swiglu, geglu, relu, "
            "squared_relu); the closest is 'swiglu'");
}

// FP8 runs (TransformerEngine, Megatron-Core --fp8-format hybrid) train in bf16 with fp8 GEMMs.
TEST(CalibrationReader, ReadsAnFp8RunAsBf16WithFp8Gemms) {
  const auto runs = read(kRuns);
  ASSERT_TRUE(runs[4].job.has_value()) << runs[4].excluded_because;
  EXPECT_EQ(runs[4].job->strategy.dtype, Dtype::bf16);
  EXPECT_EQ(runs[4].job->strategy.gemm_format, distsim::strategy::GemmFormat::fp8);
  EXPECT_EQ(runs[4].job->cluster.gpu.name, "h100-sxm");
  EXPECT_EQ(runs[1].job->strategy.gemm_format, distsim::strategy::GemmFormat::none);  // "BF16"
}

TEST(CalibrationReader, ExcludesFp8RunsOnGpusWithoutFp8TensorCores) {
  EXPECT_EQ(exclusion_of({{"precision", "FP8 (delayed scaling)"}, {"gpu", "A100-SXM4"}}),
            "precision 'FP8 (delayed scaling)': gpu 'a100-80gb' has no fp8 tensor cores (peak_fp8_tflops 0); "
            "built-in GPUs with fp8: h100-sxm, h200, b200, b300, gb200, gb300");
}

TEST(CalibrationReader, ExcludesRowsWhoseHardwareIsNotInTheCatalog) {
  EXPECT_EQ(exclusion_of("gpu", "MI300X"),
            "GPU 'MI300X' is not in the catalog (distsim list gpus); describe the part in a GPU file named "
            "'mi300x-80gb' (base, memory_gb, tdp_w and the rates it sustains) and pass it with --gpu");
  // L1 has 8 GPUs per node: 12 GPUs are one and a half nodes.
  EXPECT_EQ(exclusion_of("num_gpus", "12"), "num_gpus 12 is not a whole number of 8-GPU nodes");
}

// Megatron-Bridge's Llama 3.1 405B recipe counts the embedding and the loss as layers in the
// pipeline split (src/megatron/bridge/recipes/llama/llama31_405b.py); the table does not say so,
// so the row lists it as an assumption naming the recipe, and a row of another Megatron-Core
// framework also names the release the recipe is from. A row of another framework (torchtitan)
// gets the same split from Megatron-Core's rule for layers that do not divide (126 + 2 = 128 = 32
// chunks of 4), as an assumption naming the rule. The rows name the model by a recipe's spelling,
// which the catalog knows as an alias of llama-3.1-405b, and give its shape.
TEST(CalibrationReader, AppliesTheRecipeOfTheFrameworkAndModel) {
  const std::string header =
      "id,source,model,framework,moe,num_layers,hidden_size,num_attention_heads,num_kv_heads,ffn_hidden_size,"
      "ffn_activation,seq_len,vocab_size,precision,gpu,gpus_per_node,num_gpus,tp,pp,dp,vpp,micro_batch,"
      "global_batch,iter_time_s\n";
  const std::string row = ",,126,16384,128,8,53248,swiglu,8192,128256,BF16,H100-SXM5,8,512,8,8,8,4,1,64,10\n";
  const auto runs = read(header + "R1,Bridge,LLAMA3.1_405B,Megatron-Bridge / Megatron-Core (NeMo 25.11)" + row +
                         "R2,Other,LLAMA3.1_405B,torchtitan" + row + "R3,Other,LLAMA3.1_405B,Megatron-LM" + row);
  const std::string recipe =
      "account_for_embedding_in_pipeline_split=true, account_for_loss_in_pipeline_split=true (Megatron-Bridge "
      "recipe llama31_405b (src/megatron/bridge/recipes/llama/llama31_405b.py) counts the embedding and the loss "
      "as layers in the pipeline split";
  ASSERT_TRUE(runs[0].job.has_value()) << runs[0].excluded_because;
  EXPECT_TRUE(runs[0].job->strategy.account_for_embedding);
  EXPECT_TRUE(runs[0].job->strategy.account_for_loss);
  EXPECT_EQ(runs[0].assumptions.back(), recipe + ")");
  ASSERT_TRUE(runs[1].job.has_value()) << runs[1].excluded_because;
  EXPECT_TRUE(runs[1].job->strategy.account_for_embedding);
  EXPECT_TRUE(runs[1].job->strategy.account_for_loss);
  EXPECT_EQ(runs[1].assumptions.back(),
            "account_for_embedding_in_pipeline_split=true, account_for_loss_in_pipeline_split=true (126 layers over "
            "pp 8 x vpp 4 = 32 chunks do not split evenly; with the embedding and the loss counted as layers, 128 "
            "do, as Megatron-Core's recipes run such models)");
  ASSERT_TRUE(runs[2].job.has_value()) << runs[2].excluded_because;
  EXPECT_EQ(runs[2].assumptions.back(), recipe + "; the row's framework 'Megatron-LM' is taken to lay the model out "
                                                 "as Megatron-Bridge / Megatron-Core (NeMo 25.11) does)");
}

// 127 layers over 32 chunks: 128 would split with either the embedding or the loss counted, and
// the row does not say which; 125 layers (127 with both) split no way.
TEST(CalibrationReader, RefusesALayerCountNoMegatronRuleSplits) {
  const std::string header =
      "id,source,model,num_layers,hidden_size,num_attention_heads,num_kv_heads,ffn_hidden_size,"
      "ffn_activation,seq_len,vocab_size,precision,gpu,gpus_per_node,num_gpus,tp,pp,dp,vpp,micro_batch,"
      "global_batch,iter_time_s\n";
  const std::string row = ",16384,128,8,53248,swiglu,8192,128256,BF16,H100-SXM5,8,512,8,8,8,4,1,64,10\n";
  const auto runs = read(header + "R1,A,M,127" + row + "R2,A,M,125" + row);
  EXPECT_EQ(runs[0].excluded_because,
            "127 layers over pp 8 x vpp 4 = 32 chunks do not split evenly; counting either the embedding or the loss "
            "as a layer would, and the source does not say which (give the row's pipeline layout)");
  EXPECT_EQ(runs[1].excluded_because,
            "125 layers over pp 8 x vpp 4 = 32 chunks do not split evenly, nor with the embedding and the loss "
            "counted as layers (127); the source's pipeline layout is not stated");
}

// No intra_node_link column: every run of kRuns uses its GPU's own node design and says so.
TEST(CalibrationReader, ARunListsWhatItAssumes) {
  const auto runs = read(kRuns);
  EXPECT_EQ(runs[1].assumptions, (std::vector<std::string>{"intra_node_link not given: the GPU's own node design"}));
  const std::string text = kRuns;
  const std::string header = text.substr(0, text.find('\n') + 1);
  const auto stated =
      read(header + "L1,Paper B,Llama 8B,Llama 3 (GQA),32,4096,32,8,14336,swiglu,8192,128256,no,\"fp16/bf16 mixed "
                    "(not stated)\",H100-SXM5,80,8,4,4,1,1,1,1,not stated,n/a,1,16,likely full,\"distributed "
                    "optimizer (recipe default; not stated)\",,2.25\n");
  ASSERT_TRUE(stated[0].job.has_value()) << stated[0].excluded_because;
  EXPECT_EQ(stated[0].assumptions,
            (std::vector<std::string>{
                "intra_node_link not given: the GPU's own node design",
                "dtype=fp16 (the source does not say which of fp16 and bf16; they have the same tensor-core peak "
                "on A100 and later GPUs)",
                "distributed_optimizer=true (the table's optimizer_sharding 'distributed optimizer (recipe default; "
                "not stated)', not stated in its source)",
                "recompute=full (not stated; the source's FLOP count (96 B s l h^2, the forward counted twice) "
                "implies full recomputation)",
                "sequence_parallel=true (not stated; Megatron-Core and NeMo recipes turn it on with tensor "
                "parallelism)"}));
  EXPECT_TRUE(stated[0].job->strategy.sequence_parallel);
  EXPECT_TRUE(stated[0].job->strategy.distributed_optimizer);
  EXPECT_EQ(stated[0].job->strategy.recompute, strategy::Recompute::full);
  EXPECT_EQ(stated[0].job->strategy.dtype, Dtype::fp16);
}

// Values are matched whole: a value that merely contains a known one is not read as it. The
// closest known value is among the column's phrases and its options' values and aliases.
TEST(CalibrationReader, ExcludesValuesItDoesNotKnowAndSuggestsTheClosest) {
  EXPECT_EQ(exclusion_of("precision", "mostly fp8"),
            "precision 'mostly fp8' is not a value the calibration reader knows; the closest it knows is 'mxfp8'");
  EXPECT_EQ(exclusion_of("optimizer_sharding", "ZeRO-5"),
            "optimizer_sharding 'ZeRO-5' is not a value the calibration reader knows; the closest it knows is "
            "'zero1'");
  EXPECT_EQ(exclusion_of("sequence_parallel", "sometimes"),
            "sequence_parallel 'sometimes' is not a value the calibration reader knows; the closest it knows is "
            "'sequence_parallel'");
  // The arch names a family of the built-in models (the letters its name starts with).
  EXPECT_EQ(exclusion_of("arch", "Mamba (SSM)"),
            "arch 'Mamba (SSM)' names no family of the built-in models (distsim list models); the closest is "
            "'llama'");
  EXPECT_EQ(exclusion_of("arch", "BERT"),
            "arch 'BERT' names the family of built-in model 'bert-large', which is not a decoder; the calibration "
            "reader reads decoder rows");
}

TEST(CalibrationReader, ExcludesFormatsAndShardingItDoesNotModel) {
  // L1 runs on the H100, which has no MXFP8 tensor cores: the job's own check refuses the row.
  EXPECT_EQ(exclusion_of("precision", "FP8-MX (footnote; 32x32)"),
            "precision 'FP8-MX (footnote; 32x32)': gpu 'h100-sxm' has no mxfp8 tensor cores (peak_mxfp8_tflops 0); "
            "built-in GPUs with mxfp8: b200, b300, gb200, gb300");
  // The option table names these values as not modelled, with the reason.
  EXPECT_EQ(exclusion_of("precision", "FP8 rowwise (torchao) + BF16"),
            "precision 'fp8 rowwise' (fp8 with a scale per row: torchao float8 rowwise) is not modelled");
  EXPECT_EQ(exclusion_of("recompute", "per-op selective activation checkpointing"),
            "recomputation 'per-op selective activation checkpointing' (torchtitan's per-op policy: every other "
            "matmul recomputed) is not modelled");
  EXPECT_EQ(exclusion_of("optimizer_sharding", "ZeRO-Infinity"),
            "sharding 'zero-infinity' (parameters and states offloaded to CPU or NVMe) is not modelled");
}

// FSDP2's fully_shard and Megatron-FSDP shard parameters, gradients and optimizer states over the
// data-parallel ranks (ZeRO-3); MXFP8 on a GPU with MXFP8 tensor cores is the mxfp8 precision.
TEST(CalibrationReader, ReadsFullyShardedRunsAndMxfp8) {
  for (const char* spelling : {"FSDP2 (fully_shard) over 2 ranks (ZeRO-3-like)", "Megatron-FSDP (FSDP=4)"}) {
    const CalibrationRun run = run_of({{"num_gpus", "8"}, {"dp", "2"}, {"optimizer_sharding", spelling}});
    ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
    EXPECT_EQ(run.job->strategy.sharding, strategy::Sharding::full);
    EXPECT_EQ(run.job->strategy.shard_group_size(), 2);
    for (const auto& assumption : run.assumptions) EXPECT_EQ(assumption.find("sharding"), std::string::npos);
  }
  const CalibrationRun mxfp8 = run_of({{"gpu", "B200"}, {"gpu_mem_gb", "180"}, {"precision", "FP8-MX"}});
  ASSERT_TRUE(mxfp8.job.has_value()) << mxfp8.excluded_because;
  EXPECT_EQ(mxfp8.job->strategy.gemm_format, strategy::GemmFormat::mxfp8);
  for (const auto& assumption : mxfp8.assumptions) EXPECT_EQ(assumption.find("mxfp8"), std::string::npos);
}

// "FSDP2 over N ranks" shards over N ranks: over fewer than dp x cp it is HSDP (N = 2 of dp 4:
// two replicas of a 2-rank shard group); a group that does not divide dp x cp is the job's error.
TEST(CalibrationReader, ReadsTheRanksAFullyShardedRunShardsOver) {
  const CalibrationRun hsdp =
      run_of({{"num_gpus", "16"}, {"dp", "4"}, {"optimizer_sharding", "FSDP2 (fully_shard) over 2 ranks"}});
  ASSERT_TRUE(hsdp.job.has_value()) << hsdp.excluded_because;
  EXPECT_EQ(hsdp.job->strategy.shard_group_size(), 2);
  EXPECT_EQ(hsdp.job->strategy.data_parallel, 4);
  EXPECT_EQ(exclusion_of({{"optimizer_sharding", "FSDP2 (fully_shard) over all ranks"}}),
            "shard_group_size as the table gives it: expected a positive integer (1 to 2147483647), got 'all'");
}

// Megatron-Bridge's GB200/B200 MXFP8 results carry a footnote on 32x32 scaling blocks, which
// distsim prices as TransformerEngine's 1x32-block MXFP8: an assumption the row lists.
TEST(CalibrationReader, ListsTheBlockFootnoteOfAnMxfp8RowAsAnAssumption) {
  const std::map<std::string, std::string> b200{{"gpu", "B200"}, {"gpu_mem_gb", "180"}, {"precision", "FP8-MX"}};
  std::map<std::string, std::string> footnoted = b200;
  footnoted["precision"] = "FP8-MX (parenthesised value; footnote: 32x32 granularity on GB200/B200)";
  const CalibrationRun plain = run_of(b200);
  const CalibrationRun run = run_of(footnoted);
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->strategy.gemm_format, strategy::GemmFormat::mxfp8);
  ASSERT_EQ(run.assumptions.size(), plain.assumptions.size() + 1);
  EXPECT_EQ(std::count_if(run.assumptions.begin(), run.assumptions.end(),
                          [](const std::string& a) { return a.find("32x32 scaling blocks") != std::string::npos; }),
            1);
}

// An H100 with 96 GB (Meta's Grand Teton parts) is not the catalog's 80 GB h100-sxm; the file to
// describe it is named with its memory and its power limit.
TEST(CalibrationReader, AGpuWhoseMemoryDiffersFromTheCatalogsIsAnotherPart) {
  EXPECT_EQ(exclusion_of({{"gpu", "H100 (Grand Teton; 500 W)"}, {"gpu_mem_gb", "96"}}),
            "GPU 'H100 (Grand Teton; 500 W)' with 96 GB is not h100-sxm, which has 80 GB; describe the part in a GPU "
            "file named 'h100-96gb-500w' (base, memory_gb, tdp_w and the rates it sustains) and pass it with --gpu");
}

// "-" and "NA" are missing like "n/a": no sequence parallelism, one virtual stage, cp 1.
TEST(CalibrationReader, EveryMissingMarkerMeansTheDefault) {
  const std::string text = kRuns;
  const std::string header = text.substr(0, text.find('\n') + 1);
  const auto runs =
      read(header + "L1,Paper B,Llama 8B,Llama 3 (GQA),32,4096,32,8,14336,swiglu,8192,128256,-,BF16,H100-SXM5,"
                    "80,8,4,4,1,1,NA,-,-,NA,1,16,-,NA,-,2.25\n");
  ASSERT_TRUE(runs[0].job.has_value()) << runs[0].excluded_because;
  const auto& s = runs[0].job->strategy;
  EXPECT_FALSE(s.sequence_parallel);
  EXPECT_EQ(s.virtual_stages, 1);
  EXPECT_EQ(s.context_parallel, 1);
  EXPECT_EQ(s.recompute, strategy::Recompute::none);
  EXPECT_FALSE(s.distributed_optimizer);
}

// Parts of a field separated by ';' are read one by one (SC'21 rows: "DDP-impl local; ...").
TEST(CalibrationReader, ReadsEachPartOfACommunicationField) {
  const auto job = *read(std::string(kRuns).replace(std::string(kRuns).find("overlap_grad_reduce,1.5"), 23,
                                                    "\"DDP-impl local; scatter/gather p2p optimization on "
                                                    "(default)\",1.5"))[0]
                        .job;
  EXPECT_TRUE(job.strategy.p2p_scatter_gather);
  EXPECT_FALSE(job.strategy.overlap_grad_reduce);
}

TEST(CalibrationReader, AMissingColumnIsAnErrorThatSuggestsTheClosestHeader) {
  std::string text = kRuns;
  text.replace(text.find(",num_gpus,"), 10, ",num_gpu,");
  EXPECT_EQ(error_of([&] { read(text); }),
            "calib.csv: no column 'num_gpus'; did you mean 'num_gpu'? A calibration file needs the columns of "
            "data/published_calibration.csv");
}

// data/published_calibration.csv rows R029-R032: the Megatron-LM README's DGX-2H weak-scaling runs
// on 1, 2, 4 and 8 V100 SXM3 with tp equal to the GPU count, 16 GPUs per node.
TEST(CalibrationReader, TheBuiltinV100RowsRunOnADgx2h) {
  const auto runs = read_calibration_runs(builtin_calibration_csv(), "data/published_calibration.csv");
  const std::map<std::string, int> gpus{{"R029", 1}, {"R030", 2}, {"R031", 4}, {"R032", 8}};
  int found = 0;
  for (const auto& run : runs) {
    if (!gpus.count(run.id)) continue;
    ++found;
    SCOPED_TRACE(run.id);
    ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
    EXPECT_EQ(run.job->cluster.gpu.name, "v100-sxm3");
    EXPECT_EQ(run.job->cluster.total_gpus(), gpus.at(run.id));
    EXPECT_EQ(run.job->strategy.tensor_parallel, gpus.at(run.id));
    EXPECT_EQ(run.job->strategy.dtype, Dtype::fp16);  // "fp16 mixed"
  }
  EXPECT_EQ(found, 4);
}

// Megatron-LM gained --use-flash-attn in 2023 (NVIDIA/Megatron-LM pull request #267), so a
// Megatron-LM run dated before 2023, by year or by NGC container tag (20.12 is 2020), ran the
// unfused core; later or undated stacks and other frameworks keep the flash default.
TEST(CalibrationReader, ChoosesUnfusedAttentionForMegatronRunsBeforeFlashAttention) {
  const std::map<std::string, strategy::Attention> expected = {
      {"Megatron-LM (2021), PyTorch NGC 20.12", strategy::Attention::unfused},
      {"Megatron-LM (2022)", strategy::Attention::unfused},
      {"Megatron-LM, PyTorch NGC 21.05", strategy::Attention::unfused},
      {"Megatron-LM (2023)", strategy::Attention::flash},
      {"Megatron-LM (2022), PyTorch NGC 23.04", strategy::Attention::flash},
      {"NeMo (Megatron-Core); container per README (24.09/24.12)", strategy::Attention::flash},
      {"DeepSpeed (2021)", strategy::Attention::flash},
      {"", strategy::Attention::flash},
  };
  std::string text =
      "id,source,model,num_layers,hidden_size,num_attention_heads,seq_len,vocab_size,gpu,gpus_per_node,num_gpus,"
      "tp,pp,dp,micro_batch,global_batch,iter_time_s,framework\n";
  for (const auto& [framework, attention] : expected) {
    text += "F,Paper,GPT,2,64,4,128,512,A100-SXM4,8,1,1,1,1,1,1,1.0,\"" + framework + "\"\n";
  }
  const auto runs = read(text);
  ASSERT_EQ(runs.size(), expected.size());
  std::size_t row = 0;
  for (const auto& [framework, attention] : expected) {
    ASSERT_TRUE(runs[row].job.has_value()) << runs[row].excluded_because;
    EXPECT_EQ(runs[row].job->strategy.attention, attention) << "framework '" << framework << "'";
    ++row;
  }
}

// Without a framework column nothing says the run predates FlashAttention.
TEST(CalibrationReader, KeepsFlashAttentionWithoutAFrameworkColumn) {
  for (const auto& run : read(kRuns)) {
    EXPECT_EQ(run.job->strategy.attention, strategy::Attention::flash) << run.id;
  }
}

}  // namespace distsim::io

namespace distsim::io {

// NeMo 24.03 ran TransformerEngine's cuDNN attention from a container no newer than NGC PyTorch
// 24.02 (cuDNN 9.0), so its rows name that kernel, as an assumption; other stacks keep the
// generic rate and say nothing about it.
TEST(CalibrationReader, ANemo2403RowRunsCudnn90AttentionAsAnAssumption) {
  const std::string header =
      "id,source,model,num_layers,hidden_size,num_attention_heads,seq_len,vocab_size,gpu,gpus_per_node,num_gpus,"
      "tp,pp,dp,micro_batch,global_batch,iter_time_s,framework\n";
  const std::string row = "F,Paper,GPT,2,64,4,128,512,H100-SXM5,8,1,1,1,1,1,1,1.0,";
  const auto runs = read(header + row + "NeMo 24.03.01.framework\n" + row +
                         "\"NeMo (Megatron-Core); container per README (24.09/24.12)\"\n" + row + "\n");
  ASSERT_EQ(runs.size(), 3U);
  ASSERT_TRUE(runs[0].job.has_value()) << runs[0].excluded_because;
  EXPECT_EQ(runs[0].job->strategy.attention_kernel, "cudnn-9.0");
  const auto names_the_kernel = [](const CalibrationRun& run) {
    return std::any_of(run.assumptions.begin(), run.assumptions.end(), [](const std::string& assumption) {
      return assumption.find("attention_kernel=cudnn-9.0") != std::string::npos;
    });
  };
  EXPECT_TRUE(names_the_kernel(runs[0]));
  for (std::size_t i = 1; i < runs.size(); ++i) {
    ASSERT_TRUE(runs[i].job.has_value()) << runs[i].excluded_because;
    EXPECT_EQ(runs[i].job->strategy.attention_kernel, "generic");
    EXPECT_FALSE(names_the_kernel(runs[i]));
  }
}

}  // namespace distsim::io

namespace distsim::io {

namespace {

//! The one row of a file whose GPU column is `gpu` with `memory_gb`, read with the GPUs given.
CalibrationRun run_on(const std::string& gpu, const std::string& memory_gb, const std::vector<cluster::GpuSpec>& gpus) {
  const std::string text =
      "id,source,model,num_layers,hidden_size,num_attention_heads,seq_len,vocab_size,gpu,gpu_mem_gb,gpus_per_node,"
      "num_gpus,tp,pp,dp,micro_batch,global_batch,iter_time_s\n"
      "P,Paper,GPT,2,64,4,128,512,\"" +
      gpu + "\"," + memory_gb + ",8,8,1,1,8,1,8,1.0\n";
  return read_calibration_runs(text, "calib.csv", gpus).at(0);
}

cluster::GpuSpec h100_part(const std::string& name, double memory_gb, double tdp_w) {
  cluster::GpuSpec gpu = catalog::find_gpu("h100-sxm");
  gpu.name = name;
  gpu.memory_gb = memory_gb;
  gpu.tdp_w = tdp_w;
  return gpu;
}

}  // namespace

// A stated power limit names another part than the stock H100 (700 W): the row maps to a given
// part named with its memory and limit, and to no part whose limit differs.
TEST(CalibrationReader, MapsAPowerLimitedPartToTheGpuFileNamedForIt) {
  const CalibrationRun stock_only = run_on("H100 (500 W power limit)", "80", {});
  EXPECT_FALSE(stock_only.job.has_value());
  EXPECT_EQ(stock_only.excluded_because,
            "GPU 'H100 (500 W power limit)' states a 500 W power limit: it is not h100-sxm, whose limit is 700 W; "
            "describe the part in a GPU file named 'h100-80gb-500w' (base, memory_gb, tdp_w and the rates it sustains) "
            "and pass it with --gpu");
  const CalibrationRun given = run_on("H100 (500 W power limit)", "80", {h100_part("h100-80gb-500w", 80, 500)});
  ASSERT_TRUE(given.job.has_value()) << given.excluded_because;
  EXPECT_EQ(given.job->cluster.gpu.name, "h100-80gb-500w");
  EXPECT_EQ(given.job->cluster.name, "dgx-h100");
  // Named by memory alone, at 700 W: still not the 500 W part.
  EXPECT_FALSE(run_on("H100 (96 GB, 500 W power limit)", "96", {h100_part("h100-96gb", 96, 700)}).job.has_value());
  // A number too long to be a power limit is none (and never overflows).
  EXPECT_EQ(run_on("H100 (99999999999999999999 W)", "80", {}).job->cluster.gpu.name, "h100-sxm");
  // A stock row is not moved to a given part.
  const CalibrationRun stock = run_on("H100-SXM5", "80", {h100_part("h100-80gb-500w", 80, 500)});
  ASSERT_TRUE(stock.job.has_value()) << stock.excluded_because;
  EXPECT_EQ(stock.job->cluster.gpu.name, "h100-sxm");
}

}  // namespace distsim::io

namespace distsim::io {

// Each column is read by the definition that owns its values: the option table's values and
// aliases, the catalog's names, the MLP activations, by the one name rule. The spellings are
// invented to follow those rules; none is a phrase of the calibration vocabulary.
TEST(CalibrationReader, ReadsEverySpellingTheNameRuleAllows) {
  using strategy::GemmFormat;
  const auto job_of = [](const std::map<std::string, std::string>& changes) {
    const CalibrationRun run = run_of(changes);
    EXPECT_TRUE(run.job.has_value()) << run.excluded_because;
    return run.job.value_or(strategy::JobSpec{});
  };
  EXPECT_EQ(job_of({{"precision", "MXFP8"}, {"gpu", "B200"}, {"gpu_mem_gb", "180"}}).strategy.gemm_format,
            GemmFormat::mxfp8);
  EXPECT_EQ(job_of({{"precision", "NVFP4 (with RHT)"}, {"gpu", "B200"}, {"gpu_mem_gb", "180"}}).strategy.gemm_format,
            GemmFormat::nvfp4);
  EXPECT_EQ(job_of({{"precision", "Float8CurrentScaling"}}).strategy.gemm_format, GemmFormat::fp8);
  EXPECT_EQ(job_of({{"precision", "BF16 + FP8_DS"}}).strategy.gemm_format, GemmFormat::fp8);
  EXPECT_EQ(job_of({{"precision", "bfloat16"}}).strategy.dtype, Dtype::bf16);
  EXPECT_EQ(job_of({{"ffn_activation", "Squared-ReLU"}}).model.ffn_type, model::FfnType::squared_relu);
  EXPECT_EQ(job_of({{"ffn_activation", "relu2"}}).model.ffn_type, model::FfnType::squared_relu);
  EXPECT_EQ(job_of({{"ffn_activation", "SwiGLU"}}).model.ffn_type, model::FfnType::swiglu);
  EXPECT_EQ(job_of({{"optimizer_sharding", "ZeRO stage 3 (DeepSpeed)"}}).strategy.sharding, strategy::Sharding::full);
  EXPECT_EQ(job_of({{"optimizer_sharding", "ZeRO_2"}}).strategy.sharding, strategy::Sharding::gradients);
  EXPECT_TRUE(job_of({{"optimizer_sharding", "Distributed-Optimizer"}}).strategy.distributed_optimizer);
  EXPECT_TRUE(job_of({{"sequence_parallel", "TRUE"}}).strategy.sequence_parallel);
  EXPECT_EQ(job_of({{"recompute", "Full"}}).strategy.recompute, strategy::Recompute::full);
  EXPECT_EQ(job_of({{"recompute", "selective: MLA-up-proj"}}).strategy.recompute, strategy::Recompute::mla_up_proj);
  const strategy::JobSpec gpt3 = job_of({{"arch", "GPT-3 (decoder)"}});
  EXPECT_EQ(gpt3.model.norm, model::NormType::layernorm);  // the family of gpt2-345m and gpt3-175b
  EXPECT_TRUE(gpt3.model.tie_embeddings);
  EXPECT_EQ(job_of({{"arch", "LLaMA-2"}}).model.norm, model::NormType::rmsnorm);
}

// A cell of Megatron-LM flags is read as the Megatron reader reads them: the overlap it sets, what
// it assumes listed under the row, and a flag it does not know refusing the row.
TEST(CalibrationReader, ReadsMegatronFlagsInACell) {
  const CalibrationRun run =
      run_of({{"comm_overlap", "--overlap-grad-reduce --overlap-param-gather --tp-comm-overlap"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_TRUE(run.job->strategy.overlap_grad_reduce);
  EXPECT_NE(std::find_if(run.assumptions.begin(), run.assumptions.end(),
                         [](const std::string& text) {
                           return text.find("--tp-comm-overlap: tensor-parallel") != std::string::npos;
                         }),
            run.assumptions.end());
  EXPECT_EQ(exclusion_of("comm_overlap", "--overlap-grad-reduse --sequence-parallel"),
            "comm_overlap '--overlap-grad-reduse --sequence-parallel': --overlap-grad-reduse: not an argument distsim "
            "reads; the closest it knows is '--overlap-grad-reduce'. A flag that changes the computation must be "
            "modelled or refused, so distsim does not guess what it does");
}

// A size the source leaves unstated is the framework's default, said under the row.
TEST(CalibrationReader, AnUnstatedSizeIsTheDefaultAsAnAssumption) {
  const CalibrationRun run = run_of({{"vpp", "not stated"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->strategy.virtual_stages, 1);
  EXPECT_EQ(run.assumptions.front(),
            "virtual_stages=1 (vpp 'not stated'; Megatron-Core's default, which is distsim's)");
  EXPECT_EQ(exclusion_of("tp", "not stated"), "tp 'not stated' is not a number");  // a required size
}

}  // namespace distsim::io

namespace distsim::io {

// A value followed by "not stated" is the table's inference: read as the value, listed as an
// assumption.
TEST(CalibrationReader, AValueMarkedNotStatedIsReadAsAnAssumption) {
  const CalibrationRun run = run_of({{"optimizer_sharding", "ZeRO-1 not stated"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->strategy.sharding, strategy::Sharding::optimizer);
  EXPECT_NE(std::find(run.assumptions.begin(), run.assumptions.end(),
                      "sharding=zero1 (the table's optimizer_sharding 'ZeRO-1 not stated', not stated in its source)"),
            run.assumptions.end());
}

}  // namespace distsim::io

namespace distsim::io {

// A node design the link's text or its remark names is that built-in node design (DGX B300's
// 800 Gb/s NICs, not DGX B200's); without one, the phrase of the link's generation decides.
TEST(CalibrationReader, TheLinkColumnNamesItsNodeDesignThroughTheCatalog) {
  CalibrationRun run =
      run_of({{"intra_node_link", "NVLink4 (DGX H200; 900 GB/s)"}, {"gpu", "H200"}, {"gpu_mem_gb", "141"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->cluster.name, "dgx-h200");
  run = run_of({{"intra_node_link", "NVLink4 + NVSwitch"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->cluster.name, "dgx-h100");
}

}  // namespace distsim::io
