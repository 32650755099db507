#include "io/spec/hf_config_reader.hpp"

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

namespace distsim::io {

namespace {

using model::Architecture;
using model::FfnType;
using model::ModelSpec;
using model::NormType;
using model::PositionEmbedding;

//! The transformer layouts the Hugging Face model types share.
enum class HfFamily { gpt2, bert, llama, t5 };

struct ModelType {
  std::string_view name;
  HfFamily family;
};

const std::vector<ModelType> kModelTypes = {
    {"bert", HfFamily::bert}, {"gpt2", HfFamily::gpt2}, {"llama", HfFamily::llama},
    {"mistral", HfFamily::llama}, {"t5", HfFamily::t5},
};
constexpr std::string_view kSupported = "supported: bert, gpt2, llama, mistral, t5";

// T5's relu and gelu MLPs have one up-projection; the gated ones (T5 v1.1) have two, like SwiGLU.
const std::vector<Choice<FfnType>> kT5FeedForward = {
    {"relu", FfnType::gelu},
    {"gelu", FfnType::gelu},
    {"gated-gelu", FfnType::swiglu},
    {"gated-silu", FfnType::swiglu},
};

//! Hugging Face writes null for unset optional fields; those keep the family's default.
template <class Value>
void read_if_set(MappingReader& reader, std::string_view key, Value& out) {
  if (reader.has_value(key)) {
    reader.read(key, out);
  }
}

std::optional<HfFamily> family_of(MappingReader& reader) {
  if (reader.has("model_type")) {
    std::string model_type;
    if (!reader.read("model_type", model_type)) {
      return std::nullopt;
    }
    for (const auto& known : kModelTypes) {
      if (known.name == model_type) {
        return known.family;
      }
    }
    reader.report("model_type", "unsupported Hugging Face model_type '" + model_type + "'; " + std::string(kSupported));
    return std::nullopt;
  }
  // Older configs have no model_type; their key names still tell the family apart.
  if (reader.has("n_embd")) {
    return HfFamily::gpt2;
  }
  if (reader.has("d_model")) {
    return HfFamily::t5;
  }
  if (reader.has("num_key_value_heads") || reader.has("rms_norm_eps")) {
    return HfFamily::llama;
  }
  if (reader.has("num_hidden_layers")) {
    return HfFamily::bert;
  }
  reader.report_here("cannot tell which Hugging Face model this is: no model_type key; " + std::string(kSupported));
  return std::nullopt;
}

void read_gpt2(MappingReader& reader, ModelSpec& model) {
  reader.require({"n_layer", "n_embd", "n_head", "vocab_size"});
  reader.read("n_layer", model.num_layers);
  reader.read("n_embd", model.hidden_size);
  reader.read("n_head", model.num_attention_heads);
  reader.read("vocab_size", model.vocab_size);
  if (reader.has_value("n_positions")) {
    reader.read("n_positions", model.seq_length);
  } else if (reader.has_value("n_ctx")) {
    reader.read("n_ctx", model.seq_length);
  } else {
    reader.require({"n_positions"});
  }
  model.ffn_hidden_size = 4 * model.hidden_size;
  read_if_set(reader, "n_inner", model.ffn_hidden_size);
}

void read_bert(MappingReader& reader, ModelSpec& model) {
  model.architecture = Architecture::encoder;
  reader.require({"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size",
                  "max_position_embeddings", "vocab_size"});
  reader.read("num_hidden_layers", model.num_layers);
  reader.read("hidden_size", model.hidden_size);
  reader.read("num_attention_heads", model.num_attention_heads);
  reader.read("intermediate_size", model.ffn_hidden_size);
  reader.read("max_position_embeddings", model.seq_length);
  reader.read("vocab_size", model.vocab_size);
}

//! Llama 3.1 trains at 8192 tokens and reaches its 131072 max_position_embeddings by RoPE scaling;
//! the pre-training length is the one a training job uses.
void read_llama_seq_length(MappingReader& reader, ModelSpec& model) {
  if (reader.has_value("rope_scaling")) {
    std::optional<MappingReader> scaling = reader.child("rope_scaling");
    if (scaling && scaling->has_value("original_max_position_embeddings")) {
      scaling->read("original_max_position_embeddings", model.seq_length);
      return;
    }
  }
  reader.require({"max_position_embeddings"});
  reader.read("max_position_embeddings", model.seq_length);
}

void read_llama(MappingReader& reader, ModelSpec& model) {
  model.ffn_type = FfnType::swiglu;
  model.norm = NormType::rmsnorm;
  model.position_embedding = PositionEmbedding::rope;
  model.tie_embeddings = false;  // LlamaConfig's default, unlike PretrainedConfig's
  reader.require({"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size", "vocab_size"});
  reader.read("num_hidden_layers", model.num_layers);
  reader.read("hidden_size", model.hidden_size);
  reader.read("num_attention_heads", model.num_attention_heads);
  read_if_set(reader, "num_key_value_heads", model.num_kv_heads);
  read_if_set(reader, "head_dim", model.kv_channels);
  reader.read("intermediate_size", model.ffn_hidden_size);
  reader.read("vocab_size", model.vocab_size);
  read_llama_seq_length(reader, model);
}

// T5's positions are relative buckets, so n_positions is only the length it was trained at (512).
void read_t5(MappingReader& reader, ModelSpec& model) {
  model.architecture = Architecture::encoder_decoder;
  model.norm = NormType::rmsnorm;
  model.position_embedding = PositionEmbedding::relative;
  model.seq_length = 512;
  reader.require({"num_layers", "d_model", "d_ff", "num_heads", "d_kv", "vocab_size"});
  reader.read("num_layers", model.num_layers);
  model.decoder_num_layers = model.num_layers;
  read_if_set(reader, "num_decoder_layers", model.decoder_num_layers);
  reader.read("d_model", model.hidden_size);
  reader.read("d_ff", model.ffn_hidden_size);
  reader.read("num_heads", model.num_attention_heads);
  reader.read("d_kv", model.kv_channels);
  reader.read("vocab_size", model.vocab_size);
  read_if_set(reader, "n_positions", model.seq_length);
  if (reader.has_value("feed_forward_proj")) {
    reader.read_choice("feed_forward_proj", model.ffn_type, kT5FeedForward);
  }
}

//! Hugging Face snapshots keep config.json in a folder named after the model, so a file called
//! config.json is named by its folder.
std::string name_from_path(const std::string& file) {
  const std::filesystem::path path(file);
  if (path.stem() == "config" && path.parent_path().has_filename()) {
    return path.parent_path().filename().string();
  }
  return path.stem().string();
}

}  // namespace

bool is_hf_config(const YAML::Node& root) {
  for (const char* key : {"model_type", "architectures", "transformers_version", "_name_or_path", "n_embd",
                          "num_hidden_layers", "d_model"}) {
    if (root[key].IsDefined()) {
      return true;
    }
  }
  return false;
}

ModelSpec read_hf_config(MappingReader& reader, const std::string& file) {
  ModelSpec model;
  model.name = reader.text_of("_name_or_path");
  if (model.name.empty()) {
    model.name = name_from_path(file);
  }
  const std::optional<HfFamily> family = family_of(reader);
  if (!family) {
    return model;
  }
  switch (*family) {
    case HfFamily::gpt2: read_gpt2(reader, model); break;
    case HfFamily::bert: read_bert(reader, model); break;
    case HfFamily::llama: read_llama(reader, model); break;
    case HfFamily::t5: read_t5(reader, model); break;
  }
  model.num_kv_heads = model.num_kv_heads > 0 ? model.num_kv_heads : model.num_attention_heads;
  read_if_set(reader, "tie_word_embeddings", model.tie_embeddings);
  model.description = "Hugging Face config " + file;
  model.source = file;
  return model;
}

}  // namespace distsim::io
