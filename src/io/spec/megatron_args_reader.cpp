#include "io/spec/megatron_args_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <regex>

#include "catalog/builtin_models.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "core/name_match.hpp"
#include "core/number_text.hpp"
#include "core/plain_text.hpp"
#include "io/document/diagnostics.hpp"
#include "io/spec/launch_script.hpp"
#include "io/spec/megatron_flags.hpp"
#include "io/spec/spec_writer.hpp"
#include "model/ffn_type.hpp"
#include "options/job_option.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::io {

namespace {

using megatron::is_ignored;
using megatron::kNotModelledFlags;
using megatron::kReadTogether;
using megatron::kRenamedFlags;
using megatron::kShapeFlags;
using megatron::ShapeArg;
using megatron::ShapeFlag;

//! Reads one launch's flags into a job; collects every problem before throwing.
class MegatronReader {
 public:
  MegatronReader(std::string origin, MegatronReading reading, bool whole_job)
      : origin_(std::move(origin)),
        reading_(std::move(reading)),
        whole_job_(whole_job),
        own_diagnostics_(origin_),
        diagnostics_(reading_.diagnostics != nullptr ? *reading_.diagnostics : own_diagnostics_) {
    if (!reading_.spelled) reading_.spelled = [](std::string_view flag) { return std::string(flag); };
  }

  LaunchJob read(const std::vector<LaunchFlag>& flags) {
    for (const auto& flag : flags) {
      const std::string name = canonical(flag.flag);
      if (!values_.count(name)) order_.push_back(name);
      values_[name] = flag;  // a flag given twice: the last one, as argparse takes it
    }
    for (const auto& name : order_) read_flag(values_.at(name));
    read_attention_and_implementation();
    read_precision();
    read_recomputation();
    read_checkpoints();
    if (whole_job_) {
      read_model();
      read_world();
    }
    read_virtual_stages();
    read_schedule();
    diagnostics_.throw_if_any();
    return std::move(job_);
  }

 private:
  //! Megatron's flags use dashes, torchrun's accept underscores: the name rule's key.
  static std::string canonical(const std::string& flag) { return name_key(flag); }

  const LaunchFlag* given(std::string_view flag) const {
    const auto found = values_.find(canonical(std::string(flag)));
    return found == values_.end() ? nullptr : &found->second;
  }

  std::string where(const LaunchFlag& flag) const { return origin_ + ": " + flag.shown(); }

  void problem(const LaunchFlag& flag, const std::string& text) { diagnostics_.add(flag.line, flag.shown(), text); }

  std::string spelled(std::string_view flag) const { return reading_.spelled(flag); }

  //! A yes/no option's value: the flag's "true" or "false" where a config writes one, else true.
  static std::string switch_value(const LaunchFlag& flag) {
    return flag.words.size() == 1 && (flag.words[0] == "false" || flag.words[0] == "true") ? flag.words[0] : "true";
  }

  //! The flag's first word; a problem when it has none or holds a variable the script never set.
  std::optional<std::string> word(const LaunchFlag& flag) {
    if (flag.words.empty()) {
      problem(flag, "expected a value after the flag");
      return std::nullopt;
    }
    if (flag.words.front().find('$') != std::string::npos) {
      problem(flag, "'" + flag.words.front() + "' is a shell expression the script does not set; give its value");
      return std::nullopt;
    }
    return flag.words.front();
  }

  std::optional<int> integer(const LaunchFlag& flag) {
    const auto text = word(flag);
    if (!text) return std::nullopt;
    int value = 0;
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (error != std::errc() || end != text->data() + text->size() || value < 0) {
      problem(flag, std::string(kExpectedNonNegativeInteger) + ", got '" + *text + "'");
      return std::nullopt;
    }
    return value;
  }

  void set(const LaunchFlag& flag, std::string_view key, const std::string& text) {
    const options::ParsedValue parsed = options::parse_value(options::option(key), text);
    if (parsed.ok()) {
      job_.settings.set(key, parsed.value, where(flag));
    } else {
      problem(flag, parsed.problem);
    }
  }

  void read_flag(const LaunchFlag& flag) {
    for (const auto together : kReadTogether) {
      if (same_name(flag.flag, together)) return;
    }
    if (same_name(flag.flag, "--use-megatron-fsdp") && given("--data-parallel-sharding-strategy") != nullptr) return;
    for (const auto& renamed : kRenamedFlags) {
      if (same_name(flag.flag, renamed.flag)) {
        const options::JobOption& option = options::option(renamed.key);
        if (!renamed.value.empty()) {
          set(flag, renamed.key, std::string(renamed.value));
        } else if (option.type == options::ValueType::boolean) {
          set(flag, renamed.key, switch_value(flag));
        } else if (const auto text = word(flag)) {
          set(flag, renamed.key, *text);
        }
        return;
      }
    }
    for (const auto& shape : kShapeFlags) {
      if (!same_name(flag.flag, shape.flag)) continue;
      if (!whole_job_) problem(flag, "a flag of the model's shape, where only settings are read");
      return;  // read_model
    }
    for (const auto& known : kNotModelledFlags) {
      if (!same_name(flag.flag, known.flag)) continue;
      if (known.why.empty()) return;  // read with another flag
      if (known.refused) {
        problem(flag, std::string(known.why));
      } else {
        job_.assumptions.push_back(flag.shown() + ": " + std::string(known.why));
      }
      return;
    }
    for (const auto& option : options::job_options()) {
      if (same_name(flag.flag, option.flag)) {
        if (option.type == options::ValueType::boolean) {
          set(flag, option.key, switch_value(flag));
        } else if (const auto text = word(flag)) {
          set(flag, option.key, *text);
        }
        return;
      }
    }
    if (is_ignored(flag.flag)) {
      job_.ignored.push_back(flag.shown());
      return;
    }
    // Megatron's kernel fusions (--bias-gelu-fusion, --no-masked-softmax-fusion, --moe-permute-fusion,
    // --cross-entropy-fusion-impl, ...).
    if (name_key(flag.flag).find("fusion") != std::string::npos) {
      job_.assumptions.push_back(flag.shown() + ": kernel fusions are not modelled one by one: elementwise work is "
                                                "priced as distsim's operators");
      return;
    }
    problem(flag, "not an argument distsim reads; the closest it knows is '" +
                      spelled(closest_name(flag.flag, known_flags())) +
                      "'. A flag that changes the computation must be modelled or refused, so distsim does not "
                      "guess what it does");
  }

  static std::vector<std::string> known_flags() {
    std::vector<std::string> known;
    for (const auto& renamed : kRenamedFlags) known.emplace_back(renamed.flag);
    for (const auto& shape : kShapeFlags) known.emplace_back(shape.flag);
    for (const auto& flag : kNotModelledFlags) known.emplace_back(flag.flag);
    for (const auto flag : kReadTogether) known.emplace_back(flag);
    for (const auto& option : options::job_options()) known.push_back(option.flag);
    return known;
  }

  // --attention-backend flash, fused or auto runs a fused attention kernel (the flash option);
  // unfused and local run it as batched GEMMs and softmax. --transformer-impl transformer_engine
  // is what distsim prices; the local implementation is priced as it.
  void read_attention_and_implementation() {
    if (const LaunchFlag* backend = given("--attention-backend")) {
      if (const auto text = word(*backend)) {
        if (*text == "flash" || *text == "fused" || *text == "auto") {
          set(*backend, "attention", "flash");
        } else if (*text == "unfused" || *text == "local") {
          set(*backend, "attention", "unfused");
        } else {
          problem(*backend, "expected flash, fused, unfused, local or auto, got '" + *text + "'");
        }
      }
    }
    if (const LaunchFlag* impl = given("--transformer-impl")) {
      if (const auto text = word(*impl); text && *text != "transformer_engine") {
        job_.assumptions.push_back(impl->shown() + " " + *text + ": priced as TransformerEngine's kernels");
      }
    }
    // Which tokens an expert over its capacity drops (probs or position) does not change how many.
    if (const LaunchFlag* policy = given("--moe-token-drop-policy")) job_.ignored.push_back(policy->shown());
  }

  // Megatron-LM saves a checkpoint every --save-interval iterations when --save names where
  // (training.py: args.save and args.save_interval and iteration % args.save_interval == 0), in the
  // background with --async-save: the run's checkpoint interval and save (docs/goodput.md). --save
  // alone saves at the end of training only, which no step's time sees.
  void read_checkpoints() {
    const LaunchFlag* save = given("--save");
    const LaunchFlag* interval = given("--save-interval");
    const LaunchFlag* async = given("--async-save");
    if (save == nullptr || interval == nullptr) {
      for (const LaunchFlag* flag : {save, interval, async}) {
        if (flag != nullptr) job_.ignored.push_back(flag->shown());
      }
      if (save == nullptr && interval != nullptr) {
        job_.assumptions.push_back(interval->shown() + " without --save: Megatron-LM saves no checkpoint");
      }
      return;
    }
    if (const auto text = word(*interval)) set(*interval, "checkpoint_interval", *text);
    if (async != nullptr && switch_value(*async) == "true") set(*async, "checkpoint_save", "async");
  }

  // --fp8-format e4m3|hybrid asks for fp8 GEMMs; --fp8-recipe (read as the precision option)
  // says which scaling, per-tensor when absent (Megatron-Core's default recipe, delayed). The
  // nvfp4 GEMMs are --fp4-format e2m1 --fp4-recipe nvfp4.
  void read_precision() {
    if (const LaunchFlag* format = given("--fp8-format"); format != nullptr && !given("--fp8-recipe")) {
      if (const auto text = word(*format)) {
        if (*text == "e4m3" || *text == "hybrid") {
          set(*format, "precision", "fp8");
        } else {
          problem(*format, "expected e4m3 or hybrid, got '" + *text + "'");
        }
      }
    }
    if (const LaunchFlag* recipe = given("--fp4-recipe")) {
      if (const auto text = word(*recipe)) set(*recipe, "precision", *text);
    } else if (const LaunchFlag* format = given("--fp4-format")) {
      set(*format, "precision", "nvfp4");
    }
  }

  // --recompute-granularity full with --recompute-method uniform and --recompute-num-layers 1
  // (or with no method: every layer) reruns every layer: recompute full. Block recomputation of
  // some layers per stage and uniform groups of several layers are not modelled. Selective reruns
  // the modules --recompute-modules names (core_attn by default).
  void read_recomputation() {
    const LaunchFlag* granularity = given("--recompute-granularity");
    if (const LaunchFlag* legacy = given("--recompute-activations"); legacy != nullptr && granularity == nullptr) {
      set(*legacy, "recompute", "selective");
      return;
    }
    if (granularity == nullptr) return;
    const auto text = word(*granularity);
    if (!text) return;
    if (*text == "full") {
      read_full_recomputation(*granularity);
    } else if (*text == "selective") {
      read_recompute_modules(*granularity);
    } else {
      problem(*granularity, "expected full or selective, got '" + *text + "'");
    }
  }

  void read_full_recomputation(const LaunchFlag& granularity) {
    const LaunchFlag* method = given("--recompute-method");
    const LaunchFlag* count = given("--recompute-num-layers");
    const std::optional<std::string> how = method ? word(*method) : std::optional<std::string>("uniform");
    const std::optional<int> layers = count ? integer(*count) : std::optional<int>(1);
    if (!how || !layers) return;
    if (*how == "uniform" && *layers == 1) {
      set(granularity, "recompute", "full");
    } else {
      problem(method ? *method : granularity,
              "recompute-method " + *how + " with " + std::to_string(*layers) +
                  " layers: only full recomputation of every layer one by one (uniform, 1) is modelled");
    }
  }

  void read_recompute_modules(const LaunchFlag& granularity) {
    const LaunchFlag* modules = given("--recompute-modules");
    if (modules == nullptr) {
      set(granularity, "recompute", "selective");
      return;
    }
    if (modules->words.size() != 1) {
      problem(*modules, "recomputing " + comma_joined(modules->words) +
                            " together is not modelled; one of core_attn or mla_up_proj is");
      return;
    }
    const std::string module = modules->words.front();
    set(*modules, "recompute", module == "core_attn" ? "selective" : module);
  }

  //! The vocabulary: --vocab-size, else the caller's, else the built-in model the tokenizer names.
  std::optional<int> vocabulary_size(model::ModelSpec& model) {
    if (model.vocab_size > 0) return model.vocab_size;
    if (reading_.vocabulary) {
      if (const auto size = reading_.vocabulary()) return size;
    }
    if (const LaunchFlag* tokenizer = given("--tokenizer-model")) {
      if (const auto name = word(*tokenizer)) {
        try {
          const model::ModelSpec& named = catalog::find_model(*name);
          job_.assumptions.push_back(tokenizer->shown() + " " + *name + ": the vocabulary of built-in model " +
                                     named.name + " (" + std::to_string(named.vocab_size) + ")");
          return named.vocab_size;
        } catch (const InputError&) {
        }
      }
    }
    diagnostics_.add(0, "",
                     "the vocabulary size is not given: add " + spelled("--vocab-size") +
                         ", or name the model (--model), or a " + spelled("--tokenizer-model") +
                         " that names a built-in model");
    return std::nullopt;
  }

  //! Whether the launch gives any flag of the model's shape.
  bool gives_shape() const {
    if (reading_.activation) return true;
    return std::any_of(order_.begin(), order_.end(), [this](const std::string& name) {
      return std::any_of(std::begin(kShapeFlags), std::end(kShapeFlags),
                         [&](const ShapeArg& shape) { return same_name(values_.at(name).flag, shape.flag); });
    });
  }

  //! The model the shape flags change: Megatron-LM's defaults, or the launch's base model.
  model::ModelSpec starting_model() const {
    if (reading_.base_model) return *reading_.base_model;
    model::ModelSpec model;
    model.linear_biases = true;  // Megatron's --add-bias-linear default
    model.seq_length = 1;        // the job's seq_length (--seq-length) sets it
    return model;
  }

  void read_model() {
    if (reading_.base_model && !gives_shape()) return;  // the base model, as given
    model::ModelSpec model = starting_model();
    model.name = reading_.model_name;
    model.description = "the model of " + origin_;
    model.source = origin_;
    int query_groups = 0;
    for (const auto& name : order_) {
      const LaunchFlag& flag = values_.at(name);
      for (const auto& shape : kShapeFlags) {
        if (same_name(flag.flag, shape.flag)) read_shape_flag(flag, shape, model, query_groups);
      }
    }
    if (reading_.activation) model.ffn_type = *reading_.activation;
    if (given("--group-query-attention") != nullptr && query_groups > 0) model.num_kv_heads = query_groups;
    // An explicit head dimension that is the derived one is the derived one.
    if (model.num_attention_heads > 0 && model.kv_channels * model.num_attention_heads == model.hidden_size) {
      model.kv_channels = 0;
    }
    // --no-position-embedding drops the learned table, which rotary embeddings have none of.
    if (const LaunchFlag* none = given("--no-position-embedding");
        none != nullptr && model.position_embedding != model::PositionEmbedding::rope) {
      problem(*none, "a model without position embeddings is not modelled (with rope it has no table to drop)");
    }
    for (const auto& [flag, field] :
         {std::pair{"--num-layers", model.num_layers}, std::pair{"--hidden-size", model.hidden_size},
          std::pair{"--num-attention-heads", model.num_attention_heads}}) {
      if (field <= 0) diagnostics_.add(0, "", spelled(flag) + " is not given; a Megatron-LM job needs it");
    }
    if (model.num_kv_heads <= 0) model.num_kv_heads = model.num_attention_heads;
    if (model.ffn_hidden_size <= 0) {
      // Megatron-LM's validate_args: 4h, or with SwiGLU int(4h * 2/3 / 64) * 64.
      constexpr int kMultiple = 64;
      model.ffn_hidden_size = model::is_gated(model.ffn_type)
                                  ? static_cast<int>(4.0 * model.hidden_size * 2.0 / 3.0 / kMultiple) * kMultiple
                                  : 4 * model.hidden_size;
    }
    // Megatron-Core: an expert's FFN is --ffn-hidden-size unless --moe-ffn-hidden-size says otherwise.
    if (model.moe.enabled() && model.moe.expert_ffn_hidden_size <= 0) {
      model.moe.expert_ffn_hidden_size = model.ffn_hidden_size;
    }
    if (const auto vocabulary = vocabulary_size(model)) model.vocab_size = *vocabulary;
    if (!given("--seq-length") && !reading_.base_model) {
      diagnostics_.add(0, "", spelled("--seq-length") + " is not given; a Megatron-LM job needs it");
    }
    // Stated only where it differs from the rule a model file follows (biases with LayerNorm only).
    if (model.linear_biases == (model.norm == model::NormType::layernorm)) model.linear_biases.reset();
    job_.settings.set("model", builtin_alike(model).value_or(flow_yaml(model_json(model))), origin_);
  }

  //! The built-in model the launch's model is in every field that prices it (all but its name,
  //! description, source and sequence length, which the job sets), so that the job reads as the
  //! one named by its flags; none when no built-in model is.
  static std::optional<std::string> builtin_alike(const model::ModelSpec& model) {
    const auto shape = [](const model::ModelSpec& spec) {
      nlohmann::ordered_json json = model_json(spec);
      for (const char* key : {"name", "description", "source", "seq_length"}) json.erase(key);
      return json;
    };
    const nlohmann::ordered_json launched = shape(model);
    for (const auto& builtin : catalog::builtin_models()) {
      if (shape(builtin) == launched) return builtin.name;
    }
    return std::nullopt;
  }

  void read_shape_flag(const LaunchFlag& flag, const ShapeArg& shape, model::ModelSpec& model, int& query_groups) {
    if (!shape.takes_value) {
      read_shape_switch(shape.field, model);
      return;
    }
    if (shape.field == ShapeFlag::normalization || shape.field == ShapeFlag::position_embedding_type ||
        shape.field == ShapeFlag::moe_layer_freq || shape.field == ShapeFlag::moe_capacity_factor ||
        shape.field == ShapeFlag::moe_router_score_function) {
      read_shape_text(flag, shape.field, model);
      return;
    }
    const auto value = integer(flag);
    if (!value) return;
    const int v = *value;
    switch (shape.field) {
      case ShapeFlag::num_layers: model.num_layers = v; break;
      case ShapeFlag::hidden_size: model.hidden_size = v; break;
      case ShapeFlag::ffn_hidden_size: model.ffn_hidden_size = v; break;
      case ShapeFlag::num_attention_heads: model.num_attention_heads = v; break;
      case ShapeFlag::num_query_groups: query_groups = v; break;
      case ShapeFlag::kv_channels: model.kv_channels = v; break;
      case ShapeFlag::vocab_size: model.vocab_size = v; break;
      case ShapeFlag::num_experts: model.moe.num_experts = v; break;
      case ShapeFlag::moe_router_topk: model.moe.top_k = v; break;
      case ShapeFlag::moe_ffn_hidden_size: model.moe.expert_ffn_hidden_size = v; break;
      case ShapeFlag::moe_shared_expert_size:
        model.moe.shared_experts = 1;
        model.moe.shared_expert_ffn_hidden_size = v;
        break;
      case ShapeFlag::q_lora_rank: model.mla.q_lora_rank = v; break;
      case ShapeFlag::kv_lora_rank: model.mla.kv_lora_rank = v; break;
      case ShapeFlag::qk_head_dim: model.mla.qk_nope_head_dim = v; break;
      case ShapeFlag::qk_pos_emb_head_dim: model.mla.qk_rope_head_dim = v; break;
      case ShapeFlag::v_head_dim: model.mla.v_head_dim = v; break;
      case ShapeFlag::mtp_num_layers: model.mtp_layers = v; break;
      case ShapeFlag::moe_router_num_groups: model.moe.router_groups = v; break;
      case ShapeFlag::moe_router_group_topk: model.moe.router_group_top_k = v; break;
      default: break;
    }
  }

  static void read_shape_switch(ShapeFlag field, model::ModelSpec& model) {
    switch (field) {
      case ShapeFlag::swiglu: model.ffn_type = model::FfnType::swiglu; break;
      case ShapeFlag::squared_relu: model.ffn_type = model::FfnType::squared_relu; break;
      case ShapeFlag::untie_embeddings: model.tie_embeddings = false; break;
      case ShapeFlag::disable_bias_linear: model.linear_biases = false; break;
      case ShapeFlag::add_qkv_bias: model.qkv_bias = true; break;
      case ShapeFlag::qk_layernorm: model.qk_norm = true; break;
      default: break;  // group-query attention and latent attention are read with their sizes
    }
  }

  void read_shape_text(const LaunchFlag& flag, ShapeFlag field, model::ModelSpec& model) {
    const auto text = word(flag);
    if (!text) return;
    if (field == ShapeFlag::normalization) {
      if (same_name(*text, "LayerNorm")) {
        model.norm = model::NormType::layernorm;
      } else if (same_name(*text, "RMSNorm")) {
        model.norm = model::NormType::rmsnorm;
      } else {
        problem(flag, "expected LayerNorm or RMSNorm, got '" + *text + "'");
      }
    } else if (field == ShapeFlag::position_embedding_type) {
      if (same_name(*text, "learned_absolute")) {
        model.position_embedding = model::PositionEmbedding::learned;
      } else if (same_name(*text, "none")) {
        model.position_embedding = model::PositionEmbedding::none;
      } else if (same_name(*text, "rope") || same_name(*text, "yarn")) {
        model.position_embedding = model::PositionEmbedding::rope;
        if (same_name(*text, "yarn")) {
          job_.assumptions.push_back(flag.shown() +
                                     " yarn: priced as RoPE (YaRN scales its frequencies, the same kernel)");
        }
      } else {
        problem(flag, "expected learned_absolute, rope or yarn, got '" + *text + "'");
      }
    } else if (field == ShapeFlag::moe_layer_freq) {
      read_layer_frequency(flag, *text, model);
    } else if (field == ShapeFlag::moe_router_score_function) {
      if (*text == "softmax" || *text == "sigmoid") {
        model.moe.router_scoring = *text == "softmax" ? model::RouterScoring::softmax : model::RouterScoring::sigmoid;
      } else {
        problem(flag, "expected softmax or sigmoid, got '" + *text + "'");
      }
    } else {
      read_capacity_factor(flag, *text, model);
    }
  }

  // --moe-layer-freq: N (every N-th layer MoE) or a pattern "([0]*3+[1]*58)" of leading dense
  // layers and then MoE layers.
  void read_layer_frequency(const LaunchFlag& flag, const std::string& text, model::ModelSpec& model) {
    static const std::regex every(R"(^([0-9]+)$)");
    static const std::regex leading(R"(^\(?\[0\]\*([0-9]+)\+\[1\]\*([0-9]+)\)?$)");
    std::smatch match;
    if (std::regex_match(text, match, every)) {
      model.moe.layer_interval = std::stoi(match[1].str());
    } else if (std::regex_match(text, match, leading)) {
      model.moe.first_dense_layers = std::stoi(match[1].str());
    } else {
      problem(flag, "'" + text +
                        "' is not a layer pattern distsim models (N, or ([0]*D+[1]*M): D dense layers, "
                        "then M MoE layers)");
    }
  }

  void read_capacity_factor(const LaunchFlag& flag, const std::string& text, model::ModelSpec& model) {
    try {
      std::size_t used = 0;
      model.moe.capacity_factor = std::stod(text, &used);
      if (used != text.size() || model.moe.capacity_factor <= 0) throw std::invalid_argument(text);
    } catch (const std::exception&) {
      problem(flag, "expected a positive number, got '" + text + "'");
    }
  }

  // Megatron derives the data-parallel size from the world: torchrun's --nnodes x --nproc-per-node
  // (or the reading's world) over tp x pp x cp.
  void read_world() {
    const LaunchFlag* nodes = given("--nnodes");
    const LaunchFlag* per_node = given("--nproc-per-node");
    if (nodes == nullptr || per_node == nullptr) {
      if (reading_.world) split_world(*reading_.world, LaunchFlag{"--nodes", {}});
      return;
    }
    const auto n = integer(*nodes);
    const auto g = integer(*per_node);
    if (n && g) split_world(std::int64_t{*n} * *g, *nodes);
  }

  void split_world(std::int64_t world, const LaunchFlag& place) {
    std::int64_t model_ranks = 1;  // three sizes below 2^31: no overflow
    for (const char* key : {"tp", "pp", "cp"}) {
      if (const options::Setting* size = job_.settings.find(key)) model_ranks *= std::get<int>(size->value);
    }
    if (world == 0 || world % model_ranks != 0) {
      problem(place, "the world of " + std::to_string(world) +
                         " GPUs is not a multiple of tp x pp x cp = " + std::to_string(model_ranks));
      return;
    }
    set(place, "dp", std::to_string(world / model_ranks));
  }

  //! Megatron-Core runs 1F1B, interleaved when there are virtual stages.
  void read_schedule() {
    const options::Setting* chunks = job_.settings.find("virtual_stages");
    if (chunks == nullptr || job_.settings.has("schedule")) return;
    const int virtual_stages = std::get<int>(chunks->value);
    job_.settings.set("schedule", std::string(schedule::megatron_schedule(virtual_stages).name()), chunks->origin);
  }

  // --num-layers-per-virtual-pipeline-stage L: layers / (pp x L) chunks per stage.
  void read_virtual_stages() {
    const LaunchFlag* per_stage = given("--num-layers-per-virtual-pipeline-stage");
    if (per_stage == nullptr) return;
    const auto layers_per_chunk = integer(*per_stage);
    const LaunchFlag* layers = given("--num-layers");
    const options::Setting* pp = job_.settings.find("pp");
    if (!layers_per_chunk || layers == nullptr || *layers_per_chunk == 0) return;
    const auto total = integer(*layers);
    const int stages = pp ? std::get<int>(pp->value) : 1;
    if (!total || *total % (std::int64_t{stages} * *layers_per_chunk) != 0) {
      problem(*per_stage, "the layers do not split into pp " + std::to_string(stages) + " stages of chunks of " +
                              std::to_string(*layers_per_chunk));
      return;
    }
    set(*per_stage, "virtual_stages", std::to_string(*total / (std::int64_t{stages} * *layers_per_chunk)));
  }

  std::string origin_;
  MegatronReading reading_;
  bool whole_job_;
  std::map<std::string, LaunchFlag> values_;
  std::vector<std::string> order_;  //!< the flags' keys in the order the launch first gives them
  LaunchJob job_;
  Diagnostics own_diagnostics_;
  Diagnostics& diagnostics_;
};

}  // namespace

LaunchJob read_megatron_args(std::string_view text, const std::string& origin,
                             const std::function<std::optional<int>()>& vocabulary) {
  MegatronReading reading;
  reading.vocabulary = vocabulary;
  return MegatronReader(origin, std::move(reading), true).read(launch_flags(text));
}

LaunchJob read_megatron_flags(const std::vector<LaunchFlag>& flags, const std::string& origin,
                              const MegatronReading& reading) {
  return MegatronReader(origin, reading, true).read(flags);
}

LaunchJob read_megatron_settings(std::string_view text, const std::string& origin) {
  return MegatronReader(origin, MegatronReading{}, false).read(launch_flags(text));
}

}  // namespace distsim::io
