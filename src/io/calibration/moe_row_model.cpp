#include "io/calibration/moe_row_model.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>

#include "catalog/builtin_models.hpp"
#include "core/closest_name.hpp"
#include "core/plain_text.hpp"
#include "io/calibration/published_field.hpp"
#include "model/ffn_type.hpp"

namespace distsim::io {

namespace {

//! A row's model name, matched whole and ignoring case with its remarks ("(w/o MTP)" changes the
//! model), and the built-in model it names.
struct RowModelName {
  std::string_view spelling;
  std::string_view builtin;      //!< empty: refused
  std::string_view arch_family;  //!< what the arch text starts with
  int mtp_layers;                //!< -1: the built-in model's
  std::string_view refused_because;
  //! The table's activation text for a variant priced as the built-in model's ffn_type (lowercase,
  //! whole); empty: the column must name the ffn_type itself.
  std::string_view activation_variant = "";
};

// Megatron-Bridge 25.11 performance summary names (Megatron-Bridge docs/performance-summary.md).
constexpr RowModelName kRowModels[] = {
    {"qwen3_30b_a3b", "qwen3-30b-a3b", "qwen3-moe", -1, ""},
    {"qwen3_235b_a22b", "qwen3-235b-a22b", "qwen3-moe", -1, ""},
    {"deepseekv3 (w/ mtp)", "deepseek-v3", "deepseek-v3", -1, ""},
    {"deepseekv3 (w/o mtp)", "deepseek-v3", "deepseek-v3", 0, ""},
    {"gpt oss 120b", "gpt-oss-120b", "gpt-oss", -1, "", "gated (clamped swiglu-like, quick-gelu gate, glu offset 1.0)"},
};

//! A row that does not describe its built-in model; caught by read_moe_row_model.
struct Disagreement {
  std::string reason;
};

class ModelCheck {
 public:
  ModelCheck(const std::function<std::string(std::string_view)>& column, const model::ModelSpec& model,
             std::string_view activation_variant)
      : column_(column), model_(model), activation_variant_(activation_variant) {}

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
    const std::string activation = read_published_field(column_("ffn_activation")).value;
    if (activation != model::ffn_type_name(model_.ffn_type) && !is_priced_variant()) {
      throw Disagreement{"ffn_activation '" + column_("ffn_activation") + "' disagrees with built-in model '" +
                         model_.name + "' (ffn_type " + std::string(model::ffn_type_name(model_.ffn_type)) + ")"};
    }
  }

  bool is_priced_variant() const {
    return !activation_variant_.empty() && lowercase(trimmed(column_("ffn_activation"), " ")) == activation_variant_;
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

  //! The facts the arch text states ("head_dim 128", "QK-layernorm", "kv_lora 512") must be the
  //! built-in model's.
  void check_architecture(std::string_view family) const {
    const std::string arch = lowercase(column_("arch"));
    if (arch.rfind(family, 0) != 0) {
      throw Disagreement{"arch '" + column_("arch") + "' does not name the family of built-in model '" + model_.name +
                         "' (" + std::string(family) + ")"};
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
  std::string_view activation_variant_;
};

std::vector<std::string> known_names() {
  std::vector<std::string> names;
  for (const auto& name : kRowModels) names.emplace_back(name.spelling);
  return names;
}

}  // namespace

MoeRowModel read_moe_row_model(const std::function<std::string(std::string_view)>& column) {
  const std::string name = lowercase(trimmed(column("model"), " "));
  const auto found = std::find_if(std::begin(kRowModels), std::end(kRowModels),
                                  [&](const RowModelName& known) { return known.spelling == name; });
  MoeRowModel read;
  if (found == std::end(kRowModels)) {
    read.refused_because = "model '" + column("model") +
                           "' is not a mixture-of-experts model the calibration reader knows; the closest it knows "
                           "is '" +
                           closest_name(name, known_names()) + "'";
    return read;
  }
  if (found->builtin.empty()) {
    read.refused_because = std::string(found->refused_because);
    return read;
  }
  model::ModelSpec model = catalog::find_model(found->builtin);
  if (found->mtp_layers >= 0) model.mtp_layers = found->mtp_layers;
  try {
    const ModelCheck check(column, model, found->activation_variant);
    check.check_architecture(found->arch_family);
    check.check_shape();
    check.check_experts();
    model.seq_length = check.leading_integer("seq_len").value_or(0);
    if (model.seq_length <= 0) throw Disagreement{"missing seq_len"};
    if (check.is_priced_variant()) {
      read.assumptions.push_back("ffn_activation '" + column("ffn_activation") + "' priced as " +
                                 std::string(model::ffn_type_name(model.ffn_type)) +
                                 " (the same elementwise bytes; the clamp and the offset are not priced)");
    }
  } catch (const Disagreement& disagreement) {
    read.refused_because = disagreement.reason;
    return read;
  }
  read.assumptions.push_back("model=" + model.name + " (the built-in model the row names, agreeing with every " +
                             "column that describes it; what the table leaves out, such as the router's scoring " +
                             "and the untied output layer, is the built-in model's)");
  read.model = std::move(model);
  return read;
}

}  // namespace distsim::io
