#include "catalog/builtin_models.hpp"

#include <gtest/gtest.h>

#include <set>

#include "core/input_error.hpp"
#include "model/parameter_count.hpp"

namespace distsim::catalog {

namespace {

double parameters_of(const char* name) { return static_cast<double>(model::total_parameters(find_model(name))); }

std::string error_of(std::string_view name) {
  try {
    find_model(name);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(BuiltinModels, EveryModelIsDescribedAndCited) {
  std::set<std::string> names;
  for (const auto& model : builtin_models()) {
    EXPECT_FALSE(model.description.empty()) << model.name;
    EXPECT_FALSE(model.source.empty()) << model.name;
    EXPECT_TRUE(names.insert(model.name).second) << "duplicate " << model.name;
    EXPECT_GT(model.num_layers, 0) << model.name;
    EXPECT_EQ(model.hidden_size % model.num_attention_heads, 0) << model.name;
    EXPECT_EQ(model.num_attention_heads % model.num_kv_heads, 0) << model.name;
    EXPECT_GT(model.ffn_hidden_size, 0) << model.name;
    EXPECT_GT(model.seq_length, 0) << model.name;
  }
  EXPECT_EQ(model_names().size(), builtin_models().size());
}

// GPT-3: 96·(12h² + 13h) + V·h + s·h + 2h with h = 12288, V = 51200, s = 2048
// = 173,961,510,912 + 629,145,600 + 25,165,824 + 24,576 = 174,615,846,912 (paper: 175B).
TEST(BuiltinModels, Gpt3HasItsPublishedParameterCount) {
  EXPECT_EQ(model::total_parameters(find_model("gpt3-175b")), 174'615'846'912);
  EXPECT_NEAR(parameters_of("gpt3-175b"), 175e9, 0.005 * 175e9);
}

// Llama layer: h·(a·d) + 2·h·(g·d) + (a·d)·h + 3·h·f + 2h, untied embeddings 2·V·h, final norm h
// (docs/reference/formats.md §6.3). 8B: 32 · 218,112,000 + 2 · 128256 · 4096 + 4096 = 8,030,261,248.
// Meta's model cards: 8.03B, 70.6B, 405.9B.
TEST(BuiltinModels, LlamaModelsHaveTheirPublishedParameterCounts) {
  EXPECT_EQ(model::total_parameters(find_model("llama-3.1-8b")), 8'030'261'248);
  EXPECT_NEAR(parameters_of("llama-3.1-8b"), 8.03e9, 0.01 * 8.03e9);
  EXPECT_NEAR(parameters_of("llama-3.1-70b"), 70.6e9, 0.01 * 70.6e9);
  EXPECT_NEAR(parameters_of("llama-3.1-405b"), 405.9e9, 0.01 * 405.9e9);
}

// BERT-Large: 24 · (12h² + 13h) + V·h + s·h + 2h = 302,309,376 + 31,326,208 + 524,288 + 2,048
// = 334.2M (paper: 340M; HF counts 335M with the pooler and token types, which we leave out).
// GPT-2 345M: 24 layers as above + 50304·1024 + 1024·1024 + 2048 = 354.9M (HF: 355M).
// T5-Large (no biases, RMSNorm): encoder 24 · (12h² + 2h), decoder 24 · (16h² + 3h), tied
// vocabulary 32128·h, final norm h = 737.7M (HF: 737.67M).
TEST(BuiltinModels, SmallerModelsHaveTheirPublishedParameterCounts) {
  EXPECT_NEAR(parameters_of("bert-large"), 335e6, 0.03 * 335e6);
  EXPECT_NEAR(parameters_of("gpt2-345m"), 355e6, 0.01 * 355e6);
  EXPECT_NEAR(parameters_of("t5-large"), 737.67e6, 0.01 * 737.67e6);
}

TEST(BuiltinModels, BertExLargeIsBertLargeWithTwiceTheLayers) {
  const auto& large = find_model("bert-large");
  const auto& exlarge = find_model("bert-exlarge");
  EXPECT_EQ(exlarge.num_layers, 2 * large.num_layers);
  EXPECT_EQ(exlarge.hidden_size, large.hidden_size);
  EXPECT_EQ(exlarge.vocab_size, large.vocab_size);
  EXPECT_EQ(exlarge.architecture, model::Architecture::encoder);
}

TEST(BuiltinModels, T5IsAnEncoderDecoderWithAShorterTarget) {
  const auto& t5 = find_model("t5-large");
  EXPECT_EQ(t5.architecture, model::Architecture::encoder_decoder);
  EXPECT_EQ(t5.total_layers(), 48);
  EXPECT_EQ(t5.target_seq_length(), 128);
  EXPECT_EQ(t5.head_dim(), 64);
}

TEST(FindModel, MatchesNamesIgnoringCase) { EXPECT_EQ(find_model("GPT3-175B").name, "gpt3-175b"); }

TEST(FindModel, SuggestsTheClosestName) {
  EXPECT_EQ(error_of("gpt2-354m"),
            "unknown model 'gpt2-354m'; did you mean 'gpt2-345m'? (known: bert-large, bert-exlarge, gpt2-345m, "
            "t5-large, gpt3-175b, llama-3.1-8b, llama-3.1-70b, llama-3.1-405b)");
}

}  // namespace distsim::catalog
