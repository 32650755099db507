#include "io/spec/bridge_config_reader.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "core/closest_name.hpp"
#include "core/name_match.hpp"
#include "io/document/diagnostics.hpp"
#include "io/document/document.hpp"
#include "io/spec/bridge_fields.hpp"
#include "io/spec/megatron_flags.hpp"
#include "model/ffn_type.hpp"
#include "options/job_option.hpp"

namespace distsim::io {

namespace {

template <typename Table>
bool listed(const Table& table, std::string_view name) {
  return std::find(std::begin(table), std::end(table), name) != std::end(table);
}

//! One field of a section, where the file writes it.
struct BridgeField {
  std::string section;
  std::string name;
  YAML::Node value;
  int line = 0;
  bool whole_section = false;  //!< the section's own value (mixed_precision: bf16_mixed)
  std::string place() const { return whole_section ? section : section + "." + name; }
};

std::optional<bool> as_switch(const YAML::Node& value) {
  bool decoded = false;
  if (value.IsScalar() && YAML::convert<bool>::decode(value, decoded)) return decoded;
  return std::nullopt;
}

//! Whether a value says what an absent argument says: null, false, 0.0 (a float: dropouts and
//! coefficients are off at zero), "", "none" or an empty list.
bool is_unset(const YAML::Node& value) {
  if (!value || value.IsNull()) return true;
  if (!value.IsScalar()) return value.size() == 0;
  const std::string& text = value.Scalar();
  if (text.empty() || same_name(text, "none")) return true;
  if (const auto decoded = as_switch(value)) return !*decoded;
  if (text.find_first_of(".eE") != std::string::npos) {
    char* end = nullptr;
    const double number = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size() && number == 0.0;
  }
  return false;
}

//! The last part of a `_target_` ("torch.nn.functional.silu" → "silu"), or the scalar's text.
std::string target_name(const YAML::Node& value) {
  const YAML::Node target = value.IsMap() ? value["_target_"] : value;
  if (!target || !target.IsScalar()) return "";
  const std::string& text = target.Scalar();
  const auto dot = text.rfind('.');
  return dot == std::string::npos ? text : text.substr(dot + 1);
}

//! Sections of which only some fields shape a step, and those fields; the others say what data
//! and tokens are read, or how processes find each other.
const std::map<std::string_view, std::vector<std::string_view>>& partly_read_sections() {
  static const std::map<std::string_view, std::vector<std::string_view>> sections{
      {"checkpoint", {"save", "save_interval", "async_save"}},  // the run's checkpoints (docs/goodput.md)
      {"dataset", {"sequence_length", "seq_length"}},
      {"tokenizer", {"vocab_size", "tokenizer_model"}},
      {"dist", {"use_megatron_fsdp", "use_torch_fsdp2", "use_sharp", "use_tp_pp_dp_mapping"}},
  };
  return sections;
}

class BridgeReader {
 public:
  BridgeReader(const std::string& path, BridgeContext context)
      : origin_("Megatron-Bridge config '" + path + "'"), context_(std::move(context)), diagnostics_(origin_) {}

  LaunchJob read(const YAML::Node& root) {
    collect_sections(container(root));
    std::vector<LaunchFlag> flags;
    for (const auto& field : fields_) {
      if (winner(field.name) == &field) translate(field, flags);
    }
    read_activation();
    if (!context_.recipe_model && winner("num_layers") == nullptr) {
      diagnostics_.add(0, "",
                       "the config gives no model's shape: name its recipe's model with --model (an override "
                       "file), or give the shape (model.num_layers, model.hidden_size, ...)");
    }
    LaunchJob job = read_megatron_flags(flags, origin_, reading());  // throws this reader's problems too
    job.assumptions.insert(job.assumptions.end(), assumptions_.begin(), assumptions_.end());
    job.ignored.insert(job.ignored.end(), ignored_.begin(), ignored_.end());
    return job;
  }

 private:
  //! The ConfigContainer: under its own key (as Bridge's performance configs write it) or the top level.
  YAML::Node container(const YAML::Node& root) {
    const YAML::Node wrapped = root["ConfigContainer"];
    if (!wrapped) return root;
    for (const auto& entry : root) {
      const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : describe(entry.first);
      if (key != "ConfigContainer") {
        diagnostics_.add(entry.first.Mark().line + 1, key,
                         "not part of the ConfigContainer; distsim reads the one job the ConfigContainer "
                         "describes (give other sizes as flags)");
      }
    }
    if (!wrapped.IsMap()) {
      diagnostics_.add(wrapped.Mark().line + 1, "ConfigContainer",
                       "expected a mapping of sections, got " + describe(wrapped));
      return YAML::Node(YAML::NodeType::Map);
    }
    return wrapped;
  }

  void collect_sections(const YAML::Node& sections) {
    std::map<std::string, YAML::Node> read;
    for (const auto& [key, value, line] : keyed_entries(sections, "")) {
      if (key == "_target_") continue;
      if (listed(bridge::kIgnoredSections, key)) {
        if (!is_unset(value)) ignored_.push_back(key);
      } else if (key == "peft") {
        if (!is_unset(value)) {
          diagnostics_.add(line, key,
                           "fine-tuning with adapters (PEFT, LoRA) is not modelled: distsim prices "
                           "training every weight");
        }
      } else if (listed(bridge::kReadSections, key)) {
        read[key] = value;
        if (!value.IsNull() && !value.IsMap() && !(key == "mixed_precision" && value.IsScalar())) {
          diagnostics_.add(line, key, "expected a mapping of fields, got " + describe(value));
        }
      } else {
        diagnostics_.add(line, key,
                         "not a section of a Megatron-Bridge ConfigContainer; the closest is '" +
                             closest_name(key, section_names()) + "'");
      }
    }
    for (const auto section : bridge::kReadSections) {  // in the order Bridge applies them
      const auto found = read.find(std::string(section));
      if (found == read.end()) continue;
      if (found->second.IsScalar()) {
        add_field(std::string(section), "mixed_precision", found->second, found->second.Mark().line + 1);
        fields_.back().whole_section = true;
      } else if (found->second.IsMap()) {
        for (const auto& [name, value, line] : keyed_entries(found->second, std::string(section) + ".")) {
          add_field(std::string(section), name, value, line);
        }
      }
    }
  }

  struct KeyedEntry {
    std::string key;
    YAML::Node value;
    int line;
  };

  //! A mapping's entries; a key that is not a name, or one given twice, is a problem and left out.
  std::vector<KeyedEntry> keyed_entries(const YAML::Node& mapping, const std::string& prefix) {
    std::vector<KeyedEntry> entries;
    std::map<std::string, int> first_line;
    for (const auto& entry : mapping) {
      const int line = entry.first.Mark().line + 1;
      if (!entry.first.IsScalar()) {
        diagnostics_.add(line, prefix.substr(0, prefix.empty() ? 0 : prefix.size() - 1),
                         "expected a field's name as the key, got " + describe(entry.first));
        continue;
      }
      const std::string& key = entry.first.Scalar();
      if (const auto [first, inserted] = first_line.emplace(key, line); !inserted) {
        diagnostics_.add(line, prefix + key,
                         "given twice (first at line " + std::to_string(first->second) +
                             "); each field once, so that no value is dropped unread");
        continue;
      }
      entries.push_back({key, entry.second, line});
    }
    return entries;
  }

  static std::vector<std::string> section_names() {
    std::vector<std::string> names(std::begin(bridge::kReadSections), std::end(bridge::kReadSections));
    names.insert(names.end(), std::begin(bridge::kIgnoredSections), std::end(bridge::kIgnoredSections));
    names.emplace_back("peft");
    return names;
  }

  void add_field(std::string section, const std::string& name, const YAML::Node& value, int line) {
    fields_.push_back({std::move(section), name, value, line});
    winners_[name] = fields_.size() - 1;
  }

  //! The field `name` as Bridge applies it: the one of the last section that gives it.
  const BridgeField* winner(const std::string& name) const {
    const auto found = winners_.find(name);
    return found == winners_.end() ? nullptr : &fields_[found->second];
  }

  bool is_set(std::string_view name) const {
    const BridgeField* field = winner(std::string(name));
    return field != nullptr && !is_unset(field->value);
  }

  //! Whether a field means nothing here: the config sets the field it depends on off. A parent the
  //! config leaves out is the recipe's (an override file of moe_* fields for a MoE recipe).
  bool without_its_parent(const std::string& name) const {
    for (const auto& dependent : bridge::kDependentFields) {
      if (name.rfind(dependent.prefix, 0) != 0) continue;
      bool parent_given = false;
      bool parent_set = false;
      bool is_parent = false;
      std::string_view parents = dependent.parents;
      while (!parents.empty()) {
        const auto bar = parents.find('|');
        const std::string parent(parents.substr(0, bar));
        is_parent = is_parent || parent == name;
        parent_given = parent_given || winner(parent) != nullptr;
        parent_set = parent_set || is_set(parent);
        parents = bar == std::string_view::npos ? std::string_view() : parents.substr(bar + 1);
      }
      if (!is_parent) return parent_given && !parent_set;
    }
    return false;
  }

  bool is_ignored(const BridgeField& field) const {
    if (listed(bridge::kIgnoredFields, field.name)) return true;
    const auto partly = partly_read_sections().find(field.section);
    return partly != partly_read_sections().end() && !listed(partly->second, field.name);
  }

  void translate(const BridgeField& field, std::vector<LaunchFlag>& flags) {
    if (field.name == "activation_func" || field.name == "gated_linear_unit") return;  // read_activation
    if (is_ignored(field)) {
      if (!is_unset(field.value) && field.name != "_target_") ignored_.push_back(field.place());
      return;
    }
    if (without_its_parent(field.name) || read_not_modelled(field)) return;
    if (field.name == "mixed_precision") {  // a recipe's name: bf16_mixed, bf16_with_fp8_current_scaling_mixed
      flags.push_back(flag_of(field, preset_option(field.value.Scalar()), {field.value.Scalar()}));
      return;
    }
    std::string flag = "--" + field.name;
    for (const auto& renamed : bridge::kRenamedFields) {
      if (renamed.field != field.name) continue;
      if (!renamed.when.empty()) {
        const auto value = as_switch(field.value);
        if (value && *value == (renamed.when == "true")) {
          flags.push_back(flag_of(field, std::string(renamed.flag), {}));
        } else if (recipe() != nullptr && is_shape_flag(renamed.flag)) {
          refuse_over_recipe(field);
        }
        return;
      }
      flag = renamed.flag;
    }
    if (recipe() != nullptr && field.section == "model" && is_unset(field.value) && is_shape_flag(flag)) {
      refuse_over_recipe(field);
      return;
    }
    const bool read_together = std::any_of(std::begin(megatron::kReadTogether), std::end(megatron::kReadTogether),
                                           [&](std::string_view together) { return same_name(together, flag); });
    if (!read_together && megatron::is_ignored(flag)) {  // whatever its value: an initialiser, a learning rate
      if (!is_unset(field.value)) ignored_.push_back(field.place());
      return;
    }
    if (const auto value = as_switch(field.value); value && !*value) {
      // An option distsim defaults otherwise needs its "false"; any other off switch is an absent argument.
      if (is_boolean_option(flag)) flags.push_back(flag_of(field, flag, {"false"}));
      return;
    }
    if (is_unset(field.value)) return;
    if (const auto words = words_of(field)) {
      flags.push_back(flag_of(field, flag, *words));
      // Bridge's num_query_groups is Megatron-LM's --group-query-attention with --num-query-groups.
      if (field.name == "num_query_groups") flags.push_back(flag_of(field, "--group-query-attention", {}));
    }
  }

  //! Whether the config gives the model's whole shape, which then is the model.
  bool gives_whole_shape() const {
    return winner("num_layers") != nullptr && winner("hidden_size") != nullptr &&
           winner("num_attention_heads") != nullptr;
  }

  //! The recipe's model the config changes: --model's, unless the config gives the whole shape.
  const model::ModelSpec* recipe() const {
    return context_.recipe_model && !gives_whole_shape() ? &*context_.recipe_model : nullptr;
  }

  static bool is_shape_flag(std::string_view flag) {
    return std::any_of(std::begin(megatron::kShapeFlags), std::end(megatron::kShapeFlags),
                       [&](const megatron::ShapeArg& shape) { return same_name(shape.flag, flag); });
  }

  // The flags change the recipe's model where they are set; an off value of a shape field (a
  // null, a false) would have to undo what the recipe sets, which no flag says.
  void refuse_over_recipe(const BridgeField& field) {
    diagnostics_.add(field.line, field.place(),
                     "'" + describe_value(field.value) + "' over the recipe's model (--model) is not read: give " +
                         "the model's whole shape (model.num_layers, model.hidden_size, model.num_attention_heads, "
                         "...), or leave the field to the recipe");
  }

  static std::string describe_value(const YAML::Node& value) {
    return value && value.IsScalar() ? value.Scalar() : "null";
  }

  //! A Bridge field distsim does not model: true when it is read here.
  bool read_not_modelled(const BridgeField& field) {
    for (const auto& known : bridge::kNotModelledFields) {
      if (known.field != field.name) continue;
      const bool modelled = known.modelled.empty() ? is_unset(field.value)
                                                   : field.value.IsScalar() && field.value.Scalar() == known.modelled;
      if (modelled) return true;
      if (known.refused) {
        diagnostics_.add(field.line, field.place(), std::string(known.why));
      } else {
        assumptions_.push_back(field.place() + ": " + std::string(known.why));
      }
      return true;
    }
    return false;
  }

  //! A mixed-precision recipe names the training type ("bf16_mixed") or a low-precision format
  //! beside bf16 ("bf16_with_mxfp8_mixed"): the option whose values name it.
  static std::string preset_option(const std::string& preset) {
    const options::ParsedValue dtype = options::parse_value(options::option("dtype"), preset);
    return dtype.ok() ? "--dtype" : "--precision";
  }

  static bool is_boolean_option(const std::string& flag) {
    for (const auto& option : options::job_options()) {
      if (same_name(option.flag, flag)) return option.type == options::ValueType::boolean;
    }
    return false;
  }

  LaunchFlag flag_of(const BridgeField& field, std::string flag, std::vector<std::string> words) const {
    return {std::move(flag), std::move(words), field.place(), field.line};
  }

  //! The argument's words: a scalar's text, a list's items, an enum's name; none for a switch.
  std::optional<std::vector<std::string>> words_of(const BridgeField& field) {
    const YAML::Node& value = field.value;
    if (const auto on = as_switch(value); on && *on) return std::vector<std::string>{};
    if (value.IsScalar()) return std::vector<std::string>{value.Scalar()};
    if (field.name == "attention_backend" && value.IsMap()) return attention_backend(field);
    if (field.name == "moe_layer_freq" && value.IsSequence()) return layer_pattern(field);
    if (value.IsSequence()) {
      std::vector<std::string> words;
      for (const auto& item : value) {
        if (!item.IsScalar()) break;
        words.push_back(item.Scalar());
      }
      if (words.size() == value.size()) return words;
    }
    const std::string object = target_name(value);
    diagnostics_.add(field.line, field.place(),
                     object.empty() ? "expected a value or a list of values, got " + describe(value)
                                    : "a Python object (" + object + ") where distsim reads a value; give the value");
    return std::nullopt;
  }

  //! Megatron-Core's AttnBackend by value, as Bridge writes an enum.
  std::optional<std::vector<std::string>> attention_backend(const BridgeField& field) {
    const YAML::Node args = field.value["_args_"];
    int value = 0;
    if (args && args.IsSequence() && args.size() == 1 && YAML::convert<int>::decode(args[0], value) && value > 0 &&
        value < static_cast<int>(std::size(bridge::kAttentionBackends))) {
      return std::vector<std::string>{std::string(bridge::kAttentionBackends[value])};
    }
    diagnostics_.add(
        field.line, field.place(),
        "expected Megatron-Core's AttnBackend (_args_: [1] flash ... [5] auto), got " + describe(field.value));
    return std::nullopt;
  }

  //! A list of 0 (dense) and 1 (MoE) per layer as Megatron-LM's --moe-layer-freq pattern: D
  //! leading dense layers, then M MoE layers, is "([0]*D+[1]*M)"; any other list is left as written
  //! for the argument's own refusal.
  static std::vector<std::string> layer_pattern(const BridgeField& field) {
    std::string written = "[";
    std::size_t dense = 0;
    std::size_t moe = 0;
    bool leading = true;
    for (const auto& item : field.value) {
      const std::string text = item.IsScalar() ? item.Scalar() : "?";
      written += (written.size() > 1 ? "," : "") + text;
      if (text == "0" && moe == 0) {
        ++dense;
      } else if (text == "1") {
        ++moe;
      } else {
        leading = false;
      }
    }
    if (!leading || moe == 0) return {written + "]"};
    return {"([0]*" + std::to_string(dense) + "+[1]*" + std::to_string(moe) + ")"};
  }

  //! activation_func with gated_linear_unit: the FFN's activation, when the config gives either.
  void read_activation() {
    const BridgeField* function = winner("activation_func");
    const BridgeField* gated = winner("gated_linear_unit");
    if (function == nullptr && gated == nullptr) return;
    const bool is_gated = gated != nullptr && as_switch(gated->value).value_or(false);
    const std::string name = function != nullptr ? target_name(function->value) : "gelu";  // TransformerConfig's
    const BridgeField& place = function != nullptr ? *function : *gated;
    for (const auto& activation : bridge::kActivations) {
      if (activation.function != name) continue;
      const std::string_view ffn = is_gated ? activation.gated_ffn : activation.ffn;
      if (const model::FfnTypeInfo* info = model::find_ffn_type(ffn); info != nullptr && !ffn.empty()) {
        activation_ = info->type;
        return;
      }
    }
    std::vector<std::string> known;
    for (const auto& activation : bridge::kActivations) known.emplace_back(activation.function);
    const bool named = std::find(known.begin(), known.end(), name) != known.end();
    diagnostics_.add(place.line, place.place(),
                     "'" + name + (is_gated ? "' with gated_linear_unit" : "' without gated_linear_unit") +
                         " is not an activation distsim models (it models gelu and geglu, silu gated (SwiGLU), "
                         "relu and squared_relu" +
                         (named ? ")" : "; the closest name is '" + closest_name(name, known) + "')"));
  }

  MegatronReading reading() {
    MegatronReading reading;
    if (const model::ModelSpec* base = recipe()) {
      reading.base_model = *base;
    } else if (context_.recipe_model) {
      const int vocabulary = context_.recipe_model->vocab_size;
      reading.vocabulary = [vocabulary]() -> std::optional<int> { return vocabulary; };
      assumptions_.push_back("--model " + context_.recipe_model->name +
                             ": the config gives the model's whole shape, which is the model (--model gives "
                             "its vocabulary where the config has none)");
    }
    reading.world = context_.world;
    reading.model_name = "megatron-bridge";
    reading.activation = activation_;
    reading.spelled = [this](std::string_view flag) { return spelled(flag); };
    reading.diagnostics = &diagnostics_;
    if (!context_.world && !context_.dp_given) {
      assumptions_.emplace_back("the run's GPUs are not in a Megatron-Bridge config (its launcher sets them): data "
                                "parallel size 1; give --nodes for the world, or --dp");
    }
    return reading;
  }

  //! How this config writes a Megatron-LM argument: its field, or the argument's name as a field.
  std::string spelled(std::string_view flag) const {
    for (const auto& field : fields_) {
      if (same_name("--" + field.name, flag)) return field.place();
    }
    for (const auto& renamed : bridge::kRenamedFields) {
      if (same_name(renamed.flag, flag))
        return (renamed.field == "sequence_length" ? "dataset." : "model.") + std::string(renamed.field);
    }
    std::string name(flag.substr(flag.find_first_not_of('-')));
    std::replace(name.begin(), name.end(), '-', '_');
    return (name == "seq_length" ? "dataset.sequence_length" : "model." + name);
  }

  std::string origin_;
  BridgeContext context_;
  Diagnostics diagnostics_;
  std::vector<BridgeField> fields_;
  std::map<std::string, std::size_t> winners_;
  std::optional<model::FfnType> activation_;
  std::vector<std::string> assumptions_;
  std::vector<std::string> ignored_;
};

}  // namespace

LaunchJob read_bridge_config(const std::string& path, const BridgeContext& context) {
  const Document document = load_document(path, "Megatron-Bridge config");
  return BridgeReader(path, context).read(document.root);
}

}  // namespace distsim::io
