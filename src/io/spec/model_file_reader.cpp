#include "io/spec/model_file_reader.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "io/document/document.hpp"
#include "model/moe_rules.hpp"

namespace distsim::io {

namespace {

using model::Architecture;
using model::FfnType;
using model::ModelSpec;
using model::NormType;
using model::PositionEmbedding;
using model::RouterScoring;
using model::WindowLayers;

const std::vector<Choice<Architecture>> kArchitectures = {
    {"decoder", Architecture::decoder},
    {"encoder", Architecture::encoder},
    {"encoder-decoder", Architecture::encoder_decoder},
};
std::vector<Choice<FfnType>> ffn_type_choices() {
  std::vector<Choice<FfnType>> choices;
  choices.reserve(model::kFfnTypes.size());
  for (const auto& info : model::kFfnTypes) {
    choices.push_back({info.name, info.type});
  }
  for (const auto& info : model::kFfnTypes) {
    for (const auto alias : info.aliases) {
      if (!alias.empty()) choices.push_back({alias, info.type, true});
    }
  }
  return choices;
}
const std::vector<Choice<NormType>> kNorms = {{"layernorm", NormType::layernorm}, {"rmsnorm", NormType::rmsnorm}};
const std::vector<Choice<PositionEmbedding>> kPositionEmbeddings = {
    {"learned", PositionEmbedding::learned},
    {"rope", PositionEmbedding::rope},
    {"relative", PositionEmbedding::relative},
    {"none", PositionEmbedding::none},
};

const std::vector<Choice<WindowLayers>> kWindowLayers = {
    {"all", WindowLayers::all},
    {"even", WindowLayers::even},
    {"odd", WindowLayers::odd},
};

const std::vector<Choice<RouterScoring>> kRouterScorings = {
    {"softmax", RouterScoring::softmax},
    {"sigmoid", RouterScoring::sigmoid},
};

//! Megatron-LM's --ffn-hidden-size default: 4h, or int(8h/3/64)·64 with a gated MLP (--swiglu), which keeps
//! the MLP's parameter count close to the 4h GeLU one (docs/reference/formats.md §5.1).
std::int64_t default_ffn_hidden_size(const ModelSpec& model) {
  const std::int64_t h = model.hidden_size;
  return model::is_gated(model.ffn_type) ? 8 * h / 3 / 64 * 64 : 4 * h;
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
  reader.read_choice("ffn_type", model.ffn_type, ffn_type_choices());
  reader.read_choice("norm", model.norm, kNorms);
  reader.read_choice("position_embedding", model.position_embedding, kPositionEmbeddings);
  reader.read("vocab_size", model.vocab_size);
  reader.read("seq_length", model.seq_length);
  reader.read("decoder_seq_length", model.decoder_seq_length);
  reader.read("tie_embeddings", model.tie_embeddings);
  if (reader.has("linear_biases")) {
    bool biases = false;
    if (reader.read("linear_biases", biases)) model.linear_biases = biases;
  }
  reader.read("qkv_bias", model.qkv_bias);
  reader.read("qk_norm", model.qk_norm);
  reader.read_count("mtp_layers", model.mtp_layers);
  reader.read_count("sliding_window", model.sliding_window);
  reader.read_choice("window_layers", model.window_layers, kWindowLayers);
  reader.read_count("window_start_layer", model.window_start_layer);
  reader.read("attention_sinks", model.attention_sinks);
  reader.read_count("nope_layer_interval", model.nope_layer_interval);
  reader.read("qk_l2_norm", model.qk_l2_norm);
  reader.read_count("attention_chunk_size", model.attention_chunk_size);
}

//! Whether every one of `keys` is in the mapping; reports those that are not.
bool require_all(MappingReader& reader, std::initializer_list<std::string_view> keys) {
  reader.require(keys);
  return std::all_of(keys.begin(), keys.end(), [&](std::string_view key) { return reader.has(key); });
}

//! The `moe:` mapping. Over a base with experts every key is optional; without one the three
//! that define the experts are required. Leaving out capacity_factor keeps routing dropless.
//! False when a required key is missing, so that the rules across fields are not checked on a
//! half-read spec.
bool read_moe(MappingReader& reader, ModelSpec& model) {
  std::optional<MappingReader> moe = reader.child("moe");
  if (!moe) {
    return true;
  }
  moe->reject_unknown_keys({"num_experts", "top_k", "expert_ffn_hidden_size", "shared_experts",
                            "shared_expert_ffn_hidden_size", "first_dense_layers", "layer_interval", "router_scoring",
                            "router_groups", "router_group_top_k", "capacity_factor"});
  const bool complete = model.moe.enabled() || require_all(*moe, {"num_experts", "top_k", "expert_ffn_hidden_size"});
  moe->read("num_experts", model.moe.num_experts);
  moe->read("top_k", model.moe.top_k);
  moe->read("expert_ffn_hidden_size", model.moe.expert_ffn_hidden_size);
  moe->read_count("shared_experts", model.moe.shared_experts);
  moe->read("shared_expert_ffn_hidden_size", model.moe.shared_expert_ffn_hidden_size);
  moe->read_count("first_dense_layers", model.moe.first_dense_layers);
  moe->read("layer_interval", model.moe.layer_interval);
  moe->read_choice("router_scoring", model.moe.router_scoring, kRouterScorings);
  moe->read_count("router_groups", model.moe.router_groups);
  moe->read_count("router_group_top_k", model.moe.router_group_top_k);
  moe->read("capacity_factor", model.moe.capacity_factor, NumberRule::positive);
  return complete;
}

//! The `mla:` mapping; as for `moe:`, the ranks and head sizes are required without a base that has them.
bool read_mla(MappingReader& reader, ModelSpec& model) {
  std::optional<MappingReader> mla = reader.child("mla");
  if (!mla) {
    return true;
  }
  mla->reject_unknown_keys({"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
  const bool complete =
      model.mla.enabled() || require_all(*mla, {"kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
  mla->read_count("q_lora_rank", model.mla.q_lora_rank);
  mla->read("kv_lora_rank", model.mla.kv_lora_rank);
  mla->read("qk_nope_head_dim", model.mla.qk_nope_head_dim);
  mla->read("qk_rope_head_dim", model.mla.qk_rope_head_dim);
  mla->read("v_head_dim", model.mla.v_head_dim);
  return complete;
}

//! The `mamba:` mapping of a hybrid model's Mamba-2 layers; every field is required without a base
//! that has them.
void read_mamba(MappingReader& reader, ModelSpec& model) {
  std::optional<MappingReader> mamba = reader.child("mamba");
  if (!mamba) {
    return;
  }
  const std::initializer_list<std::string_view> keys = {"num_heads",  "groups",      "head_dim",
                                                        "state_size", "conv_kernel", "chunk_size"};
  mamba->reject_unknown_keys(keys);
  if (!model.mamba.enabled()) {
    mamba->require(keys);
  }
  mamba->read("num_heads", model.mamba.num_heads);
  mamba->read("groups", model.mamba.groups);
  mamba->read("head_dim", model.mamba.head_dim);
  mamba->read("state_size", model.mamba.state_size);
  mamba->read("conv_kernel", model.mamba.conv_kernel);
  mamba->read("chunk_size", model.mamba.chunk_size);
}

//! Rules across the fields of `moe:` and `mla:`, reported at their key once the whole file is read.
void check_experts(MappingReader& reader, const ModelSpec& model) {
  for (const auto& problem : model::moe_problems(model)) {
    reader.report(reader.has("moe") ? "moe" : "architecture", problem);
  }
}

void check_latent_attention(MappingReader& reader, const ModelSpec& model) {
  for (const auto& problem : model::mla_problems(model)) {
    reader.report(reader.has("mla") ? "mla" : "architecture", problem);
  }
}

//! A field the file leaves out follows the fields it derives from, unless the base set it to
//! something else on purpose (Llama's FFN size is not 8h/3, so `hidden_size: 2048` over a Llama
//! base keeps its FFN size).
void derive_unset_fields(MappingReader& reader, const ModelSpec* base, ModelSpec& model) {
  if (!reader.has("num_kv_heads") && (base == nullptr || base->num_kv_heads == base->num_attention_heads)) {
    model.num_kv_heads = model.num_attention_heads;
  }
  if (!reader.has("ffn_hidden_size") && (base == nullptr || base->ffn_hidden_size == default_ffn_hidden_size(*base))) {
    if (model.hidden_size > model::kLargestDimension) {  // 4h would not fit an int
      reader.report("hidden_size", "expected at most " + std::to_string(model::kLargestDimension) +
                                       " (the largest model dimension distsim computes with), got " +
                                       std::to_string(model.hidden_size));
    } else {
      model.ffn_hidden_size = static_cast<int>(default_ffn_hidden_size(model));
    }
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
  reader.reject_unknown_keys({"name",
                              "description",
                              "source",
                              "base",
                              "architecture",
                              "num_layers",
                              "decoder_num_layers",
                              "hidden_size",
                              "num_attention_heads",
                              "num_kv_heads",
                              "kv_channels",
                              "ffn_hidden_size",
                              "ffn_type",
                              "norm",
                              "position_embedding",
                              "vocab_size",
                              "seq_length",
                              "decoder_seq_length",
                              "tie_embeddings",
                              "linear_biases",
                              "qkv_bias",
                              "qk_norm",
                              "moe",
                              "mla",
                              "mtp_layers",
                              "sliding_window",
                              "window_layers",
                              "window_start_layer",
                              "attention_sinks",
                              "nope_layer_interval",
                              "qk_l2_norm",
                              "attention_chunk_size",
                              "hybrid_pattern",
                              "mamba"});
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
  const bool experts_read = read_moe(reader, model);
  const bool latent_attention_read = read_mla(reader, model);
  reader.read("hybrid_pattern", model.hybrid_pattern);
  read_mamba(reader, model);
  derive_unset_fields(reader, base, model);
  if (experts_read) {
    check_experts(reader, model);
  }
  if (latent_attention_read) {
    check_latent_attention(reader, model);
  }
  return model;
}

}  // namespace distsim::io
