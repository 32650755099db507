#include "io/spec/model_file_reader.hpp"

#include <vector>

#include "io/document/document.hpp"

namespace distsim::io {

namespace {

using model::Architecture;
using model::FfnType;
using model::ModelSpec;
using model::NormType;
using model::PositionEmbedding;

const std::vector<Choice<Architecture>> kArchitectures = {
    {"decoder", Architecture::decoder},
    {"encoder", Architecture::encoder},
    {"encoder-decoder", Architecture::encoder_decoder},
};
const std::vector<Choice<FfnType>> kFfnTypes = {{"gelu", FfnType::gelu}, {"swiglu", FfnType::swiglu}};
const std::vector<Choice<NormType>> kNorms = {{"layernorm", NormType::layernorm}, {"rmsnorm", NormType::rmsnorm}};
const std::vector<Choice<PositionEmbedding>> kPositionEmbeddings = {
    {"learned", PositionEmbedding::learned},
    {"rope", PositionEmbedding::rope},
    {"relative", PositionEmbedding::relative},
};

//! Megatron-LM's --ffn-hidden-size default: 4h, or int(8h/3/64)·64 with --swiglu, which keeps
//! the MLP's parameter count close to the 4h GeLU one (docs/reference/formats.md §5.1).
int default_ffn_hidden_size(const ModelSpec& model) {
  return model.ffn_type == FfnType::swiglu ? 8 * model.hidden_size / 3 / 64 * 64 : 4 * model.hidden_size;
}

void read_shape(MappingReader& reader, ModelSpec& model) {
  reader.read_choice("architecture", model.architecture, kArchitectures);
  reader.read("num_layers", model.num_layers);
  reader.read("decoder_num_layers", model.decoder_num_layers);
  reader.read("hidden_size", model.hidden_size);
  reader.read("num_attention_heads", model.num_attention_heads);
  reader.read("num_kv_heads", model.num_kv_heads);
  reader.read("kv_channels", model.kv_channels);
  reader.read("ffn_hidden_size", model.ffn_hidden_size);
  reader.read_choice("ffn_type", model.ffn_type, kFfnTypes);
  reader.read_choice("norm", model.norm, kNorms);
  reader.read_choice("position_embedding", model.position_embedding, kPositionEmbeddings);
  reader.read("vocab_size", model.vocab_size);
  reader.read("seq_length", model.seq_length);
  reader.read("decoder_seq_length", model.decoder_seq_length);
  reader.read("tie_embeddings", model.tie_embeddings);
}

//! A field the file leaves out follows the fields it derives from, unless the base set it to
//! something else on purpose (Llama's FFN size is not 8h/3, so `hidden_size: 2048` over a Llama
//! base keeps its FFN size).
void derive_unset_fields(MappingReader& reader, const ModelSpec* base, ModelSpec& model) {
  if (!reader.has("num_kv_heads") && (base == nullptr || base->num_kv_heads == base->num_attention_heads)) {
    model.num_kv_heads = model.num_attention_heads;
  }
  if (!reader.has("ffn_hidden_size") &&
      (base == nullptr || base->ffn_hidden_size == default_ffn_hidden_size(*base))) {
    model.ffn_hidden_size = default_ffn_hidden_size(model);
  }
  if (model.architecture != Architecture::encoder_decoder) {
    for (const char* key : {"decoder_num_layers", "decoder_seq_length"}) {
      if (reader.has(key)) {
        reader.report(key, "only applies to architecture encoder-decoder");
      }
    }
    model.decoder_num_layers = 0;
    model.decoder_seq_length = 0;
    return;
  }
  const bool base_mirrors_encoder = base == nullptr || base->architecture != Architecture::encoder_decoder ||
                                    base->decoder_num_layers == base->num_layers;
  if (!reader.has("decoder_num_layers") && base_mirrors_encoder) {
    model.decoder_num_layers = model.num_layers;
  }
}

}  // namespace

ModelSpec read_model_mapping(MappingReader& reader, const ModelSpec* base, const std::string& file) {
  reader.reject_unknown_keys({"name", "description", "source", "base", "architecture", "num_layers",
                              "decoder_num_layers", "hidden_size", "num_attention_heads", "num_kv_heads",
                              "kv_channels", "ffn_hidden_size", "ffn_type", "norm", "position_embedding",
                              "vocab_size", "seq_length", "decoder_seq_length", "tie_embeddings"});
  if (base == nullptr && !reader.has("base")) {
    reader.require({"num_layers", "hidden_size", "num_attention_heads", "vocab_size", "seq_length"});
  }
  ModelSpec model = base != nullptr ? *base : ModelSpec{};
  model.name = file_stem(file);
  model.description = base != nullptr ? "'" + base->name + "' with the overrides of " + file : "model file " + file;
  model.source = base != nullptr ? file + "; base: " + base->source : file;
  reader.read("name", model.name);
  reader.read("description", model.description);
  reader.read("source", model.source);
  read_shape(reader, model);
  derive_unset_fields(reader, base, model);
  return model;
}

}  // namespace distsim::io
