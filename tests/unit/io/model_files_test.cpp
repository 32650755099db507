#include <gtest/gtest.h>

#include "catalog/builtin_models.hpp"
#include "io/spec/spec_resolver.hpp"
#include "io_test_support.hpp"

namespace distsim::io {

using model::Architecture;
using model::FfnType;
using model::NormType;

TEST(ResolveModel, FindsBuiltinNames) { EXPECT_EQ(resolve_model("gpt3-175b").num_layers, 96); }

TEST(ResolveModel, ReportsAnUnknownBuiltinName) {
  EXPECT_EQ(error_of([] { resolve_model("gpt2-354m"); }),
            "unknown model 'gpt2-354m'; did you mean 'gpt2-345m'? (known: bert-large, bert-exlarge, gpt2-345m, "
            "t5-large, gpt3-175b, llama-3.1-8b, llama-3.1-70b, llama-3.1-405b, mixtral-8x7b, mixtral-8x22b, "
            "qwen3-30b-a3b, qwen3-235b-a22b, deepseek-v3, kimi-k2, nemotron-3-8b, nemotron-3-22b, nemotron-4-15b, "
            "nemotron-4-340b, nemotron-h-8b, nemotron-h-47b, nemotron-h-56b, nemotron-3-nano-30b-a3b, llama-4-scout, "
            "llama-4-maverick, gpt-oss-120b, gpt-oss-20b)");
}

TEST(ResolveModel, ReadsAFileWrittenFromScratchWithDefaults) {
  const auto model = resolve_model(fixture("models/tiny_gpt.yaml"));
  EXPECT_EQ(model.name, "tiny-gpt");
  EXPECT_EQ(model.description, "a 4-layer GPT for tests");
  EXPECT_EQ(model.source, fixture("models/tiny_gpt.yaml"));
  EXPECT_EQ(model.architecture, Architecture::decoder);
  EXPECT_EQ(model.num_layers, 4);
  EXPECT_EQ(model.num_kv_heads, 8);        // multi-head attention
  EXPECT_EQ(model.ffn_hidden_size, 1024);  // 4h
  EXPECT_EQ(model.decoder_num_layers, 0);
  EXPECT_TRUE(model.tie_embeddings);
}

TEST(ResolveModel, OverridesABuiltinBase) {
  const auto model = resolve_model(fixture("models/gpt3_48_layers.yaml"));
  const auto& gpt3 = catalog::find_model("gpt3-175b");
  EXPECT_EQ(model.name, "gpt3_48_layers");
  EXPECT_EQ(model.num_layers, 48);
  EXPECT_EQ(model.hidden_size, gpt3.hidden_size);
  EXPECT_EQ(model.vocab_size, gpt3.vocab_size);
  EXPECT_EQ(model.description, "'gpt3-175b' with the overrides of " + fixture("models/gpt3_48_layers.yaml"));
}

// The base path is relative to the including file; fields derived from the hidden size and heads
// follow the overrides, because GPT-3 used the derivations (4h FFN, one KV head per head).
TEST(ResolveModel, OverridesABaseFileAndRederivesDependentFields) {
  const auto model = resolve_model(fixture("models/gpt3_wider.yaml"));
  EXPECT_EQ(model.num_layers, 48);
  EXPECT_EQ(model.hidden_size, 8192);
  EXPECT_EQ(model.num_kv_heads, 64);
  EXPECT_EQ(model.ffn_hidden_size, 4 * 8192);
}

// Llama's 8 KV heads and 14336 FFN are choices, not derivations, so they stay.
TEST(ResolveModel, ReadsJsonInTheSameSchemaAndKeepsChosenFields) {
  const auto model = resolve_model(fixture("models/llama_narrow.json"));
  EXPECT_EQ(model.name, "llama-narrow");
  EXPECT_EQ(model.hidden_size, 2048);
  EXPECT_EQ(model.num_attention_heads, 16);
  EXPECT_EQ(model.num_kv_heads, 8);
  EXPECT_EQ(model.ffn_hidden_size, 14336);
  EXPECT_EQ(model.ffn_type, FfnType::swiglu);
  EXPECT_FALSE(model.tie_embeddings);
}

TEST(ResolveModel, MirrorsTheEncoderInTheDecoderByDefault) {
  const auto model = resolve_model(fixture("models/t5_from_scratch.yaml"));
  EXPECT_EQ(model.architecture, Architecture::encoder_decoder);
  EXPECT_EQ(model.decoder_num_layers, 12);
  EXPECT_EQ(model.target_seq_length(), 128);
  EXPECT_EQ(model.norm, NormType::rmsnorm);  // written "RMSNorm", as Megatron spells it
}

TEST(ResolveModel, ListsEveryProblemOfAFileInLineOrder) {
  const std::string file = fixture("models/broken_model.yaml");
  EXPECT_EQ(error_of([&] { resolve_model(file); }),
            file + ": missing required key 'hidden_size'\n" + file +
                ":2: num_layers: expected a positive integer (1 to 2147483647), got 'many'\n" + file +
                ":3: unknown key 'hidden_sise'; did you mean 'hidden_size'?\n" + file +
                ":5: ffn_type: expected one of gelu, swiglu, geglu, relu, squared_relu, got 'relu3'\n" + file +
                ":6: vocab_size: expected a positive integer (1 to 2147483647), got '-5'\n" + file +
                ":7: seq_length: expected a positive integer (1 to 2147483647), got a list\n" + file +
                ":8: tie_embeddings: expected true or false, got 'maybe'");
}

TEST(ResolveModel, OverridesTheExpertsOfAnMoeBase) {
  const auto model = resolve_model(fixture("models/small_moe.yaml"));
  EXPECT_EQ(model.moe.num_experts, 16);
  EXPECT_EQ(model.moe.top_k, 4);
  EXPECT_EQ(model.moe.expert_ffn_hidden_size, 14336);  // the base's
  EXPECT_DOUBLE_EQ(model.moe.capacity_factor, 1.25);
  EXPECT_FALSE(model.moe.dropless());
  EXPECT_TRUE(model.moe.is_moe_layer(3));
}

TEST(ResolveModel, ReportsEveryProblemOfTheExpertsAndLatentAttention) {
  const std::string file = fixture("models/broken_moe.yaml");
  EXPECT_EQ(error_of([&] { resolve_model(file); }),
            file + ":6: missing required key 'moe.expert_ffn_hidden_size'\n" + file +
                ":9: unknown key 'moe.expert_fnn_hidden_size'; did you mean 'moe.expert_ffn_hidden_size'?\n" + file +
                ":10: moe.capacity_factor: expected a positive number, got '0'\n" + file +
                ":11: moe.router_scoring: expected one of softmax, sigmoid, got 'argmax'\n" + file +
                ":12: missing required key 'mla.qk_nope_head_dim'\n" + file +
                ":12: missing required key 'mla.qk_rope_head_dim'\n" + file +
                ":12: missing required key 'mla.v_head_dim'");
}

// With every key there, the rules across the fields are checked at the `moe:` key.
TEST(ResolveModel, ReportsTopKLargerThanTheExperts) {
  const std::string file = fixture("models/moe_top_k_too_large.yaml");
  EXPECT_EQ(error_of([&] { resolve_model(file); }), file + ":2: moe: top_k 9 must be between 1 and num_experts 8");
}

TEST(ResolveModel, RejectsDecoderKeysOnADecoderAndRepeatedKeys) {
  const std::string file = fixture("models/decoder_with_decoder_layers.yaml");
  EXPECT_EQ(error_of([&] { resolve_model(file); }),
            file + ":2: decoder_num_layers: only applies to architecture encoder-decoder\n" + file +
                ":4: duplicate key 'num_layers' (first given on line 3)");
}

TEST(ResolveModel, ReportsAnUnknownBaseAtItsKey) {
  const std::string file = fixture("models/unknown_base.yaml");
  EXPECT_EQ(error_of([&] { resolve_model(file); }),
            file + ":1: base: unknown model 'gpt3-175'; did you mean 'gpt3-175b'? (known: bert-large, bert-exlarge, "
                   "gpt2-345m, t5-large, gpt3-175b, llama-3.1-8b, llama-3.1-70b, llama-3.1-405b, mixtral-8x7b, "
                   "mixtral-8x22b, qwen3-30b-a3b, qwen3-235b-a22b, deepseek-v3, kimi-k2, nemotron-3-8b, "
                   "nemotron-3-22b, nemotron-4-15b, nemotron-4-340b, nemotron-h-8b, nemotron-h-47b, nemotron-h-56b, "
                   "nemotron-3-nano-30b-a3b, llama-4-scout, llama-4-maverick, gpt-oss-120b, gpt-oss-20b)");
}

TEST(ResolveModel, ReportsACycleOfBaseFiles) {
  const std::string a = fixture("models/cycle_a.yaml");
  const std::string b = fixture("models/cycle_b.yaml");
  EXPECT_EQ(error_of([&] { resolve_model(a); }),
            a + ":1: base: " + b + ":1: base: the base files form a cycle: " + a + " -> " + b + " -> " + a);
}

TEST(ResolveModel, ReportsAMissingFile) {
  EXPECT_EQ(error_of([] { resolve_model("no_such_model.yaml"); }),
            "cannot open model file 'no_such_model.yaml': No such file or directory");
  EXPECT_EQ(error_of([] { resolve_model(fixture("models")); }),
            "cannot open model file '" + fixture("models") + "': Is a directory");
}

TEST(ResolveModel, ReportsMalformedFilesWithTheParserPosition) {
  const std::string yaml = fixture("models/bad_syntax.yaml");
  EXPECT_EQ(error_of([&] { resolve_model(yaml); }), yaml + ":2:12: invalid YAML: end of sequence flow not found");
  const std::string json = fixture("models/bad_syntax.json");
  EXPECT_EQ(error_of([&] { resolve_model(json); }),
            json + ": invalid JSON: parse error at line 1, column 19: syntax error while parsing object key - "
                   "unexpected '}'; expected string literal");
}

TEST(ResolveModel, ReportsAFileThatIsNotAMapping) {
  const std::string list = fixture("models/list.yaml");
  EXPECT_EQ(error_of([&] { resolve_model(list); }),
            list + ":1: expected a mapping of keys to values at the top level, got a list");
  const std::string empty = fixture("models/empty.yaml");
  EXPECT_EQ(error_of([&] { resolve_model(empty); }),
            empty + ": the file is empty; expected a mapping of keys to values");
}

}  // namespace distsim::io
