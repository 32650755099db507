#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "io/calibration/calibration_reader.hpp"

namespace distsim::io {

namespace {

using validation::CalibrationRun;

// A Megatron-Bridge MoE row in the columns of data/published_calibration.csv (a subset): Qwen3
// 30B-A3B on one DGX B200 with ep 8, as row N189 of the built-in set, with no commas inside fields
// so that `moe_run` can replace a column by splitting on ','.
constexpr const char* kHeader =
    "id,source,model,arch,num_layers,hidden_size,num_attention_heads,num_kv_heads,ffn_hidden_size,ffn_activation,"
    "seq_len,vocab_size,moe,precision,gpu,gpu_mem_gb,gpus_per_node,intra_node_link,num_gpus,tp,pp,dp,cp,ep,"
    "sequence_parallel,vpp,micro_batch,global_batch,recompute,optimizer_sharding,comm_overlap,iter_time_s,"
    "moe_num_experts,moe_top_k,moe_ffn_hidden_size,moe_shared_experts,moe_layer_freq,etp,moe_dispatcher,moe_notes";
constexpr const char* kQwenRow =
    "Q1,Bridge,Qwen3_30B_a3B,Qwen3-MoE (RMSNorm; QK-layernorm; head_dim 128),48,2048,32,4,n/a (all layers MoE),"
    "swiglu,4096,151936,MoE,FP8-MX,B200,180,8,NVLink5 + NVSwitch (DGX B200),8,1,1,8,1,8,n/a (TP=1),1,1,512,"
    "none/selective default (recipe recompute_modules not set),DDP + distributed optimizer,"
    "EP A2A overlap=no; cuda_graph=off/default,28.191,128,8,768,0,1 (all 48 layers MoE),1,alltoall,grouped GEMM on";

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> parts;
  for (std::size_t pos = 0, next = 0; next != std::string::npos; pos = next + 1) {
    next = line.find(',', pos);
    parts.push_back(line.substr(pos, next - pos));
  }
  return parts;
}

//! The Qwen3 row, or the DeepSeek-V3 one, with each changed column holding its new value.
CalibrationRun moe_run(const std::map<std::string, std::string>& changes) {
  const auto names = split(kHeader);
  const auto fields = split(kQwenRow);
  std::string row;
  for (std::size_t i = 0; i < names.size(); ++i) {
    row += (i ? "," : "") + (changes.count(names[i]) ? changes.at(names[i]) : fields.at(i));
  }
  return read_calibration_runs(std::string(kHeader) + "\n" + row + "\n", "moe.csv").at(0);
}

std::string refusal(const std::map<std::string, std::string>& changes) {
  const CalibrationRun run = moe_run(changes);
  EXPECT_FALSE(run.job.has_value());
  return run.excluded_because;
}

// DeepSeek-V3 as rows N174-N187 describe it: 3 dense layers of 18432, then 58 MoE layers with one
// shared expert of 2048, and latent attention.
const std::map<std::string, std::string> kDeepSeek{
    {"model", "DeepSeekV3 (w/o MTP)"},
    {"arch", "DeepSeek-V3 (MLA: q_lora 1536; kv_lora 512; qk_nope 128; qk_rope 64; v_head 128; RMSNorm)"},
    {"num_layers", "61"},
    {"hidden_size", "7168"},
    {"num_attention_heads", "128"},
    {"num_kv_heads", "128 (MLA; compressed latent KV 512)"},
    {"ffn_hidden_size", "18432 (dense layers 1-3)"},
    {"vocab_size", "129280"},
    {"moe_num_experts", "256"},
    {"moe_ffn_hidden_size", "2048"},
    {"moe_shared_experts", "1 (2048 wide)"},
    {"moe_layer_freq", "[0]*3+[1]*58 (first 3 dense; 58 MoE)"}};

}  // namespace

// The row names the built-in qwen3-30b-a3b and agrees with it column by column; the job gets its
// expert parallel size, etp and dispatcher from the row.
TEST(MoeCalibration, AQwen3RowIsTheBuiltinModelWithTheRowsExpertParallelism) {
  const CalibrationRun run = moe_run({});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  const auto& job = *run.job;
  EXPECT_EQ(job.model.name, "qwen3-30b-a3b");
  EXPECT_TRUE(job.model.qk_norm);
  EXPECT_EQ(job.model.head_dim(), 128);  // not 2048 / 32 = 64: the arch text and the catalog say 128
  EXPECT_EQ(job.model.moe.num_experts, 128);
  EXPECT_EQ(job.model.seq_length, 4096);
  EXPECT_EQ(job.strategy.expert_parallel, 8);
  EXPECT_EQ(job.strategy.expert_tensor_parallel, 1);
  EXPECT_EQ(job.strategy.moe_dispatcher, strategy::MoeDispatcher::alltoall);
  EXPECT_EQ(job.strategy.gemm_format, strategy::GemmFormat::mxfp8);
  ASSERT_FALSE(run.assumptions.empty());
  EXPECT_EQ(run.assumptions.front().rfind("model=qwen3-30b-a3b (the built-in model the row names", 0), 0U);
}

// On GB200 NVL72 racks (18 trays of 4 GPUs), a job of 64 trays is placed as 4 racks of 16 trays
// (Slurm segment 16, NVIDIA's recommendation for jobs of 128 GPUs or more): NVLink domains of 64
// GPUs, said as an assumption. A 16-tray job fits in one rack and stays as the rack is.
TEST(MoeCalibration, AJobLargerThanAnNvl72RackTakes16TraysOfEachRack) {
  std::map<std::string, std::string> rack{{"gpu", "GB200 (Blackwell)"},
                                          {"gpu_mem_gb", "186"},
                                          {"gpus_per_node", "4 per compute tray; 72-GPU NVLink domain (NVL72)"},
                                          {"intra_node_link", "\"NVLink5, NVL72 rack-scale NVSwitch domain\""},
                                          {"num_gpus", "256"},
                                          {"dp", "256"}};
  CalibrationRun run = moe_run(rack);
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->cluster.num_hosts, 64);
  EXPECT_EQ(run.job->cluster.hosts_per_domain, 16);
  EXPECT_EQ(run.job->cluster.gpus_per_domain(), 64);
  const auto allocation = [](const CalibrationRun& read) {
    return std::count_if(read.assumptions.begin(), read.assumptions.end(), [](const std::string& text) {
      return text.rfind("allocation: 16 compute trays (64 GPUs) in each NVL72 rack the job uses (Slurm block", 0) == 0;
    });
  };
  EXPECT_EQ(allocation(run), 1);
  rack["num_gpus"] = "64";
  rack["dp"] = "64";
  run = moe_run(rack);
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->cluster.hosts_per_domain, 18);
  EXPECT_EQ(allocation(run), 0);
}

// Qwen3-235B-A22B: 94 layers, 4096 hidden, 64 heads, 1536-wide experts.
TEST(MoeCalibration, AQwen3235bRowIsItsBuiltinModel) {
  const CalibrationRun run = moe_run({{"model", "Qwen3_235B_a22B"},
                                      {"num_layers", "94"},
                                      {"hidden_size", "4096"},
                                      {"num_attention_heads", "64"},
                                      {"moe_ffn_hidden_size", "1536"},
                                      {"moe_layer_freq", "1 (all 94 layers MoE)"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->model.name, "qwen3-235b-a22b");
}

TEST(MoeCalibration, TheSequenceLengthIsTheRows) {
  const CalibrationRun run = moe_run({{"seq_len", "8192"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->model.seq_length, 8192);
}

// Every column that describes the model is checked against the built-in one.
TEST(MoeCalibration, ARowThatDisagreesWithItsBuiltinModelIsRefusedNamingTheColumn) {
  EXPECT_EQ(refusal({{"num_layers", "47"}}),
            "num_layers '47' disagrees with built-in model 'qwen3-30b-a3b' (num_layers 48)");
  EXPECT_EQ(refusal({{"num_kv_heads", "8"}}),
            "num_kv_heads '8' disagrees with built-in model 'qwen3-30b-a3b' (num_kv_heads 4)");
  EXPECT_EQ(refusal({{"moe_top_k", "4"}}), "moe_top_k '4' disagrees with built-in model 'qwen3-30b-a3b' (moe.top_k 8)");
  EXPECT_EQ(refusal({{"moe_ffn_hidden_size", "1536"}}),
            "moe_ffn_hidden_size '1536' disagrees with built-in model 'qwen3-30b-a3b' (moe.expert_ffn_hidden_size "
            "768)");
  EXPECT_EQ(refusal({{"moe_shared_experts", "1 (768 wide)"}}),
            "moe_shared_experts '1 (768 wide)' disagrees with built-in model 'qwen3-30b-a3b' (moe.shared_experts 0)");
  EXPECT_EQ(refusal({{"ffn_activation", "gelu"}}),
            "ffn_activation 'gelu' disagrees with built-in model 'qwen3-30b-a3b' (ffn_type swiglu)");
  EXPECT_EQ(refusal({{"moe_num_experts", ""}}), "missing moe_num_experts");
  EXPECT_EQ(refusal({{"moe_layer_freq", "[0]*2+[1]*46"}}),
            "moe_layer_freq '[0]*2+[1]*46' disagrees with built-in model 'qwen3-30b-a3b' (0 dense layers, then "
            "every 1 of 48 MoE)");
  EXPECT_EQ(refusal({{"moe_layer_freq", "2"}}),
            "moe_layer_freq '2' is not a layer pattern the calibration reader knows (1, or [0]*N+[1]*M)");
}

// The arch text carries what the numeric columns lack; what it states must be the model's.
TEST(MoeCalibration, TheFactsTheArchTextStatesMustBeTheBuiltinModels) {
  EXPECT_EQ(refusal({{"arch", "Qwen3-MoE (QK-layernorm; head_dim 64)"}}),
            "arch 'Qwen3-MoE (QK-layernorm; head_dim 64)' states head_dim 64; built-in model 'qwen3-30b-a3b' has 128");
  EXPECT_EQ(refusal({{"arch", "Qwen3-MoE (head_dim 128)"}}),
            "arch 'Qwen3-MoE (head_dim 128)' does not state QK-layernorm; built-in model 'qwen3-30b-a3b' has qk_norm "
            "true");
  EXPECT_EQ(refusal({{"arch", "Mixtral (QK-layernorm)"}}),
            "arch 'Mixtral (QK-layernorm)' does not name the family of built-in model 'qwen3-30b-a3b' (qwen)");
}

// The model column resolves through the catalog by the one name rule (core/name_match.hpp): the
// entries' names, their aliases (Hugging Face ids), and a name followed by the total parameter
// count. A name the catalog does not have, or a dense one, is refused.
TEST(MoeCalibration, AModelItDoesNotKnowIsRefusedWithTheClosestName) {
  EXPECT_EQ(refusal({{"model", "Qwen3_31B_A3B"}}),
            "model 'Qwen3_31B_A3B' is not a built-in model (distsim list models); did you mean 'qwen3-30b-a3b'?");
  EXPECT_EQ(refusal({{"model", "Llama-3.1-8B"}}),
            "model 'Llama-3.1-8B' names built-in model 'llama-3.1-8b', which has no experts");
  EXPECT_EQ(refusal({{"model", "Qwen3 30B A3B (base)"}}),
            "model 'Qwen3 30B A3B (base)': the remark 'base' is not one the calibration reader knows (w/ MTP, w/o "
            "MTP, tokendrop); it may describe another model");
  EXPECT_EQ(refusal({{"moe", "sometimes"}}), "moe 'sometimes' is neither MoE, yes nor no");
}

// GPT-OSS 120B as rows N176-N191 describe it (the arch text shortened, its commas as semicolons;
// the activation quoted as in the built-in set): the clamped SwiGLU of the table is priced as
// swiglu, said as an assumption; the window and the sinks the arch text states must be the
// built-in model's.
const std::map<std::string, std::string> kGptOss{
    {"model", "GPT OSS 120B"},
    {"arch", "GPT-OSS (alternating sliding-window(128)/full attention; attention sinks)"},
    {"num_layers", "36"},
    {"hidden_size", "2880"},
    {"num_attention_heads", "64"},
    {"num_kv_heads", "8"},
    {"ffn_activation", "\"gated (clamped SwiGLU-like, quick-gelu gate, glu offset 1.0)\""},
    {"vocab_size", "201088"},
    {"moe_num_experts", "128"},
    {"moe_top_k", "4"},
    {"moe_ffn_hidden_size", "2880"},
    {"moe_layer_freq", "1 (all 36 layers MoE)"}};

TEST(MoeCalibration, AGptOssRowIsTheBuiltinModelWithItsActivationAsAnAssumption) {
  std::map<std::string, std::string> row = kGptOss;
  const CalibrationRun run = moe_run(row);
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->model.name, "gpt-oss-120b");
  EXPECT_EQ(run.job->model.sliding_window, 128);
  bool said = false;
  for (const auto& assumption : run.assumptions) {
    said = said || assumption == "ffn_activation 'gated (clamped SwiGLU-like, quick-gelu gate, glu offset 1.0)' "
                                 "priced as swiglu (the same elementwise bytes; the clamp and the offset are not "
                                 "priced)";
  }
  EXPECT_TRUE(said);
  row["arch"] = "GPT-OSS (alternating sliding-window(256)/full attention; attention sinks)";
  EXPECT_EQ(refusal(row), "arch 'GPT-OSS (alternating sliding-window(256)/full attention; attention sinks)' states "
                          "a sliding window of 256; built-in model 'gpt-oss-120b' has sliding_window 128");
  row["arch"] = "GPT-OSS (alternating sliding-window(128)/full attention)";
  EXPECT_EQ(refusal(row), "arch 'GPT-OSS (alternating sliding-window(128)/full attention)' does not state attention "
                          "sinks; built-in model 'gpt-oss-120b' has attention_sinks true");
}

// "w/o MTP" is DeepSeek-V3 without its multi-token prediction module; every MLA size the arch
// text gives is checked. Only the reading is tested here; what the rows simulate is distsim
// validate's.
TEST(MoeCalibration, DeepSeekRowsWithAndWithoutMtp) {
  CalibrationRun run = moe_run(kDeepSeek);
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->model.name, "deepseek-v3");
  EXPECT_EQ(run.job->model.mtp_layers, 0);
  EXPECT_EQ(run.job->model.mla.kv_lora_rank, 512);
  auto changes = kDeepSeek;
  changes["model"] = "DeepSeekV3 (w/ MTP)";
  run = moe_run(changes);
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->model.mtp_layers, 1);
  changes = kDeepSeek;
  changes["arch"] = "DeepSeek-V3 (MLA: q_lora 1536; kv_lora 256)";
  EXPECT_EQ(refusal(changes), "arch 'DeepSeek-V3 (MLA: q_lora 1536; kv_lora 256)' states kv_lora 256; built-in "
                              "model 'deepseek-v3' has 512");
  changes = kDeepSeek;
  changes["ffn_hidden_size"] = "n/a";
  EXPECT_EQ(refusal(changes), "missing ffn_hidden_size");  // DeepSeek-V3 has dense layers
  changes = kDeepSeek;
  changes["moe_shared_experts"] = "1 (4096 wide)";
  EXPECT_EQ(refusal(changes), "moe_shared_experts '1 (4096 wide)' disagrees with built-in model 'deepseek-v3' "
                              "(moe.shared_expert_ffn_hidden_size 2048)");
  changes = kDeepSeek;
  changes["moe_layer_freq"] = "1";
  EXPECT_EQ(refusal(changes), "moe_layer_freq '1' disagrees with built-in model 'deepseek-v3' (3 dense layers, then "
                              "every 1 of 58 MoE)");
}

// "tokendrop" (in any spelling the name rule allows, alone or beside another remark) is token
// dropping as Megatron-Bridge's recipes turn it on: capacity factor 1.0 and each expert's input
// padded to it (apply_moe_token_drop's defaults); a remark the reader does not know is refused.
TEST(MoeCalibration, ATokenDropRemarkIsCapacityOneWithPaddingAsAnAssumption) {
  auto changes = kDeepSeek;
  changes["model"] = "DeepSeekV3 (Token-Drop)";
  CalibrationRun run = moe_run(changes);
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->model.moe.capacity_factor, 1.0);
  EXPECT_TRUE(run.job->strategy.moe_pad_to_capacity);
  EXPECT_EQ(run.job->model.mtp_layers, 1);  // the built-in model's, as the remark says nothing of MTP
  EXPECT_NE(
      std::find_if(run.assumptions.begin(), run.assumptions.end(),
                   [](const std::string& text) { return text.find("apply_moe_token_drop") != std::string::npos; }),
      run.assumptions.end());
  changes["model"] = "\"DeepSeekV3 (w/o MTP, tokendrop)\"";  // quoted: the remark holds a comma
  run = moe_run(changes);
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->model.mtp_layers, 0);
  EXPECT_TRUE(run.job->strategy.moe_pad_to_capacity);
  EXPECT_FALSE(moe_run(kDeepSeek).job->strategy.moe_pad_to_capacity);
  changes["model"] = "DeepSeekV3 (token sorting)";
  EXPECT_EQ(refusal(changes), "model 'DeepSeekV3 (token sorting)': the remark 'token sorting' is not one the "
                              "calibration reader knows (w/ MTP, w/o MTP, tokendrop); it may describe another model");
}

// Each spelling of the expert columns of the Megatron-Bridge rows, and what it sets or assumes.
TEST(MoeCalibration, ReadsEverySpellingOfEtpAndTheDispatcher) {
  const auto assumes = [](const CalibrationRun& run, const std::string& text) {
    for (const auto& assumption : run.assumptions) {
      if (assumption == text) return true;
    }
    return false;
  };
  CalibrationRun run = moe_run({{"etp", "1 (perf recipe default; not in table)"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_TRUE(assumes(run, "etp=1 (the performance recipes' default; not in the table)"));
  run = moe_run({{"etp", "1 (perf recipe; not in table)"}});
  EXPECT_TRUE(assumes(run, "etp=1 (the matched performance recipe's; not in the table)"));
  run = moe_run({{"moe_dispatcher", "not stated in table"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_TRUE(assumes(run, "moe_dispatcher=alltoall (not stated in the table; the all-to-all dispatcher, which the "
                           "table's notes say the release's H100 and B200 recipes mostly use (its GB200 and GB300 "
                           "recipes use flex with HybridEP))"));
  run = moe_run({{"moe_dispatcher", "alltoall (perf recipe QWEN3_30B_A3B_B200_FP8_MX_BASE_CONFIG at tag v0.2.0; "
                                    "not in table)"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_TRUE(assumes(run, "moe_dispatcher=alltoall (the matched performance recipe's; not in the table)"));
  run = moe_run({{"moe_dispatcher", "allgather"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->strategy.moe_dispatcher, strategy::MoeDispatcher::allgather);
  run = moe_run({{"moe_dispatcher", "flex/hybridep (perf recipe X at tag v0.2.0; not in table)"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->strategy.moe_dispatcher, strategy::MoeDispatcher::hybridep);
  EXPECT_EQ(refusal({{"etp", "one"}}),
            "etp 'one' is not a value the calibration reader knows; it expects a positive whole number");
}

TEST(MoeCalibration, ReadsTheExpertOverlapCudaGraphsAndRecomputeSpellings) {
  CalibrationRun run = moe_run({});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_TRUE(run.job->strategy.overlap_grad_reduce);  // assumed with "EP A2A overlap=no"
  run = moe_run({{"comm_overlap", "EP A2A overlap=no; cuda_graph=transformer_engine ['moe_router' 'moe_preprocess']"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_FALSE(run.job->strategy.overlap_moe_expert_parallel_comm);
  run = moe_run({{"comm_overlap", "EP A2A overlap=yes; cuda_graph=off/default"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_TRUE(run.job->strategy.overlap_moe_expert_parallel_comm);
  EXPECT_TRUE(run.job->strategy.overlap_grad_reduce);
  run = moe_run({{"recompute", "selective: mla_up_proj"}});
  ASSERT_TRUE(run.job.has_value()) << run.excluded_because;
  EXPECT_EQ(run.job->strategy.recompute, strategy::Recompute::mla_up_proj);
}

// A dense row (moe empty or "no") with ep > 1 names the contradiction.
TEST(MoeCalibration, ExpertParallelismInADenseRowIsRefused) {
  EXPECT_EQ(refusal({{"moe", "no"}, {"arch", "Llama 3"}, {"ep", "4"}}),
            "expert parallelism (ep 4) in a row without experts (moe 'no')");
}

// Rows N177, N189, N192, N193 (expert all-to-all overlap) and the GPT-OSS row N176 of the built-in
// set simulate, and N183 on the flex dispatcher with HybridEP kernels.
TEST(MoeCalibration, TheBuiltinQwen3RowsAreReadOrRefusedWithAReason) {
  const auto runs = read_calibration_runs(builtin_calibration_csv(), "data/published_calibration.csv");
  const std::map<std::string, std::string> expected{{"N177", ""}, {"N189", ""}, {"N192", ""},
                                                    {"N183", ""}, {"N193", ""}, {"N176", ""}};
  int found = 0;
  for (const auto& run : runs) {
    if (!expected.count(run.id)) continue;
    ++found;
    SCOPED_TRACE(run.id);
    EXPECT_EQ(run.excluded_because, expected.at(run.id));
    EXPECT_EQ(run.job.has_value(), expected.at(run.id).empty());
  }
  EXPECT_EQ(found, 6);
}

}  // namespace distsim::io
