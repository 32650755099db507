#include "io/calibration/moe_row_model.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>

#include <fmt/format.h>

#include "catalog/builtin_models.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "core/name_match.hpp"
#include "core/plain_text.hpp"
#include "io/calibration/published_field.hpp"
#include "model/ffn_type.hpp"

namespace distsim::io {

namespace {

//! What a remark after a row's model name changes: "DeepSeekV3 (w/o MTP)" is the built-in model
//! without its multi-token prediction modules; "(tokendrop)" is the model run with token dropping,
//! as Megatron-Bridge's performance recipes turn it on (apply_moe_token_drop in
//! src/megatron/bridge/training/utils/moe_token_drop.py: capacity factor 1.0, each expert's input
//! padded to its capacity). A remark may list several, separated by commas. Any other remark is
//! refused: it may describe another model.
struct ModelRemark {
  std::string_view remark;
  int mtp_layers = -1;           //!< -1: the built-in model's
  bool states_mtp = false;       //!< the built-in model must have MTP modules
  double capacity_factor = 0.0;  //!< 0: the built-in model's routing
  bool pad_to_capacity = false;
};

constexpr ModelRemark kModelRemarks[] = {{"w/ mtp", -1, true}, {"w/o mtp", 0}, {"tokendrop", -1, false, 1.0, true}};

//! GPT-OSS's activation as published tables describe it: SwiGLU clamped at swiglu_limit with a
//! quick-GELU gate and 1.0 added to the linear half (HF GptOssExperts), priced as SwiGLU.
constexpr std::string_view kClampedSwiglu = "gated (clamped swiglu-like, quick-gelu gate, glu offset 1.0)";

//! A row that does not describe its built-in model; caught by read_moe_row_model.
struct Disagreement {
  std::string reason;
};

class ModelCheck {
 public:
  ModelCheck(const std::function<std::string(std::string_view)>& column, const model::ModelSpec& model)
      : column_(column), model_(model) {}

  //! The whole number a field starts with ("128 (MLA, ...)" gives 128); none when it is missing.
  std::optional<int> leading_integer(std::string_view name) const {
    const std::string text = column_(name);
    if (read_published_field(text).missing) return std::nullopt;
    static const std::regex number(R"(^\s*([0-9]+)(?![0-9.]))");
    std::smatch match;
    if (!std::regex_search(text, match, number)) {
      throw Disagreement{std::string(name) + " '" + text + "' is not a whole number"};
    }
    return std::stoi(match[1].str());
  }

  void expect(std::string_view name, std::optional<int> read, int builtin, std::string_view builtin_key) const {
    if (!read) throw Disagreement{"missing " + std::string(name)};
    if (*read != builtin) {
      throw Disagreement{std::string(name) + " '" + column_(name) + "' disagrees with built-in model '" + model_.name +
                         "' (" + std::string(builtin_key) + " " + std::to_string(builtin) + ")"};
    }
  }

  void expect_column(std::string_view name, int builtin, std::string_view builtin_key) const {
    expect(name, leading_integer(name), builtin, builtin_key);
  }

  void check_shape() const {
    expect_column("num_layers", model_.num_layers, "num_layers");
    expect_column("hidden_size", model_.hidden_size, "hidden_size");
    expect_column("num_attention_heads", model_.num_attention_heads, "num_attention_heads");
    expect_column("num_kv_heads", model_.num_kv_heads, "num_kv_heads");
    expect_column("vocab_size", model_.vocab_size, "vocab_size");
    const bool has_dense_layers = model_.moe.first_dense_layers > 0 || model_.moe.layer_interval > 1;
    if (has_dense_layers || leading_integer("ffn_hidden_size")) {
      expect_column("ffn_hidden_size", model_.ffn_hidden_size, "ffn_hidden_size");
    }
    const model::FfnTypeInfo* activation = model::find_ffn_type(read_published_field(column_("ffn_activation")).value);
    const bool same = activation != nullptr && activation->type == model_.ffn_type;
    if (!same && !is_priced_variant()) {
      throw Disagreement{"ffn_activation '" + column_("ffn_activation") + "' disagrees with built-in model '" +
                         model_.name + "' (ffn_type " + std::string(model::ffn_type_name(model_.ffn_type)) + ")"};
    }
  }

  bool is_priced_variant() const {
    return model_.ffn_type == model::FfnType::swiglu && same_name(column_("ffn_activation"), kClampedSwiglu);
  }

  void check_experts() const {
    const model::MoeSpec& moe = model_.moe;
    expect_column("moe_num_experts", moe.num_experts, "moe.num_experts");
    expect_column("moe_top_k", moe.top_k, "moe.top_k");
    expect_column("moe_ffn_hidden_size", moe.expert_ffn_hidden_size, "moe.expert_ffn_hidden_size");
    expect_column("moe_shared_experts", moe.shared_experts, "moe.shared_experts");
    // "1 (2048 wide)": the count, then the width of each.
    static const std::regex wide(R"(\(\s*([0-9]+) wide\s*\))");
    std::smatch match;
    const std::string shared = column_("moe_shared_experts");
    if (std::regex_search(shared, match, wide)) {
      expect("moe_shared_experts", std::stoi(match[1].str()), moe.shared_expert_ffn_hidden_size,
             "moe.shared_expert_ffn_hidden_size");
    }
    check_layer_pattern();
  }

  // Megatron-Core's --moe-layer-freq: 1 (every layer) or a per-layer list such as
  // [0]*3+[1]*58 (three dense layers, then 58 MoE layers).
  void check_layer_pattern() const {
    const PublishedField field = read_published_field(column_("moe_layer_freq"));
    static const std::regex list(R"(^\[0\]\*([0-9]+)\+\[1\]\*([0-9]+)$)");
    std::smatch match;
    int dense = 0;
    int sparse = model_.num_layers;
    if (std::regex_match(field.value, match, list)) {
      dense = std::stoi(match[1].str());
      sparse = std::stoi(match[2].str());
    } else if (field.value != "1") {
      throw Disagreement{"moe_layer_freq '" + field.text +
                         "' is not a layer pattern the calibration reader knows (1, or [0]*N+[1]*M)"};
    }
    if (dense != model_.moe.first_dense_layers || model_.moe.layer_interval != 1 ||
        dense + sparse != model_.num_layers) {
      throw Disagreement{"moe_layer_freq '" + field.text + "' disagrees with built-in model '" + model_.name + "' (" +
                         std::to_string(model_.moe.first_dense_layers) + " dense layers, then every " +
                         std::to_string(model_.moe.layer_interval) + " of " +
                         std::to_string(model_.num_layers - model_.moe.first_dense_layers) + " MoE)"};
    }
  }

  //! The arch text must name the built-in model's family, and the facts it states ("head_dim 128",
  //! "QK-layernorm", "kv_lora 512") must be the model's.
  void check_architecture() const {
    const std::string arch = lowercase(column_("arch"));
    if (model_family(split_remark(column_("arch")).name) != model_family(model_.name)) {
      throw Disagreement{"arch '" + column_("arch") + "' does not name the family of built-in model '" + model_.name +
                         "' (" + model_family(model_.name) + ")"};
    }
    const model::MlaSpec& mla = model_.mla;
    const std::pair<std::string, int> sizes[] = {{"head_dim", model_.head_dim()},   {"q_lora", mla.q_lora_rank},
                                                 {"kv_lora", mla.kv_lora_rank},     {"qk_nope", mla.qk_nope_head_dim},
                                                 {"qk_rope", mla.qk_rope_head_dim}, {"v_head", mla.v_head_dim}};
    for (const auto& [fact, builtin] : sizes) {
      const std::regex stated("(^|[^a-z_])" + fact + R"(\s+([0-9]+))");
      std::smatch match;
      if (std::regex_search(arch, match, stated) && std::stoi(match[2].str()) != builtin) {
        throw Disagreement{"arch '" + column_("arch") + "' states " + fact + " " + match[2].str() +
                           "; built-in model '" + model_.name + "' has " + std::to_string(builtin)};
      }
    }
    const bool states_qk_norm = arch.find("qk-layernorm") != std::string::npos;
    if (states_qk_norm != model_.qk_norm) {
      throw Disagreement{"arch '" + column_("arch") + "' " + (states_qk_norm ? "states" : "does not state") +
                         " QK-layernorm; built-in model '" + model_.name + "' has qk_norm " +
                         (model_.qk_norm ? "true" : "false")};
    }
    check_attention_variants(arch);
  }

 private:
  //! "sliding-window(128)" in the arch text must be the built-in model's window, and a model with
  //! a window or sinks must be described with them.
  void check_attention_variants(const std::string& arch) const {
    static const std::regex window(R"(sliding-window\(([0-9]+)\))");
    std::smatch match;
    const int stated = std::regex_search(arch, match, window) ? std::stoi(match[1].str()) : 0;
    if (stated != model_.sliding_window) {
      throw Disagreement{"arch '" + column_("arch") + "' states a sliding window of " + std::to_string(stated) +
                         "; built-in model '" + model_.name + "' has sliding_window " +
                         std::to_string(model_.sliding_window)};
    }
    const bool states_sinks = arch.find("attention sinks") != std::string::npos;
    if (states_sinks != model_.attention_sinks) {
      throw Disagreement{"arch '" + column_("arch") + "' " + (states_sinks ? "states" : "does not state") +
                         " attention sinks; built-in model '" + model_.name + "' has attention_sinks " +
                         (model_.attention_sinks ? "true" : "false")};
    }
  }

  const std::function<std::string(std::string_view)>& column_;
  const model::ModelSpec& model_;
};

//! Applies one part of a model name's remark to the row's model and settings.
void apply_remark(const std::string& text, std::string_view part, model::ModelSpec& model, MoeRowModel& read) {
  for (const auto& known : kModelRemarks) {
    if (!same_name(part, known.remark)) continue;
    if (known.mtp_layers >= 0) model.mtp_layers = known.mtp_layers;
    if (known.states_mtp && model.mtp_layers == 0) {
      throw Disagreement{"model '" + text + "' states MTP; built-in model '" + model.name + "' has none"};
    }
    if (known.capacity_factor > 0) {
      model.moe.capacity_factor = known.capacity_factor;
      read.settings.emplace_back("moe_pad_expert_input_to_capacity", known.pad_to_capacity ? "true" : "false");
      read.assumptions.push_back(fmt::format(
          "model remark '{}': token dropping as Megatron-Bridge's recipes apply it (apply_moe_token_drop): capacity "
          "factor {:.1f}{}",
          part, known.capacity_factor, known.pad_to_capacity ? ", each expert's input padded to its capacity" : ""));
    }
    return;
  }
  throw Disagreement{"model '" + text + "': the remark '" + std::string(part) +
                     "' is not one the calibration reader knows (w/ MTP, w/o MTP, tokendrop); it may describe "
                     "another model"};
}

//! The built-in model a row's model name names, changed as its remark says; Disagreement when
//! there is none.
model::ModelSpec named_model(const std::string& text, MoeRowModel& read) {
  const RemarkedName name = split_remark(text);
  model::ModelSpec model;
  try {
    model = catalog::find_model(name.name);
  } catch (const InputError&) {
    throw Disagreement{"model '" + text + "' is not a built-in model (distsim list models); did you mean '" +
                       closest_completion(name.name, catalog::model_names()) + "'?"};
  }
  if (!model.moe.enabled()) {
    throw Disagreement{"model '" + text + "' names built-in model '" + model.name + "', which has no experts"};
  }
  std::string_view remark = name.remark;
  while (!remark.empty()) {
    const auto comma = remark.find(',');
    const std::string part = trimmed(remark.substr(0, comma));
    remark = comma == std::string_view::npos ? std::string_view{} : remark.substr(comma + 1);
    apply_remark(text, part, model, read);
  }
  return model;
}

}  // namespace

std::string model_family(std::string_view name) {
  const std::string key = name_key(name);
  const auto letters =
      std::find_if(key.begin(), key.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) == 0; });
  return std::string(key.begin(), letters);
}

MoeRowModel read_moe_row_model(const std::function<std::string(std::string_view)>& column) {
  MoeRowModel read;
  try {
    model::ModelSpec model = named_model(column("model"), read);
    const ModelCheck check(column, model);
    if (!read_published_field(column("arch")).missing) check.check_architecture();
    check.check_shape();
    check.check_experts();
    model.seq_length = check.leading_integer("seq_len").value_or(0);
    if (model.seq_length <= 0) throw Disagreement{"missing seq_len"};
    if (check.is_priced_variant()) {
      read.assumptions.push_back("ffn_activation '" + column("ffn_activation") + "' priced as " +
                                 std::string(model::ffn_type_name(model.ffn_type)) +
                                 " (the same elementwise bytes; the clamp and the offset are not priced)");
    }
    read.assumptions.push_back("model=" + model.name + " (the built-in model the row names, agreeing with every " +
                               "column that describes it; what the table leaves out, such as the router's scoring " +
                               "and the untied output layer, is the built-in model's)");
    read.model = std::move(model);
  } catch (const Disagreement& disagreement) {
    read.refused_because = disagreement.reason;
  }
  return read;
}

}  // namespace distsim::io
