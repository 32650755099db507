#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/input_error.hpp"
#include "io/spec/launch_script.hpp"
#include "io/spec/megatron_args_reader.hpp"
#include "io/spec/spec_resolver.hpp"
#include "options/job_option.hpp"

namespace distsim::io {

namespace {

std::vector<std::string> flag_names(const std::vector<LaunchFlag>& flags) {
  std::vector<std::string> names;
  for (const auto& flag : flags) names.push_back(flag.flag);
  return names;
}

//! The text of a setting the launch gives, or "" when it gives none.
std::string setting(const LaunchJob& job, std::string_view key) {
  const options::Setting* found = job.settings.find(key);
  return found == nullptr ? "" : options::value_text(found->value);
}

//! A small Megatron job with `extra` flags.
LaunchJob megatron(const std::string& extra) {
  return read_megatron_args("--num-layers 4 --hidden-size 4096 --num-attention-heads 32 --seq-length 2048 "
                            "--vocab-size 32000 " +
                                extra,
                            "args");
}

std::string problem_of(const std::string& extra) {
  try {
    megatron(extra);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// sh's rules: quotes group words, a backslash-newline joins lines, '#' starts a comment; a
// variable's value is split into words where it is expanded; a bash array's words are read where
// it is set; words that follow no flag (the launcher, the script) are not arguments.
TEST(LaunchScript, ReadsWordsVariablesAndArraysAsShDoes) {
  const auto flags = launch_flags("# comment --not-a-flag\n"
                                  "N=4\n"
                                  "export LAUNCH=\"--nnodes $N --nproc_per_node 8\"\n"
                                  "ARGS=(\n  --num-layers 2   # two\n  --name 'a b'\n)\n"
                                  "torchrun $LAUNCH train.py ${ARGS[@]} \\\n  --seq-length=128 --switch\n");
  EXPECT_EQ(flag_names(flags), (std::vector<std::string>{"--num-layers", "--name", "--nnodes", "--nproc_per_node",
                                                         "--seq-length", "--switch"}));
  EXPECT_EQ(flags[0].words, (std::vector<std::string>{"2"}));
  EXPECT_EQ(flags[1].words.front(), "a b");  // then torchrun, which the flag does not take
  EXPECT_EQ(flags[2].words, (std::vector<std::string>{"4"}));
  EXPECT_EQ(flags[3].words.front(), "8");  // then train.py and ${ARGS[@]}, which no flag takes
  EXPECT_EQ(flags[4].words, (std::vector<std::string>{"128"}));
  EXPECT_TRUE(flags[5].words.empty());
  EXPECT_EQ(launch_flags("--tp $UNSET")[0].words, (std::vector<std::string>{"$UNSET"}));
}

// Megatron-LM's defaults where a flag is absent: 4h FFN, or with --swiglu int(8h/3 / 64) * 64:
// h = 4096 gives int(10922.67 / 64) * 64 = 170 * 64 = 10880; LayerNorm, learned positions, tied
// embeddings, GELU, biases; query groups only with --group-query-attention.
TEST(MegatronArgs, TheShapeHasMegatronsDefaults) {
  model::ModelSpec model = resolve_model(setting(megatron(""), "model"));
  EXPECT_EQ(model.ffn_hidden_size, 4 * 4096);
  EXPECT_EQ(model.ffn_type, model::FfnType::gelu);
  EXPECT_EQ(model.norm, model::NormType::layernorm);
  EXPECT_EQ(model.position_embedding, model::PositionEmbedding::learned);
  EXPECT_TRUE(model.tie_embeddings);
  EXPECT_TRUE(model.has_linear_biases());
  EXPECT_EQ(model.num_kv_heads, 32);
  model = resolve_model(setting(megatron("--swiglu --num-query-groups 8"), "model"));
  EXPECT_EQ(model.ffn_hidden_size, 10880);
  EXPECT_EQ(model.num_kv_heads, 32);  // no --group-query-attention
  model =
      resolve_model(setting(megatron("--group-query-attention --num-query-groups 8 --normalization RMSNorm"), "model"));
  EXPECT_EQ(model.num_kv_heads, 8);
  // Megatron adds biases unless --disable-bias-linear, with RMSNorm too (a model file's rule would not).
  EXPECT_TRUE(model.has_linear_biases());
  EXPECT_FALSE(
      resolve_model(setting(megatron("--normalization RMSNorm --disable-bias-linear"), "model")).has_linear_biases());
}

// torchrun's world over tp x pp x cp is the data-parallel size (Megatron's validate_args); layers
// per virtual stage give the chunks per stage (4 layers, pp 2, 1 per chunk: 2), with Megatron's
// interleaved schedule.
TEST(MegatronArgs, TheWorldAndTheVirtualStagesFollowMegatronsRules) {
  const LaunchJob job = megatron("--nnodes 2 --nproc-per-node 8 --tensor-model-parallel-size 2 "
                                 "--pipeline-model-parallel-size 2 --num-layers-per-virtual-pipeline-stage 1");
  EXPECT_EQ(setting(job, "dp"), "4");
  EXPECT_EQ(setting(job, "nodes"), "2");
  EXPECT_EQ(setting(job, "gpus_per_node"), "8");
  EXPECT_EQ(setting(job, "virtual_stages"), "2");
  EXPECT_EQ(setting(job, "schedule"), "interleaved");
  EXPECT_EQ(problem_of("--nnodes 1 --nproc-per-node 6 --tensor-model-parallel-size 4"),
            "args: --nnodes: the world of 6 GPUs is not a multiple of tp x pp x cp = 4");
}

// --fp8-format asks for fp8 GEMMs, per-tensor unless --fp8-recipe names the scaling (Megatron-Core's
// recipe names are the precision option's aliases); full recomputation of every layer is full;
// selective recomputes the module named (core_attn by default).
TEST(MegatronArgs, PrecisionAndRecomputationAreTheOptionsTheyName) {
  EXPECT_EQ(setting(megatron("--bf16 --fp8-format hybrid"), "precision"), "fp8");
  EXPECT_EQ(setting(megatron("--fp8-format e4m3 --fp8-recipe mxfp8"), "precision"), "mxfp8");
  EXPECT_EQ(setting(megatron("--fp8-format e4m3 --fp8-recipe tensorwise"), "precision"), "fp8");
  EXPECT_EQ(setting(megatron("--fp4-format e2m1 --fp4-recipe nvfp4"), "precision"), "nvfp4");
  EXPECT_EQ(setting(megatron("--fp16"), "dtype"), "fp16");
  EXPECT_EQ(setting(megatron("--recompute-granularity full --recompute-method uniform --recompute-num-layers 1"),
                    "recompute"),
            "full");
  EXPECT_EQ(setting(megatron("--recompute-granularity selective"), "recompute"), "selective");
  EXPECT_EQ(setting(megatron("--recompute-granularity selective --recompute-modules mla_up_proj"), "recompute"),
            "mla_up_proj");
  EXPECT_EQ(problem_of("--fp8-format e4m3 --fp8-recipe blockwise"),
            "args: --fp8-recipe: precision 'blockwise' (fp8 with 1x128 and 128x128 block scales: DeepSeek-V3's "
            "recipe, TransformerEngine's Float8BlockScaling) is not modelled");
  EXPECT_EQ(problem_of("--recompute-granularity selective --recompute-modules core_attn moe_act"),
            "args: --recompute-modules: recomputing core_attn, moe_act together is not modelled; one of core_attn or "
            "mla_up_proj is");
}

// A flag that is a distsim flag is that option; one it knows is not modelled and only leaves an
// overlap or a fusion out is an assumption; one that changes nothing is named as ignored.
TEST(MegatronArgs, EveryFlagIsReadAssumedIgnoredOrRefused) {
  const LaunchJob job = megatron("--sequence-parallel --overlap-grad-reduce --tp-comm-overlap --bias-gelu-fusion "
                                 "--lr 1e-4 --log-interval 1 --moe-token-dispatcher-type allgather");
  EXPECT_EQ(setting(job, "sequence_parallel"), "true");
  EXPECT_EQ(setting(job, "overlap_grad_reduce"), "true");
  EXPECT_EQ(setting(job, "moe_dispatcher"), "allgather");
  EXPECT_EQ(job.assumptions,
            (std::vector<std::string>{"--tp-comm-overlap: tensor-parallel communication overlap (userbuffers) is not "
                                      "modelled: its collectives are priced without overlap",
                                      "--bias-gelu-fusion: kernel fusions are not modelled one by one: elementwise "
                                      "work is priced as distsim's operators"}));
  EXPECT_EQ(job.ignored, (std::vector<std::string>{"--lr", "--log-interval"}));
  EXPECT_EQ(problem_of("--moe-token-dispatcher-type flex"), "");  // DeepEP, Megatron-Core's default backend
}

// YaRN is RoPE with scaled frequencies: priced as RoPE, and said so.
TEST(MegatronArgs, YarnPositionsArePricedAsRopeAsAnAssumption) {
  const LaunchJob job = megatron("--position-embedding-type yarn");
  EXPECT_EQ(resolve_model(setting(job, "model")).position_embedding, model::PositionEmbedding::rope);
  EXPECT_EQ(job.assumptions,
            (std::vector<std::string>{
                "--position-embedding-type yarn: priced as RoPE (YaRN scales its frequencies, the same kernel)"}));
}

// A published table's cell of flags holds settings only.
TEST(MegatronArgs, SettingsAloneAreReadWithoutAJob) {
  const LaunchJob cell = read_megatron_settings("--overlap-grad-reduce --use-distributed-optimizer", "cell");
  EXPECT_EQ(setting(cell, "overlap_grad_reduce"), "true");
  EXPECT_EQ(setting(cell, "distributed_optimizer"), "true");
  EXPECT_EQ(setting(cell, "model"), "");
  try {
    read_megatron_settings("--num-layers 4", "cell");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "cell: --num-layers: a flag of the model's shape, where only settings are read");
  }
}

}  // namespace distsim::io
