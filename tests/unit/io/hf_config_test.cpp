#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "catalog/builtin_models.hpp"
#include "io/spec/spec_resolver.hpp"
#include "io_test_support.hpp"
#include "model/parameter_count.hpp"

namespace distsim::io {

using model::Architecture;
using model::FfnType;
using model::NormType;
using model::PositionEmbedding;

// The config is the real Llama 3.1 8B one (docs/reference/formats.md §4): the result must be the catalog entry.
TEST(HfConfig, ReadsALlamaConfigLikeTheCatalogEntry) {
  const auto model = resolve_model(fixture("models/hf/Meta-Llama-3.1-8B/config.json"));
  const auto& builtin = catalog::find_model("llama-3.1-8b");
  EXPECT_EQ(model.name, "Meta-Llama-3.1-8B");  // no _name_or_path: the folder names it
  EXPECT_EQ(model.num_layers, 32);
  EXPECT_EQ(model.hidden_size, 4096);
  EXPECT_EQ(model.num_attention_heads, 32);
  EXPECT_EQ(model.num_kv_heads, 8);
  EXPECT_EQ(model.ffn_hidden_size, 14336);
  EXPECT_EQ(model.ffn_type, FfnType::swiglu);
  EXPECT_EQ(model.norm, NormType::rmsnorm);
  EXPECT_EQ(model.position_embedding, PositionEmbedding::rope);
  EXPECT_EQ(model.seq_length, 8192);  // rope_scaling.original_max_position_embeddings, not 131072
  EXPECT_FALSE(model.tie_embeddings);
  EXPECT_EQ(model::total_parameters(model), model::total_parameters(builtin));
}

TEST(HfConfig, ReadsAGpt2ConfigWithANullInnerSize) {
  const auto model = resolve_model(fixture("models/hf/gpt2-medium/config.json"));
  EXPECT_EQ(model.name, "gpt2-medium");  // _name_or_path
  EXPECT_EQ(model.architecture, Architecture::decoder);
  EXPECT_EQ(model.num_layers, 24);
  EXPECT_EQ(model.hidden_size, 1024);
  EXPECT_EQ(model.num_attention_heads, 16);
  EXPECT_EQ(model.num_kv_heads, 16);
  EXPECT_EQ(model.ffn_hidden_size, 4096);
  EXPECT_EQ(model.seq_length, 1024);
  EXPECT_EQ(model.vocab_size, 50257);  // as in the file; Megatron's padding is the catalog's business
  EXPECT_EQ(model.position_embedding, PositionEmbedding::learned);
  EXPECT_TRUE(model.tie_embeddings);
}

TEST(HfConfig, ReadsAT5ConfigAsAnEncoderDecoder) {
  const auto model = resolve_model(fixture("models/hf/t5-large.json"));
  EXPECT_EQ(model.name, "t5-large");
  EXPECT_EQ(model.architecture, Architecture::encoder_decoder);
  EXPECT_EQ(model.num_layers, 24);
  EXPECT_EQ(model.decoder_num_layers, 24);  // no num_decoder_layers: mirrors the encoder
  EXPECT_EQ(model.head_dim(), 64);
  EXPECT_EQ(model.ffn_type, FfnType::gelu);  // relu, one up-projection
  EXPECT_EQ(model.position_embedding, PositionEmbedding::relative);
  EXPECT_EQ(model.seq_length, 512);
  EXPECT_NEAR(static_cast<double>(model::total_parameters(model)), 737.67e6, 0.01 * 737.67e6);
}

TEST(HfConfig, ReadsABertConfigAsAnEncoder) {
  const auto model = resolve_model(fixture("models/hf/bert-large-uncased.json"));
  EXPECT_EQ(model.architecture, Architecture::encoder);
  EXPECT_EQ(model.num_layers, 24);
  EXPECT_EQ(model.ffn_hidden_size, 4096);
  EXPECT_EQ(model.seq_length, 512);
  EXPECT_EQ(model.vocab_size, 30522);
}

TEST(HfConfig, RejectsAnUnsupportedModelType) {
  const std::string file = fixture("models/hf/qwen2_moe.json");
  EXPECT_EQ(
      error_of([&] { resolve_model(file); }),
      file +
          ":2: model_type: unsupported Hugging Face model_type 'qwen2_moe'; supported: bert, deepseek_v3, "
          "gpt2, gpt_oss, kimi_k2, llama, llama4, mistral, mixtral, nemotron, nemotron_h, qwen2, qwen3, qwen3_moe, t5");
}

// The real configs (HF mistralai/Mixtral-8x7B-v0.1, Qwen/Qwen3-30B-A3B, deepseek-ai/DeepSeek-V3,
// moonshotai/Kimi-K2-Instruct, whose model_type kimi_k2 has DeepSeek-V3's keys) read as their
// catalog entries, whose counts are worked by hand in tests/unit/catalog.
TEST(HfConfig, ReadsMoeConfigsLikeTheCatalogEntries) {
  for (const auto& [file, name] : {std::pair<const char*, const char*>{"Mixtral-8x7B-v0.1", "mixtral-8x7b"},
                                   {"Qwen3-30B-A3B", "qwen3-30b-a3b"},
                                   {"DeepSeek-V3", "deepseek-v3"},
                                   {"Kimi-K2-Instruct", "kimi-k2"},
                                   {"Llama-4-Maverick-17B-128E", "llama-4-maverick"}}) {
    SCOPED_TRACE(file);
    const auto model = resolve_model(fixture("models/hf/" + std::string(file) + "/config.json"));
    const auto& builtin = catalog::find_model(name);
    EXPECT_EQ(model.moe.num_experts, builtin.moe.num_experts);
    EXPECT_EQ(model.moe.top_k, builtin.moe.top_k);
    EXPECT_EQ(model.moe.first_dense_layers, builtin.moe.first_dense_layers);
    EXPECT_EQ(model.moe.router_scoring, builtin.moe.router_scoring);
    EXPECT_EQ(model.qk_norm, builtin.qk_norm);
    EXPECT_EQ(model.mtp_layers, builtin.mtp_layers);
    EXPECT_EQ(model::total_parameters(model), model::total_parameters(builtin));
    EXPECT_EQ(model::active_parameters(model), model::active_parameters(builtin));
  }
}

// transformers' NemotronConfig defaults are Nemotron-4 15B's shape (the fixture writes them out):
// it reads as the catalog entry, whose count is worked by hand in tests/unit/catalog.
TEST(HfConfig, ReadsNemotronAsSquaredReluWithoutBiases) {
  const auto model = resolve_model(fixture("models/hf/Nemotron-4-15B/config.json"));
  const auto& builtin = catalog::find_model("nemotron-4-15b");
  EXPECT_EQ(model.ffn_type, model::FfnType::squared_relu);
  EXPECT_EQ(model.norm, model::NormType::layernorm);
  EXPECT_FALSE(model.has_linear_biases());
  EXPECT_FALSE(model.tie_embeddings);
  EXPECT_EQ(model::total_parameters(model), model::total_parameters(builtin));
}

// Qwen2.5-7B (HF card: 7.61B): layer 3584·3584 + 2·3584·512 + 3584·3584 + QKV bias 3584 + 2·512 +
// MLP 3·3584·18944 + norms 2·3584 = 233,057,792; 28 layers + 2·152064·3584 + 3584 = 7,615,616,512.
// Its sliding_window is switched off (use_sliding_window false), so it is no refusal.
TEST(HfConfig, ReadsQwen2WithItsQkvBias) {
  const auto model = resolve_model(fixture("models/hf/Qwen2.5-7B/config.json"));
  EXPECT_TRUE(model.qkv_bias);
  EXPECT_FALSE(model.qk_norm);
  EXPECT_FALSE(model.moe.enabled());
  EXPECT_EQ(model::total_parameters(model), 7'615'616'512);
}

// Qwen3-8B (HF card: 8.2B): layer 4096·4096 + 2·4096·1024 + 4096·4096 + QK-norm 256 + 3·4096·12288
// + 8192 = 192,946,432; 36 layers + 2·151936·4096 + 4096 = 8,190,735,360.
TEST(HfConfig, ReadsQwen3WithItsQkNorm) {
  const auto model = resolve_model(fixture("models/hf/Qwen3-8B/config.json"));
  EXPECT_TRUE(model.qk_norm);
  EXPECT_FALSE(model.qkv_bias);
  EXPECT_EQ(model.head_dim(), 128);
  EXPECT_EQ(model::total_parameters(model), 8'190'735'360);
}

TEST(HfConfig, RefusesAMixtralConfigRelabelledMistral) {
  const std::string file = fixture("models/hf/mixtral_as_mistral.json");
  EXPECT_EQ(error_of([&] { resolve_model(file); }),
            file + ":9: num_local_experts: declares routed experts, but model_type 'mistral' is a dense model and "
                   "its experts would be ignored; set the model_type of the mixture-of-experts model (mixtral, "
                   "qwen3_moe, deepseek_v3 or gpt_oss)");
}

// Mistral's window covers every layer (arXiv 2310.06825 §2): 4096 keys of the 32768-token sequence.
TEST(HfConfig, ReadsMistralsSlidingWindowOnEveryLayer) {
  const auto model = resolve_model(fixture("models/hf/mistral_sliding_window.json"));
  EXPECT_EQ(model.sliding_window, 4096);
  EXPECT_EQ(model.attention_window(0), 4096);
  EXPECT_EQ(model.attention_window(31), 4096);
}

// The real openai/gpt-oss-120b config.json reads as the catalog entry, whose counts are worked by
// hand in tests/unit/catalog: even layers slide over 128 keys, sinks and biases included.
TEST(HfConfig, ReadsGptOssLikeTheCatalogEntry) {
  const std::string file = fixture("models/hf/gpt-oss-120b/config.json");
  const auto model = resolve_model(file);
  const auto& builtin = catalog::find_model("gpt-oss-120b");
  EXPECT_EQ(model.name, "gpt-oss-120b");
  EXPECT_EQ(model.seq_length, 4096);
  EXPECT_EQ(model.sliding_window, 128);
  EXPECT_EQ(model.window_layers, model::WindowLayers::even);
  EXPECT_TRUE(model.attention_sinks);
  EXPECT_EQ(model.moe.num_experts, 128);
  EXPECT_EQ(model.moe.top_k, 4);
  EXPECT_EQ(model::total_parameters(model), model::total_parameters(builtin));
  EXPECT_EQ(model::active_parameters(model), model::active_parameters(builtin));
  EXPECT_NE(model.description.find("SwiGLU clamped at swiglu_limit 7.0 is priced as swiglu"), std::string::npos)
      << model.description;
}

// Llama 4 Maverick's text_config: every 2nd layer MoE (the odd ones), RoPE on three of four layers
// (layer 3, 7, ... are NoPE: Llama4TextConfig's default no_rope_layer_interval 4), no QK norm,
// chunks of 8192; the vision tower is left out, and the description says so.
TEST(HfConfig, ReadsLlama4TextConfigWithItsLayerPattern) {
  const auto model = resolve_model(fixture("models/hf/Llama-4-Maverick-17B-128E/config.json"));
  EXPECT_FALSE(model.moe.is_moe_layer(0));
  EXPECT_TRUE(model.moe.is_moe_layer(1));
  EXPECT_EQ(model.ffn_hidden_size, 16384);
  EXPECT_EQ(model.moe.expert_ffn_hidden_size, 8192);
  EXPECT_EQ(model.moe.shared_experts, 1);
  EXPECT_EQ(model.moe.router_scoring, model::RouterScoring::sigmoid);
  EXPECT_TRUE(model.rotates_positions(2));
  EXPECT_FALSE(model.rotates_positions(3));
  EXPECT_FALSE(model.qk_l2_norm);
  EXPECT_EQ(model.attention_chunk_size, 8192);
  EXPECT_NE(model.description.find("vision encoder is left out"), std::string::npos) << model.description;
}

// transformers writes out the lists it derives from the intervals. Here moe_layers is what the
// default interleave_moe_layer_step 1 gives (every layer), but no_rope_layers makes layer 1 the NoPE
// one where the default no_rope_layer_interval 4 makes it layer 3: refused.
TEST(HfConfig, RefusesLlama4LayerListsTheIntervalsDoNotGive) {
  const std::string file = fixture("models/hf/llama4_irregular_nope.json");
  EXPECT_EQ(error_of([&] { resolve_model(file); }),
            file + ":15: text_config.no_rope_layers: a per-layer list other than the one no_rope_layer_interval "
                   "gives is not modelled; distsim places the layers by the interval");
}

// Nemotron-H 8B's config (HF nvidia/Nemotron-H-8B-Base-8K) reads as the catalog entry, whose
// count is worked by hand in tests/unit/catalog.
TEST(HfConfig, ReadsNemotronHLikeTheCatalogEntry) {
  const auto model = resolve_model(fixture("models/hf/Nemotron-H-8B-Base-8K/config.json"));
  const auto& builtin = catalog::find_model("nemotron-h-8b");
  EXPECT_EQ(model.hybrid_pattern, builtin.hybrid_pattern);
  EXPECT_EQ(model.mamba, builtin.mamba);
  EXPECT_EQ(model.position_embedding, PositionEmbedding::none);
  EXPECT_EQ(model.ffn_type, FfnType::squared_relu);
  EXPECT_EQ(model.seq_length, 8192);
  EXPECT_EQ(model::total_parameters(model), model::total_parameters(builtin));
}

TEST(HfConfig, RefusesGptOssWindowsOnAnIrregularSetOfLayers) {
  const std::string file = fixture("models/hf/gpt_oss_irregular_windows.json");
  EXPECT_EQ(error_of([&] { resolve_model(file); }),
            file + ":15: layer_types: sliding-window layers other than every layer, every even or every odd layer "
                   "(from layer 0 or from the first sliding layer on) are not modelled");
}

// transformers' Qwen2Config: with use_sliding_window true, layer i slides when i >=
// max_window_layers (21 of 28 here), so layers 0..20 attend fully and 21..27 over 4096 keys.
TEST(HfConfig, ReadsQwen2WindowsFromMaxWindowLayersOn) {
  const auto model = resolve_model(fixture("models/hf/qwen2_sliding_window.json"));
  EXPECT_EQ(model.sliding_window, 4096);
  EXPECT_EQ(model.window_start_layer, 21);
  EXPECT_EQ(model.attention_window(20), 0);
  EXPECT_EQ(model.attention_window(21), 4096);
  EXPECT_EQ(model.attention_window(27), 4096);
}

// A config that lists layer_types is read per layer, as transformers does, whatever
// max_window_layers says (28 here, past the 8 layers): 2 full layers, then 6 sliding ones.
TEST(HfConfig, ReadsQwen3LayerTypesOverMaxWindowLayers) {
  const auto model = resolve_model(fixture("models/hf/qwen3_layer_types.json"));
  EXPECT_EQ(model.sliding_window, 1024);
  EXPECT_EQ(model.window_layers, model::WindowLayers::all);
  EXPECT_EQ(model.window_start_layer, 2);
  EXPECT_EQ(model.attention_window(1), 0);
  EXPECT_EQ(model.attention_window(2), 1024);
}

TEST(HfConfig, ReportsAQwenWindowWithoutMaxWindowLayers) {
  const std::string file = fixture("models/hf/qwen2_sliding_window_no_max_layers.json");
  EXPECT_EQ(error_of([&] { resolve_model(file); }), file + ": missing required key 'max_window_layers'");
}

TEST(HfConfig, ReportsMissingMoeKeysAndDenseLayersItCannotPlace) {
  const std::string file = fixture("models/hf/qwen3_moe_missing_keys.json");
  EXPECT_EQ(error_of([&] { resolve_model(file); }),
            file + ": missing required key 'num_experts_per_tok'\n" + file +
                ": missing required key 'moe_intermediate_size'\n" + file +
                ":7: mlp_only_layers: a list of dense layers among the MoE layers is not modelled (distsim takes the "
                "first n layers dense, then every decoder_sparse_step-th layer MoE)");
}

TEST(HfConfig, ReportsTheMissingKeysOfAMixtralConfig) {
  const std::string file = fixture("models/hf/mixtral.json");
  const std::string error = error_of([&] { resolve_model(file); });
  EXPECT_NE(error.find(file + ": missing required key 'num_experts_per_tok'"), std::string::npos) << error;
}

TEST(HfConfig, ReportsMissingAndMistypedFields) {
  const std::string file = fixture("models/hf/broken_llama.json");
  EXPECT_EQ(error_of([&] { resolve_model(file); }),
            file + ": missing required key 'num_hidden_layers'\n" + file +
                ":3: hidden_size: expected a positive integer (1 to 2147483647), got the string \"wide\"");
}

// Llama's MLP is gated (transformers' LlamaMLP: down(act(gate(x)) * up(x))): a GELU there is
// GeGLU; an activation it does not know is refused at its key, never priced as SwiGLU.
TEST(HfConfig, ReadsALlamaActivationAsItsGatedMlpOrRefusesIt) {
  EXPECT_EQ(resolve_model(fixture("models/hf/llama_gelu_pytorch_tanh.json")).ffn_type, FfnType::geglu);
  const std::string file = fixture("models/hf/llama_swish2.json");
  EXPECT_EQ(error_of([&] { resolve_model(file); }),
            file + ":9: hidden_act: expected silu (a gated MLP: SwiGLU) or gelu (GeGLU), got 'swish2'");
}

}  // namespace distsim::io
