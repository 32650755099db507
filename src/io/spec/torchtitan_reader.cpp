#include "io/spec/torchtitan_reader.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <sstream>
#include <type_traits>

#include <toml++/toml.h>

#include "catalog/builtin_models.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "core/name_match.hpp"
#include "io/document/diagnostics.hpp"
#include "options/job_option.hpp"

namespace distsim::io {

namespace {

// torchtitan's JobConfig (torchtitan/config/job_config.py): the sections and keys read, and the
// sections that do not change a step's time.
constexpr std::string_view kIgnoredSections[] = {
    "job",  "profiling",  "metrics",      "optimizer",       "lr_scheduler",
    "comm", "validation", "experimental", "fault_tolerance", "memory_estimation"};

struct SectionKeys {
  std::string_view section;
  std::vector<std::string_view> read;     //!< keys that shape the job
  std::vector<std::string_view> ignored;  //!< keys that change no step's time
};

const std::vector<SectionKeys>& read_sections() {
  static const std::vector<SectionKeys> sections{
      {"model", {"name", "flavor", "converters"}, {"tokenizer_path", "hf_assets_path", "print_after_conversion"}},
      {"training",
       {"local_batch_size", "batch_size", "global_batch_size", "seq_len", "mixed_precision_param", "compile",
        "enable_cpu_offload", "mixed_precision_reduce"},
       {"dataset", "dataset_path", "max_norm", "steps", "gc_freq", "gc_debug", "seed", "deterministic",
        "warmup_steps"}},
      {"parallelism",
       {"data_parallel_replicate_degree", "data_parallel_shard_degree", "tensor_parallel_degree",
        "pipeline_parallel_degree", "context_parallel_degree", "expert_parallel_degree",
        "expert_tensor_parallel_degree", "pipeline_parallel_schedule", "pipeline_parallel_microbatch_size",
        "pipeline_parallel_layers_per_stage", "enable_async_tensor_parallel", "fsdp_reshard_after_forward",
        "context_parallel_rotate_method", "disable_loss_parallel", "enable_compiled_autograd"},
       {"pipeline_parallel_split_points", "pipeline_parallel_schedule_csv"}},
      {"activation_checkpoint", {"mode", "selective_ac_option"}, {"per_op_sac_force_recompute_mm_shapes_by_fqns"}},
      {"float8",
       {"recipe_name", "enable_fsdp_float8_all_gather", "emulate"},
       {"precompute_float8_dynamic_scale_for_fsdp", "force_recompute_fp8_weight_in_bwd", "filter_fqns",
        "moe_fqns_prototype"}},
      {"mx", {"recipe_name"}, {"mxfp8_dim1_cast_kernel_choice", "filter_fqns"}},
      {"compile", {"enable"}, {"components", "backend"}},
      // enable was enable_checkpoint before torchtitan 2025-08; what is loaded and kept, and the
      // last save's format, change no step's time.
      {"checkpoint",
       {"enable", "enable_checkpoint", "interval", "async_mode"},
       {"folder", "initial_load_path", "initial_load_model_only", "initial_load_model_weights_only",
        "initial_load_in_hf", "initial_load_in_hf_quantized", "last_save_model_only", "last_save_model_weights_only",
        "model_weights_only", "last_save_in_hf", "export_dtype", "create_seed_checkpoint", "keep_latest_k", "load_step",
        "load_only", "exclude_from_loading", "enable_first_step_checkpoint"}},
  };
  return sections;
}

class TorchtitanReader {
 public:
  TorchtitanReader(std::string origin, TorchtitanContext context)
      : origin_(std::move(origin)), context_(context), diagnostics_(origin_) {}

  LaunchJob read(std::string_view text) {
    try {
      table_ = toml::parse(text, origin_);
    } catch (const toml::parse_error& error) {
      std::ostringstream where;
      where << origin_ << ":" << error.source().begin.line << ": " << error.description();
      throw InputError(where.str());
    }
    check_keys();
    read_model();
    read_sizes();
    read_batches();
    read_schedule();
    read_precision();
    read_recomputation();
    read_features();
    read_checkpoints();
    diagnostics_.throw_if_any();
    return std::move(job_);
  }

 private:
  static std::string key_of(std::string_view section, std::string_view key) {
    std::string text = "[";
    text.append(section).append("] ").append(key);
    return text;
  }

  std::string where(std::string_view section, std::string_view key) const {
    return origin_ + ": " + key_of(section, key);
  }

  void problem(std::string_view section, std::string_view key, const std::string& text) {
    diagnostics_.add(0, key_of(section, key), text);
  }

  //! Every section and key is one the reader reads or names as ignored.
  void check_keys() {
    std::vector<std::string> known_sections(std::begin(kIgnoredSections), std::end(kIgnoredSections));
    for (const auto& section : read_sections()) known_sections.emplace_back(section.section);
    for (const auto& [name, node] : table_) {
      const std::string section(name.str());
      if (std::find(std::begin(kIgnoredSections), std::end(kIgnoredSections), section) != std::end(kIgnoredSections)) {
        job_.ignored.push_back("[" + section + "]");
        continue;
      }
      const auto known = std::find_if(read_sections().begin(), read_sections().end(),
                                      [&](const SectionKeys& keys) { return keys.section == section; });
      if (known == read_sections().end() || !node.is_table()) {
        diagnostics_.add(
            0, "[" + section + "]",
            "not a torchtitan section distsim reads; the closest is '" + closest_name(section, known_sections) + "'");
        continue;
      }
      check_section_keys(*known, *node.as_table());
    }
  }

  void check_section_keys(const SectionKeys& keys, const toml::table& section) {
    std::vector<std::string> known(keys.read.begin(), keys.read.end());
    known.insert(known.end(), keys.ignored.begin(), keys.ignored.end());
    for (const auto& [name, node] : section) {
      const std::string key(name.str());
      if (std::find(keys.ignored.begin(), keys.ignored.end(), key) != keys.ignored.end()) {
        job_.ignored.push_back(key_of(keys.section, key));
      } else if (std::find(keys.read.begin(), keys.read.end(), key) == keys.read.end()) {
        problem(keys.section, key, "not a key distsim reads; the closest is '" + closest_name(key, known) + "'");
      }
    }
  }

  template <class T>
  std::optional<T> value(std::string_view section, std::string_view key) {
    const toml::node_view node = table_[section][key];
    if (!node) return std::nullopt;
    // toml++ converts a float to an integer unchecked (undefined past the integer's range): a
    // whole number must be written as one.
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (!node.is_integer()) {
        problem(section, key, node.is_floating_point() ? "expected a whole number, got a float" : "has the wrong type");
        return std::nullopt;
      }
    }
    if (const auto typed = node.value<T>()) return *typed;
    problem(section, key, "has the wrong type");
    return std::nullopt;
  }

  std::optional<int> integer(std::string_view section, std::string_view key) {
    const auto number = value<std::int64_t>(section, key);
    if (!number) return std::nullopt;
    if (*number < -1 || *number > std::numeric_limits<int>::max()) {
      problem(section, key, "expected a whole number from -1 to 2147483647, got " + std::to_string(*number));
      return std::nullopt;
    }
    return static_cast<int>(*number);
  }

  void set(std::string_view section, std::string_view key, std::string_view option, const std::string& text) {
    const options::ParsedValue parsed = options::parse_value(options::option(option), text);
    if (parsed.ok()) {
      job_.settings.set(option, parsed.value, where(section, key));
    } else {
      problem(section, key, parsed.problem);
    }
  }

  // [model] name and flavor name a built-in model, "llama3" "8B" as "llama3 8B".
  void read_model() {
    const std::string name = value<std::string>("model", "name").value_or("llama3");
    const std::string flavor = value<std::string>("model", "flavor").value_or("debugmodel");
    const std::string both = name + " " + flavor;
    try {
      const model::ModelSpec& model = catalog::find_model(both);
      job_.settings.set("model", model.name, where("model", "flavor"));
      layers_ = model.num_layers;
    } catch (const InputError&) {
      if (!context_.model_given) {
        problem("model", "flavor",
                "model '" + both + "' is not a built-in model (distsim list models); did you mean '" +
                    closest_completion(both, catalog::model_names()) + "'? Or name it with --model");
      }
    }
  }

  // dp_shard -1 takes what the world leaves after dp_replicate, tp, pp and cp
  // (torchtitan's ParallelDims); FSDP2 shards over dp_shard x cp ranks, replicated over
  // dp_replicate (HSDP); without sharding, replicas reduce their gradients as DDP does, bucket
  // by bucket during the backward pass.
  void read_sizes() {
    const int replicate = integer("parallelism", "data_parallel_replicate_degree").value_or(1);
    int shard = integer("parallelism", "data_parallel_shard_degree").value_or(-1);
    const int tp = integer("parallelism", "tensor_parallel_degree").value_or(1);
    const int pp = integer("parallelism", "pipeline_parallel_degree").value_or(1);
    const int cp = integer("parallelism", "context_parallel_degree").value_or(1);
    bool sizes_ok = true;
    for (const auto& [key, size] :
         {std::pair{"tensor_parallel_degree", tp}, std::pair{"pipeline_parallel_degree", pp},
          std::pair{"context_parallel_degree", cp}, std::pair{"data_parallel_replicate_degree", replicate}}) {
      if (size < 1) {
        problem("parallelism", key, "expected 1 or more, got " + std::to_string(size));
        sizes_ok = false;
      }
    }
    if (shard == 0 || shard < -1) {
      problem("parallelism", "data_parallel_shard_degree", "expected -1 or 1 or more, got " + std::to_string(shard));
      sizes_ok = false;
    }
    if (!sizes_ok) return;
    if (shard == -1) {
      const std::int64_t others = std::int64_t{replicate} * tp * pp * cp;  // each below 2^31: no overflow
      shard = others > std::numeric_limits<int>::max() ? 0 : leftover_shard_degree(static_cast<int>(others));
      if (others > std::numeric_limits<int>::max()) {
        problem("parallelism", "data_parallel_shard_degree", "the other degrees' product is larger than any job");
      }
    }
    if (shard < 1) return;
    set("parallelism", "tensor_parallel_degree", "tp", std::to_string(tp));
    set("parallelism", "pipeline_parallel_degree", "pp", std::to_string(pp));
    set("parallelism", "context_parallel_degree", "cp", std::to_string(cp));
    const std::int64_t dp = std::int64_t{shard} * replicate;
    if (dp > std::numeric_limits<int>::max()) {
      problem("parallelism", "data_parallel_shard_degree", "dp_shard x dp_replicate is larger than any job");
      return;
    }
    set("parallelism", "data_parallel_shard_degree", "dp", std::to_string(dp));
    dp_ = static_cast<int>(dp);
    pp_ = pp;
    if (tp > 1) set("parallelism", "tensor_parallel_degree", "sequence_parallel", "true");
    if (const auto ep = integer("parallelism", "expert_parallel_degree"); ep && *ep > 1) {
      set("parallelism", "expert_parallel_degree", "ep", std::to_string(*ep));
    }
    if (const auto etp = integer("parallelism", "expert_tensor_parallel_degree"); etp && *etp > 1) {
      set("parallelism", "expert_tensor_parallel_degree", "etp", std::to_string(*etp));
    }
    if (shard > 1 || cp > 1) {
      set("parallelism", "data_parallel_shard_degree", "sharding", "zero3");
      if (replicate > 1) {
        set("parallelism", "data_parallel_shard_degree", "shard_group_size", std::to_string(shard * cp));
      }
    } else if (replicate > 1) {
      set("parallelism", "data_parallel_replicate_degree", "overlap_grad_reduce", "true");
    }
  }

  int leftover_shard_degree(int others) {
    if (!context_.world) {
      problem("parallelism", "data_parallel_shard_degree",
              "-1 takes the GPUs the other degrees leave, and the TOML does not say how many the job has: give "
              "--nodes (and --gpus-per-node)");
      return 0;
    }
    if (*context_.world % others != 0) {
      problem("parallelism", "data_parallel_shard_degree",
              "-1: the other degrees (" + std::to_string(others) + " GPUs) do not divide the job's " +
                  std::to_string(*context_.world) + " GPUs");
      return 0;
    }
    return *context_.world / others;
  }

  // With pipeline parallelism a local batch runs in micro-batches of
  // pipeline_parallel_microbatch_size; without it the local batch is the micro-batch. The global
  // batch is local x dp unless given (then with gradient accumulation).
  void read_batches() {
    std::optional<int> local = integer("training", "local_batch_size");
    if (!local) local = integer("training", "batch_size");  // its name before torchtitan 2025-06
    const int local_batch = local.value_or(8);
    const int micro = pp_ > 1 ? integer("parallelism", "pipeline_parallel_microbatch_size").value_or(1) : local_batch;
    const int global = integer("training", "global_batch_size").value_or(-1);
    set("training", "local_batch_size", "micro_batch_size", std::to_string(micro));
    if (dp_ > 0) {
      set("training", "global_batch_size", "global_batch_size",
          std::to_string(global > 0 ? std::int64_t{global} : std::int64_t{local_batch} * dp_));
    }
    set("training", "seq_len", "seq_length", std::to_string(integer("training", "seq_len").value_or(2048)));
  }

  // pipeline_parallel_schedule names a torch.distributed.pipelining schedule (the schedule
  // option's aliases); layers per stage give the chunks per stage, else torchtitan's default
  // for a multi-stage schedule, two.
  void read_schedule() {
    if (pp_ <= 1) return;
    const std::string name = value<std::string>("parallelism", "pipeline_parallel_schedule").value_or("1F1B");
    set("parallelism", "pipeline_parallel_schedule", "schedule", name);
    const options::ParsedValue schedule = options::parse_value(options::option("schedule"), name);
    const bool multi_stage = schedule.ok() && options::value_text(schedule.value) != "1f1b" &&
                             options::value_text(schedule.value) != "gpipe";
    if (const auto per_stage = integer("parallelism", "pipeline_parallel_layers_per_stage")) {
      if (layers_ <= 0 || *per_stage <= 0 || layers_ % (std::int64_t{pp_} * *per_stage) != 0) {
        problem("parallelism", "pipeline_parallel_layers_per_stage",
                "the model's layers do not split into " + std::to_string(pp_) + " stages of chunks of " +
                    std::to_string(*per_stage));
        return;
      }
      set("parallelism", "pipeline_parallel_layers_per_stage", "virtual_stages",
          std::to_string(layers_ / (std::int64_t{pp_} * *per_stage)));
    } else if (multi_stage) {
      set("parallelism", "pipeline_parallel_schedule", "virtual_stages", "2");
      job_.assumptions.push_back(key_of("parallelism", "pipeline_parallel_schedule") + " " + name +
                                 ": two model chunks per stage (torchtitan's default for a multi-stage schedule "
                                 "without pipeline_parallel_layers_per_stage)");
    }
  }

  // An enabled checkpoint saves every `interval` steps (500 unless given), asynchronously unless
  // async_mode is disabled: the run's checkpoint interval and save (docs/goodput.md). A disabled
  // one's interval and mode save nothing.
  void read_checkpoints() {
    std::optional<bool> enabled = value<bool>("checkpoint", "enable");
    if (!enabled) enabled = value<bool>("checkpoint", "enable_checkpoint");
    if (!enabled.value_or(false)) {
      for (const auto key : {"interval", "async_mode"}) {
        if (table_["checkpoint"][key]) job_.ignored.push_back(key_of("checkpoint", key));
      }
      return;
    }
    set("checkpoint", "interval", "checkpoint_interval",
        std::to_string(integer("checkpoint", "interval").value_or(500)));
    const std::string mode = value<std::string>("checkpoint", "async_mode").value_or("disabled");
    if (mode == "disabled") {
      set("checkpoint", "async_mode", "checkpoint_save", "sync");
    } else if (mode == "async" || mode == "async_with_pinned_mem") {
      set("checkpoint", "async_mode", "checkpoint_save", "async");
    } else {
      problem("checkpoint", "async_mode", "expected disabled, async or async_with_pinned_mem, got '" + mode + "'");
    }
  }

  // mixed_precision_param is the dtype; the float8 converter's recipe (tensorwise unless named)
  // and the mx converter's (mxfp8) are the precision option's values.
  void read_precision() {
    if (const auto param = value<std::string>("training", "mixed_precision_param")) {
      set("training", "mixed_precision_param", "dtype", *param);
    }
    const auto converters = table_["model"]["converters"].as_array();
    if (converters == nullptr) return;
    for (const auto& converter : *converters) {
      const std::string name = converter.value<std::string>().value_or("");
      if (name == "float8") {
        set("float8", "recipe_name", "precision", value<std::string>("float8", "recipe_name").value_or("tensorwise"));
      } else if (name == "mx") {
        set("mx", "recipe_name", "precision", value<std::string>("mx", "recipe_name").value_or("mxfp8"));
      } else {
        problem("model", "converters", "converter '" + name + "' is not modelled (float8 and mx are)");
      }
    }
    if (value<bool>("float8", "emulate").value_or(false)) {
      problem("float8", "emulate", "emulated float8 GEMMs are not modelled");
    }
    if (value<bool>("float8", "enable_fsdp_float8_all_gather").value_or(false)) {
      job_.assumptions.push_back(key_of("float8", "enable_fsdp_float8_all_gather") +
                                 ": fp8 parameter all-gathers are priced as bf16 ones");
    }
  }

  // mode none or full; selective with an integer N checkpoints every N-th layer, which is full
  // recomputation for N = 1 only; "op" is the per-op policy, which the recompute option names as
  // not modelled. torchtitan's default is selective every 2nd layer.
  void read_recomputation() {
    const std::string mode = value<std::string>("activation_checkpoint", "mode").value_or("selective");
    const std::string option = value<std::string>("activation_checkpoint", "selective_ac_option").value_or("2");
    if (mode == "none" || mode == "full") {
      set("activation_checkpoint", "mode", "recompute", mode);
    } else if (mode != "selective") {
      problem("activation_checkpoint", "mode", "expected none, selective or full, got '" + mode + "'");
    } else if (option == "1") {
      set("activation_checkpoint", "selective_ac_option", "recompute", "full");
    } else if (option == "op") {
      set("activation_checkpoint", "selective_ac_option", "recompute", option);
    } else {
      problem("activation_checkpoint", "selective_ac_option",
              "selective '" + option +
                  "': checkpointing every N-th layer is not modelled for N > 1 (mode full or selective_ac_option 1 "
                  "is); torchtitan's default is '2'");
    }
  }

  void read_features() {
    if (value<bool>("training", "compile").value_or(false) || value<bool>("compile", "enable").value_or(false)) {
      diagnostics_.add(0, table_["compile"] ? "[compile] enable" : "[training] compile",
                       "torch.compile's kernel fusion is not modelled");
    }
    if (value<bool>("training", "enable_cpu_offload").value_or(false)) {
      problem("training", "enable_cpu_offload", "offloading to host memory is not modelled");
    }
    if (value<bool>("parallelism", "enable_async_tensor_parallel").value_or(false)) {
      job_.assumptions.push_back(key_of("parallelism", "enable_async_tensor_parallel") +
                                 ": asynchronous tensor parallelism is not modelled: its collectives are priced "
                                 "without overlap");
    }
    if (value<bool>("parallelism", "disable_loss_parallel").value_or(false)) {
      job_.assumptions.push_back(key_of("parallelism", "disable_loss_parallel") +
                                 ": the loss is priced vocabulary-parallel, as with loss parallelism");
    }
    if (value<bool>("parallelism", "enable_compiled_autograd").value_or(false)) {
      problem("parallelism", "enable_compiled_autograd", "compiled autograd is not modelled");
    }
    const std::string reshard = value<std::string>("parallelism", "fsdp_reshard_after_forward").value_or("default");
    if (reshard == "never") {
      problem("parallelism", "fsdp_reshard_after_forward",
              "'never' (parameters kept gathered from the forward to the backward) is not modelled");
    } else if (reshard == "always") {
      job_.assumptions.push_back(key_of("parallelism", "fsdp_reshard_after_forward") +
                                 " always: priced as the default, which keeps the last unit gathered");
    }
    if (const auto rotate = value<std::string>("parallelism", "context_parallel_rotate_method")) {
      set("parallelism", "context_parallel_rotate_method", "cp_comm_type", *rotate == "alltoall" ? "p2p" : *rotate);
      if (*rotate == "alltoall") {
        job_.assumptions.push_back(key_of("parallelism", "context_parallel_rotate_method") +
                                   " alltoall: its ring rotation of K/V shards priced as p2p ring steps");
      }
    }
  }

  std::string origin_;
  TorchtitanContext context_;
  toml::table table_;
  LaunchJob job_;
  Diagnostics diagnostics_;
  int layers_ = 0;
  int dp_ = 0;
  int pp_ = 1;
};

}  // namespace

LaunchJob read_torchtitan_toml(std::string_view text, const std::string& origin, const TorchtitanContext& context) {
  return TorchtitanReader(origin, context).read(text);
}

}  // namespace distsim::io
