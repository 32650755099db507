#include "io/spec/hf_config_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/name_match.hpp"
#include "model/ffn_type.hpp"

namespace distsim::io {

namespace {

using model::Architecture;
using model::FfnType;
using model::ModelSpec;
using model::NormType;
using model::PositionEmbedding;

//! The transformer layouts the Hugging Face model types share.
enum class HfFamily {
  gpt2,
  bert,
  llama,
  llama4,
  t5,
  mixtral,
  qwen2,
  qwen3,
  qwen3_moe,
  deepseek_v3,
  nemotron,
  nemotron_h,
  gpt_oss
};

struct ModelType {
  std::string_view name;
  HfFamily family;
};

const std::vector<ModelType> kModelTypes = {
    {"bert", HfFamily::bert},         {"deepseek_v3", HfFamily::deepseek_v3}, {"gpt2", HfFamily::gpt2},
    {"gpt_oss", HfFamily::gpt_oss},   {"kimi_k2", HfFamily::deepseek_v3},     {"llama", HfFamily::llama},
    {"llama4", HfFamily::llama4},     {"mistral", HfFamily::llama},           {"mixtral", HfFamily::mixtral},
    {"nemotron", HfFamily::nemotron}, {"nemotron_h", HfFamily::nemotron_h},   {"qwen2", HfFamily::qwen2},
    {"qwen3", HfFamily::qwen3},       {"qwen3_moe", HfFamily::qwen3_moe},     {"t5", HfFamily::t5},
};
constexpr std::string_view kSupported =
    "supported: bert, deepseek_v3, gpt2, gpt_oss, kimi_k2, llama, llama4, mistral, mixtral, nemotron, nemotron_h, "
    "qwen2, qwen3, qwen3_moe, t5";

//! How a family told apart by its key names is named in messages.
constexpr std::string_view kInferred = " (inferred from the keys: the file has no model_type)";

//! The keys by which Hugging Face configs of other model types declare routed experts. On a
//! dense model type they mean a mixture-of-experts model read as if it were dense.
const std::vector<std::string_view> kExpertKeys = {"num_local_experts", "num_experts", "n_routed_experts",
                                                   "moe_intermediate_size"};

// T5's relu and gelu MLPs have one up-projection; the gated ones (T5 v1.1) have two. SiLU-gated
// is SwiGLU.
const std::vector<Choice<FfnType>> kT5FeedForward = {
    {"relu", FfnType::relu},
    {"gelu", FfnType::gelu},
    {"gated-gelu", FfnType::geglu},
    {"gated-silu", FfnType::swiglu},
};

//! Hugging Face writes null for unset optional fields; those keep the family's default.
template <class Value>
void read_if_set(MappingReader& reader, std::string_view key, Value& out) {
  if (reader.has_value(key)) {
    reader.read(key, out);
  }
}

std::optional<HfFamily> family_of(MappingReader& reader, std::string& model_type) {
  if (reader.has("model_type")) {
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
    model_type = "gpt2" + std::string(kInferred);
    return HfFamily::gpt2;
  }
  if (reader.has("d_model")) {
    model_type = "t5" + std::string(kInferred);
    return HfFamily::t5;
  }
  if (reader.has("num_key_value_heads") || reader.has("rms_norm_eps")) {
    model_type = "llama" + std::string(kInferred);
    return HfFamily::llama;
  }
  if (reader.has("num_hidden_layers")) {
    model_type = "bert" + std::string(kInferred);
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
  if (model.hidden_size <= model::kLargestDimension) {  // validation refuses a larger one; 4h would not fit an int
    model.ffn_hidden_size = 4 * model.hidden_size;
  }
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

//! Llama's MLP is gated, down(act(gate(x)) * up(x)) (transformers' LlamaMLP): hidden_act silu
//! is SwiGLU, a GELU is GeGLU; any other activation is refused rather than priced as SwiGLU.
void read_gated_activation(MappingReader& reader, ModelSpec& model) {
  if (!reader.has_value("hidden_act")) return;
  const std::string act = reader.text_of("hidden_act");
  const model::FfnTypeInfo* named = model::find_ffn_type(act);
  if (same_name(act, "silu") || same_name(act, "swish")) {
    model.ffn_type = FfnType::swiglu;
  } else if (named != nullptr && named->type == FfnType::gelu) {
    model.ffn_type = FfnType::geglu;
  } else {
    reader.report("hidden_act", "expected silu (a gated MLP: SwiGLU) or gelu (GeGLU), got '" + act + "'");
  }
}

void read_llama(MappingReader& reader, ModelSpec& model, bool reads_activation = true) {
  model.ffn_type = FfnType::swiglu;
  if (reads_activation) read_gated_activation(reader, model);
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

//! A key whose value changes the computation in a way distsim does not model: the config is
//! refused at that key rather than simulated as something else.
void refuse_if_set(MappingReader& reader, std::string_view key, std::string_view why) {
  if (reader.has_value(key) && reader.text_of(key) != "false") {
    reader.report(key, std::string(why));
  }
}

//! Experts declared under a dense model type (a Mixtral config relabelled "mistral", say).
void refuse_expert_keys(MappingReader& reader, const std::string& model_type) {
  for (const std::string_view key : kExpertKeys) {
    if (reader.has_value(key)) {
      reader.report(key, "declares routed experts, but model_type '" + model_type +
                             "' is a dense model and its experts would be ignored; set the model_type of the "
                             "mixture-of-experts model (mixtral, qwen3_moe, deepseek_v3 or gpt_oss)");
    }
  }
}

//! Sliding-window attention is not modelled: a window that reaches back fewer tokens than the
//! sequence changes the attention's cost, one that covers the whole sequence does not.
void refuse_sliding_window(MappingReader& reader, const ModelSpec& model) {
  if (!reader.has_value("sliding_window")) {
    return;
  }
  int window = 0;
  if (reader.read("sliding_window", window) && window < model.seq_length) {
    reader.report("sliding_window", "sliding-window attention over " + std::to_string(window) +
                                        " tokens, shorter than the sequence " + std::to_string(model.seq_length) +
                                        ", is not modelled (distsim computes full causal attention)");
  }
}

//! Biases on the attention or MLP projections of a Llama-like model; Qwen2's QKV bias is its own flag.
void refuse_projection_biases(MappingReader& reader) {
  refuse_if_set(reader, "attention_bias", "biases on the Q, K, V and output projections are not modelled");
  refuse_if_set(reader, "mlp_bias", "biases on the MLP projections are not modelled");
}

//! Mistral and Mixtral attend within `sliding_window` keys in every layer (Mistral 7B, arXiv
//! 2310.06825 §2); null means full attention.
void read_every_layer_window(MappingReader& reader, ModelSpec& model) {
  if (reader.has_value("sliding_window")) {
    reader.read_count("sliding_window", model.sliding_window);
    model.window_layers = model::WindowLayers::all;
  }
}

//! Which layers of `layer_types` attend within the window: every one, every even or every odd one
//! (0-based), either from layer 0 or from the first sliding layer on; nullopt for another pattern.
std::optional<std::pair<model::WindowLayers, int>> window_pattern_of(const std::vector<bool>& sliding) {
  const int first = static_cast<int>(std::find(sliding.begin(), sliding.end(), true) - sliding.begin());
  const auto matches = [&](int start, auto rule) {
    for (std::size_t i = 0; i < sliding.size(); ++i) {
      if (sliding[i] != (static_cast<int>(i) >= start && rule(i))) {
        return false;
      }
    }
    return true;
  };
  for (const int start : {0, first}) {
    if (matches(start, [](std::size_t) { return true; })) return std::pair{model::WindowLayers::all, start};
    if (matches(start, [](std::size_t i) { return i % 2 == 0; })) return std::pair{model::WindowLayers::even, start};
    if (matches(start, [](std::size_t i) { return i % 2 == 1; })) return std::pair{model::WindowLayers::odd, start};
  }
  return std::nullopt;
}

//! `layer_types` ("sliding_attention" or "full_attention" per layer) with `sliding_window`, as
//! transformers writes them for GPT-OSS and, since it derives them, for Qwen2 and Qwen3.
void read_layer_types_window(MappingReader& reader, ModelSpec& model) {
  reader.require({"layer_types"});
  const YAML::Node types = reader.value("layer_types");
  if (!types.IsDefined()) {
    return;
  }
  if (!types.IsSequence() || static_cast<int>(types.size()) != model.num_layers) {
    reader.report("layer_types", "expected a list of num_hidden_layers = " + std::to_string(model.num_layers) +
                                     " entries, each 'sliding_attention' or 'full_attention'");
    return;
  }
  std::vector<bool> sliding;
  for (const auto& entry : types) {
    const std::string text = entry.IsScalar() ? entry.Scalar() : "";
    if (text != "sliding_attention" && text != "full_attention") {
      reader.report("layer_types",
                    "expected 'sliding_attention' or 'full_attention' for each layer, got '" + text + "'");
      return;
    }
    sliding.push_back(text == "sliding_attention");
  }
  if (std::none_of(sliding.begin(), sliding.end(), [](bool s) { return s; })) {
    model.sliding_window = 0;
    return;
  }
  reader.require({"sliding_window"});
  if (!reader.read("sliding_window", model.sliding_window)) {
    return;
  }
  const auto pattern = window_pattern_of(sliding);
  if (!pattern) {
    reader.report("layer_types", "sliding-window layers other than every layer, every even or every odd layer "
                                 "(from layer 0 or from the first sliding layer on) are not modelled");
    return;
  }
  model.window_layers = pattern->first;
  model.window_start_layer = pattern->second;
}

//! Qwen2 and Qwen3 (transformers' Qwen2Config, Qwen3Config, Qwen3MoeConfig): with
//! use_sliding_window true, layer i attends within sliding_window keys when i >=
//! max_window_layers; a config that lists layer_types says it per layer instead.
void read_qwen_window(MappingReader& reader, ModelSpec& model) {
  if (reader.has_value("layer_types")) {
    read_layer_types_window(reader, model);
    return;
  }
  if (!reader.has_value("use_sliding_window") || reader.text_of("use_sliding_window") != "true") {
    return;  // transformers' default: use_sliding_window false, every layer attends fully
  }
  reader.require({"sliding_window", "max_window_layers"});
  if (!reader.has_value("sliding_window") || !reader.has_value("max_window_layers")) {
    return;
  }
  reader.read_count("sliding_window", model.sliding_window);
  reader.read_count("max_window_layers", model.window_start_layer);
  model.window_layers = model::WindowLayers::all;
  if (model.window_start_layer >= model.num_layers) {
    model.sliding_window = 0;  // no layer reaches max_window_layers
    model.window_start_layer = 0;
  }
}

void read_llama_family(MappingReader& reader, ModelSpec& model, const std::string& model_type) {
  read_llama(reader, model, model_type != "nemotron");  // Nemotron's MLP is not gated: relu2 below
  refuse_expert_keys(reader, model_type);
  refuse_projection_biases(reader);
  if (model_type == "mistral") {
    read_every_layer_window(reader, model);
  } else {
    refuse_sliding_window(reader, model);
  }
}

//! Mixtral (arXiv 2401.04088): Mistral's layers with a softmax top-k router over
//! num_local_experts experts of intermediate_size in every layer.
void read_mixtral(MappingReader& reader, ModelSpec& model) {
  read_llama(reader, model);
  refuse_projection_biases(reader);
  read_every_layer_window(reader, model);
  reader.require({"num_local_experts", "num_experts_per_tok"});
  reader.read("num_local_experts", model.moe.num_experts);
  reader.read("num_experts_per_tok", model.moe.top_k);
  model.moe.expert_ffn_hidden_size = model.ffn_hidden_size;
}

//! Qwen2 and Qwen2.5 are Llama with biases on Q, K and V (Qwen2 technical report, arXiv 2407.10671 §2.1).
void read_qwen2(MappingReader& reader, ModelSpec& model) {
  read_llama(reader, model);
  refuse_expert_keys(reader, "qwen2");
  refuse_projection_biases(reader);
  read_qwen_window(reader, model);
  model.qkv_bias = true;
}

//! Qwen3 drops Qwen2's QKV bias and adds QK-norm (Qwen3 technical report, arXiv 2505.09388 §2).
void read_qwen3(MappingReader& reader, ModelSpec& model, const std::string& model_type) {
  read_llama(reader, model);
  refuse_projection_biases(reader);
  read_qwen_window(reader, model);
  model.qk_norm = true;
  if (model_type == "qwen3") {
    refuse_expert_keys(reader, model_type);
  }
}

//! Qwen3-MoE: layer i has experts when (i + 1) % decoder_sparse_step == 0 and i is not in
//! mlp_only_layers (transformers' Qwen3MoeDecoderLayer); no shared expert.
void read_qwen3_moe(MappingReader& reader, ModelSpec& model) {
  read_qwen3(reader, model, "qwen3_moe");
  reader.require({"num_experts", "num_experts_per_tok", "moe_intermediate_size"});
  reader.read("num_experts", model.moe.num_experts);
  reader.read("num_experts_per_tok", model.moe.top_k);
  reader.read("moe_intermediate_size", model.moe.expert_ffn_hidden_size);
  read_if_set(reader, "decoder_sparse_step", model.moe.layer_interval);
  const YAML::Node dense_layers = reader.value("mlp_only_layers");
  if (dense_layers.IsDefined() && !dense_layers.IsNull() && dense_layers.size() > 0) {
    reader.report("mlp_only_layers", "a list of dense layers among the MoE layers is not modelled (distsim takes "
                                     "the first n layers dense, then every decoder_sparse_step-th layer MoE)");
  }
}

//! DeepSeek-V3 (arXiv 2412.19437 §2): multi-head latent attention, the first first_k_dense_replace
//! layers dense, then every layer with n_routed_experts routed and n_shared_experts shared experts
//! of moe_intermediate_size, a sigmoid router restricted to topk_group of n_group expert groups,
//! and num_nextn_predict_layers MTP modules.
void read_deepseek_v3(MappingReader& reader, ModelSpec& model) {
  read_llama(reader, model);
  refuse_projection_biases(reader);
  reader.require({"n_routed_experts", "num_experts_per_tok", "moe_intermediate_size", "kv_lora_rank",
                  "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
  reader.read("n_routed_experts", model.moe.num_experts);
  reader.read("num_experts_per_tok", model.moe.top_k);
  reader.read("moe_intermediate_size", model.moe.expert_ffn_hidden_size);
  if (reader.has_value("n_shared_experts")) {
    reader.read_count("n_shared_experts", model.moe.shared_experts);
    model.moe.shared_expert_ffn_hidden_size = model.moe.expert_ffn_hidden_size;
  }
  if (reader.has_value("first_k_dense_replace")) {
    reader.read_count("first_k_dense_replace", model.moe.first_dense_layers);
  }
  if (reader.has_value("moe_layer_freq") && reader.text_of("moe_layer_freq") != "1") {
    reader.report("moe_layer_freq", "MoE layers at every moe_layer_freq-th layer counted from layer 0 are not "
                                    "modelled; expected 1 (every layer after the first_k_dense_replace dense ones)");
  }
  if (reader.has_value("scoring_func")) {
    reader.read_choice("scoring_func", model.moe.router_scoring,
                       std::vector<Choice<model::RouterScoring>>{{"softmax", model::RouterScoring::softmax},
                                                                 {"sigmoid", model::RouterScoring::sigmoid}});
  }
  if (reader.has_value("n_group") && reader.has_value("topk_group")) {
    reader.read("n_group", model.moe.router_groups);
    reader.read("topk_group", model.moe.router_group_top_k);
  }
  if (reader.has_value("q_lora_rank")) {
    reader.read_count("q_lora_rank", model.mla.q_lora_rank);
  }
  reader.read("kv_lora_rank", model.mla.kv_lora_rank);
  reader.read("qk_nope_head_dim", model.mla.qk_nope_head_dim);
  reader.read("qk_rope_head_dim", model.mla.qk_rope_head_dim);
  reader.read("v_head_dim", model.mla.v_head_dim);
  model.kv_channels = model.mla.qk_head_dim();
  if (reader.has_value("num_nextn_predict_layers")) {
    reader.read_count("num_nextn_predict_layers", model.mtp_layers);
  }
}

//! Nemotron-4 (transformers' NemotronConfig): Llama's key names with a LayerNorm, a squared-ReLU
//! MLP (hidden_act relu2) and no biases; RoPE over partial_rotary_factor of each head, priced as
//! full RoPE (the kernel reads and writes whole heads).
void read_nemotron(MappingReader& reader, ModelSpec& model) {
  read_llama_family(reader, model, "nemotron");
  model.norm = NormType::layernorm;
  model.linear_biases = false;
  model.ffn_type = FfnType::squared_relu;
  if (reader.has_value("hidden_act")) {
    reader.read_choice("hidden_act", model.ffn_type, std::vector<Choice<FfnType>>{{"relu2", FfnType::squared_relu}});
  }
}

//! GPT-OSS (transformers' GptOssConfig; model card arXiv 2508.10925 §2): Llama's key names, every
//! layer MoE with num_local_experts experts of intermediate_size, biases on the attention
//! projections (attention_bias), the experts and the router, a learned sink per query head, and
//! sliding-window attention on the layers `layer_types` names. Its clamped SwiGLU (swiglu_limit)
//! is priced as swiglu: the same bytes through the same elementwise kernel.
void read_gpt_oss(MappingReader& reader, ModelSpec& model) {
  read_llama(reader, model, false);  // its own check below
  if (reader.has_value("attention_bias") && reader.text_of("attention_bias") == "false") {
    reader.report("attention_bias", "attention projections without biases beside the biased experts and router "
                                    "are not modelled (distsim puts biases on every linear layer or none)");
  }
  model.linear_biases = true;
  model.attention_sinks = true;
  reader.require({"num_local_experts", "num_experts_per_tok"});
  reader.read("num_local_experts", model.moe.num_experts);
  reader.read("num_experts_per_tok", model.moe.top_k);
  model.moe.expert_ffn_hidden_size = model.ffn_hidden_size;
  read_layer_types_window(reader, model);
  if (reader.has_value("hidden_act") && reader.text_of("hidden_act") != "silu") {
    reader.report("hidden_act", "expected 'silu' (GPT-OSS's gated SiLU), got '" + reader.text_of("hidden_act") + "'");
  }
}

//! A per-layer list under `key` that is not `derived` (from `interval`) is not modelled.
void refuse_other_layer_list(MappingReader& reader, std::string_view key, const std::vector<int>& derived,
                             std::string_view interval) {
  const YAML::Node listed = reader.value(key);
  if (!listed.IsDefined() || listed.IsNull() || (listed.IsSequence() && listed.size() == 0)) {
    return;
  }
  bool same = listed.IsSequence() && listed.size() == derived.size();
  for (std::size_t i = 0; same && i < derived.size(); ++i) {
    same = listed[i].IsScalar() && listed[i].Scalar() == std::to_string(derived[i]);
  }
  if (!same) {
    reader.report(key, "a per-layer list other than the one " + std::string(interval) +
                           " gives is not modelled; distsim places the layers by the interval");
  }
}

//! Llama 4 (transformers' Llama4TextConfig under a Llama4Config's text_config; the early-fusion
//! vision tower and its projector are left out): Llama's key names; every
//! interleave_moe_layer_step-th layer MoE, num_local_experts experts of intermediate_size with a
//! sigmoid top-num_experts_per_tok router and one shared expert of the same size, the other layers
//! a dense MLP of intermediate_size_mlp; every no_rope_layer_interval-th layer without RoPE (iRoPE),
//! use_qk_norm a scale-free QK norm on the others; attention in chunks of attention_chunk_size.
void read_llama4_text(MappingReader& reader, ModelSpec& model) {
  read_llama(reader, model);
  refuse_projection_biases(reader);
  reader.require({"num_local_experts", "num_experts_per_tok", "intermediate_size_mlp"});
  reader.read("num_local_experts", model.moe.num_experts);
  reader.read("num_experts_per_tok", model.moe.top_k);
  model.moe.expert_ffn_hidden_size = model.ffn_hidden_size;
  model.moe.shared_experts = 1;
  model.moe.shared_expert_ffn_hidden_size = model.ffn_hidden_size;
  model.moe.router_scoring = model::RouterScoring::sigmoid;
  reader.read("intermediate_size_mlp", model.ffn_hidden_size);
  read_if_set(reader, "interleave_moe_layer_step", model.moe.layer_interval);
  model.nope_layer_interval = 4;  // Llama4TextConfig's default
  read_if_set(reader, "no_rope_layer_interval", model.nope_layer_interval);
  read_if_set(reader, "use_qk_norm", model.qk_l2_norm);
  read_if_set(reader, "attention_chunk_size", model.attention_chunk_size);
  // transformers writes out the lists it derives from the two intervals; other lists are refused.
  std::vector<int> moe_layers;
  std::vector<int> rope_layers;
  for (int layer = 0; layer < model.num_layers; ++layer) {
    if (model.moe.is_moe_layer(layer)) moe_layers.push_back(layer);
    rope_layers.push_back(model.rotates_positions(layer) ? 1 : 0);
  }
  refuse_other_layer_list(reader, "moe_layers", moe_layers, "interleave_moe_layer_step");
  refuse_other_layer_list(reader, "no_rope_layers", rope_layers, "no_rope_layer_interval");
}

void read_llama4(MappingReader& reader, ModelSpec& model) {
  reader.require({"text_config"});
  if (std::optional<MappingReader> text = reader.child("text_config")) {
    read_llama4_text(*text, model);
    read_if_set(*text, "tie_word_embeddings", model.tie_embeddings);
  }
}

//! Nemotron-H and Nemotron 3 (transformers' NemotronHConfig): a hybrid_override_pattern of Mamba-2
//! ('M'), attention ('*'), MLP ('-') and mixture-of-experts ('E') layers; RMSNorm, no position
//! embedding, squared-ReLU MLPs and experts (mlp_hidden_act relu2), no linear biases; the Mamba-2
//! mixer of mamba_num_heads heads of mamba_head_dim, n_groups groups of ssm_state_size, a
//! conv_kernel-tap convolution with its bias and scan chunks of chunk_size; experts as DeepSeek's
//! keys name them, with a sigmoid router. Latent MoE (moe_latent_size) is refused.
void read_nemotron_h(MappingReader& reader, ModelSpec& model) {
  model.norm = NormType::rmsnorm;
  model.position_embedding = PositionEmbedding::none;
  model.ffn_type = FfnType::squared_relu;
  model.linear_biases = false;
  model.tie_embeddings = false;
  reader.require({"num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size", "hybrid_override_pattern",
                  "mamba_num_heads", "mamba_head_dim", "ssm_state_size", "n_groups", "conv_kernel", "chunk_size"});
  reader.read("num_hidden_layers", model.num_layers);
  reader.read("hidden_size", model.hidden_size);
  reader.read("num_attention_heads", model.num_attention_heads);
  read_if_set(reader, "num_key_value_heads", model.num_kv_heads);
  read_if_set(reader, "attention_head_dim", model.kv_channels);
  read_if_set(reader, "head_dim", model.kv_channels);
  reader.read("vocab_size", model.vocab_size);
  reader.read("hybrid_override_pattern", model.hybrid_pattern);
  reader.read("mamba_num_heads", model.mamba.num_heads);
  reader.read("mamba_head_dim", model.mamba.head_dim);
  reader.read("ssm_state_size", model.mamba.state_size);
  reader.read("n_groups", model.mamba.groups);
  reader.read("conv_kernel", model.mamba.conv_kernel);
  reader.read("chunk_size", model.mamba.chunk_size);
  reader.require({"max_position_embeddings"});
  reader.read("max_position_embeddings", model.seq_length);
  if (reader.has_value("mlp_hidden_act")) {
    reader.read_choice("mlp_hidden_act", model.ffn_type,
                       std::vector<Choice<FfnType>>{{"relu2", FfnType::squared_relu}});
  }
  for (const char* key : {"use_bias", "mamba_proj_bias"}) {
    if (reader.has_value(key) && reader.text_of(key) != "false") {
      reader.report(key, "biases on the linear layers of a hybrid model are not modelled; expected false");
    }
  }
  if (reader.has_value("use_conv_bias") && reader.text_of("use_conv_bias") != "true") {
    reader.report("use_conv_bias", "a convolution without its bias is not modelled (Megatron-Core's MambaMixer "
                                   "asserts conv_bias); expected true");
  }
  if (model.hybrid_pattern.find('-') != std::string::npos || model.hybrid_pattern.find('E') == std::string::npos) {
    reader.require({"intermediate_size"});
  }
  read_if_set(reader, "intermediate_size", model.ffn_hidden_size);
  // NemotronHConfig writes its expert fields whether or not the pattern has E layers: only the
  // pattern says whether they are used.
  if (model.hybrid_pattern.find('E') == std::string::npos) {
    return;
  }
  refuse_if_set(reader, "moe_latent_size",
                "latent MoE (the experts on a down-projected hidden size, Nemotron 3 Super) is not modelled");
  reader.require({"n_routed_experts", "num_experts_per_tok", "moe_intermediate_size"});
  reader.read("n_routed_experts", model.moe.num_experts);
  reader.read("num_experts_per_tok", model.moe.top_k);
  reader.read("moe_intermediate_size", model.moe.expert_ffn_hidden_size);
  if (model.ffn_hidden_size <= 0) {
    model.ffn_hidden_size = model.moe.expert_ffn_hidden_size;  // no MLP layer uses it
  }
  if (reader.has_value("moe_shared_expert_intermediate_size")) {
    model.moe.shared_experts = 1;
    reader.read("moe_shared_expert_intermediate_size", model.moe.shared_expert_ffn_hidden_size);
  }
  model.moe.router_scoring = model::RouterScoring::sigmoid;
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
  reader.reject_duplicate_keys();
  ModelSpec model;
  model.name = reader.text_of("_name_or_path");
  if (model.name.empty()) {
    model.name = name_from_path(file);
  }
  std::string model_type;
  const std::optional<HfFamily> family = family_of(reader, model_type);
  if (!family) {
    return model;
  }
  switch (*family) {
    case HfFamily::gpt2:
      read_gpt2(reader, model);
      refuse_expert_keys(reader, model_type);
      break;
    case HfFamily::bert:
      read_bert(reader, model);
      refuse_expert_keys(reader, model_type);
      break;
    case HfFamily::llama: read_llama_family(reader, model, model_type); break;
    case HfFamily::llama4: read_llama4(reader, model); break;
    case HfFamily::t5:
      read_t5(reader, model);
      refuse_expert_keys(reader, model_type);
      break;
    case HfFamily::mixtral: read_mixtral(reader, model); break;
    case HfFamily::qwen2: read_qwen2(reader, model); break;
    case HfFamily::qwen3: read_qwen3(reader, model, model_type); break;
    case HfFamily::qwen3_moe: read_qwen3_moe(reader, model); break;
    case HfFamily::deepseek_v3: read_deepseek_v3(reader, model); break;
    case HfFamily::nemotron: read_nemotron(reader, model); break;
    case HfFamily::nemotron_h: read_nemotron_h(reader, model); break;
    case HfFamily::gpt_oss: read_gpt_oss(reader, model); break;
  }
  model.num_kv_heads = model.num_kv_heads > 0 ? model.num_kv_heads : model.num_attention_heads;
  read_if_set(reader, "tie_word_embeddings", model.tie_embeddings);
  model.description = "Hugging Face config " + file;
  if (family == HfFamily::llama4) {
    model.description += "; its vision encoder is left out (the text model alone)";
  }
  if (family == HfFamily::gpt_oss && reader.has_value("swiglu_limit")) {
    model.description += "; its SwiGLU clamped at swiglu_limit " + reader.text_of("swiglu_limit") +
                         " is priced as swiglu (same elementwise bytes)";
  }
  model.source = file;
  return model;
}

}  // namespace distsim::io
