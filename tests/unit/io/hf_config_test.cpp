#include <gtest/gtest.h>

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
  const std::string file = fixture("models/hf/mixtral.json");
  EXPECT_EQ(error_of([&] { resolve_model(file); }),
            file + ":2: model_type: unsupported Hugging Face model_type 'mixtral'; supported: bert, gpt2, llama, "
                   "mistral, t5");
}

TEST(HfConfig, ReportsMissingAndMistypedFields) {
  const std::string file = fixture("models/hf/broken_llama.json");
  EXPECT_EQ(error_of([&] { resolve_model(file); }),
            file + ": missing required key 'num_hidden_layers'\n" +
                file + ":3: hidden_size: expected a positive integer, got 'wide'");
}

}  // namespace distsim::io
