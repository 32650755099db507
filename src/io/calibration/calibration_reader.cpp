#include "io/calibration/calibration_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <regex>
#include <string>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "catalog/builtin_models.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "core/name_match.hpp"
#include "core/plain_text.hpp"
#include "io/calibration/calibration_recipes.hpp"
#include "io/calibration/calibration_vocabulary.hpp"
#include "io/calibration/csv_table.hpp"
#include "io/calibration/moe_row_model.hpp"
#include "io/calibration/published_field.hpp"
#include "model/ffn_type.hpp"
#include "options/job_option.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::io {

namespace {

//! A row that cannot become a job; caught per row and recorded as the reason it is excluded.
struct Unsupported {
  std::string reason;
};

//! Reads the number a field starts with ("40 (inferred: ...)" gives 40).
class RowReader {
 public:
  RowReader(const CsvTable& table, std::size_t row) : table_(table), row_(row) {}

  std::string text(std::string_view column) const { return table_.field(row_, column); }

  std::optional<double> optional_number(std::string_view column) const {
    const std::string value = text(column);
    if (read_published_field(value).missing) return std::nullopt;
    std::size_t used = 0;
    try {
      const double number = std::stod(value, &used);
      if (!std::isfinite(number)) throw Unsupported{std::string(column) + " '" + value + "' is not a finite number"};
      return number;
    } catch (const std::exception&) {
      throw Unsupported{std::string(column) + " '" + value + "' is not a number"};
    }
  }

  double number(std::string_view column) const {
    const auto value = optional_number(column);
    if (!value) throw Unsupported{"missing " + std::string(column)};
    return *value;
  }

  int integer(std::string_view column) const {
    const double value = number(column);
    if (value <= 0 || value != std::floor(value)) {
      throw Unsupported{std::string(column) + " '" + text(column) + "' is not a positive whole number"};
    }
    // Checked before the conversion, which is undefined for a double beyond int's range.
    constexpr int kLargest = std::numeric_limits<int>::max();
    if (value > kLargest) {
      throw Unsupported{std::string(column) + " '" + text(column) + "' is larger than " + std::to_string(kLargest)};
    }
    return static_cast<int>(value);
  }

  int integer_or(std::string_view column, int fallback) const {
    return optional_number(column) ? integer(column) : fallback;
  }

 private:
  const CsvTable& table_;
  std::size_t row_;
};

//! The layout of the built-in decoder models of the family the row's arch names (LayerNorm or
//! RMSNorm, position embedding, tied output layer, linear biases): the family's models must agree
//! on it, or the arch says too little to price the row.
void read_architecture(const RowReader& row, model::ModelSpec& model, std::vector<std::string>& assumptions) {
  const PublishedField arch = read_published_field(row.text("arch"));
  if (arch.missing) {
    assumptions.emplace_back("arch not given: the GPT layout (LayerNorm, learned positions, tied embeddings)");
    return;
  }
  const std::string family = model_family(split_remark(arch.text).name);
  std::vector<std::string> families;
  for (const auto& builtin : catalog::builtin_models()) families.push_back(model_family(builtin.name));
  // The family named exactly ("GPT": gpt2-345m, gpt3-175b), else the families it starts
  // ("BERT": bert-large, bert-exlarge).
  const bool exact = std::find(families.begin(), families.end(), family) != families.end();
  const model::ModelSpec* layout = nullptr;
  for (const auto& builtin : catalog::builtin_models()) {
    const std::string own = model_family(builtin.name);
    if (exact ? own != family : own.rfind(family, 0) != 0) continue;
    const bool same =
        layout == nullptr ||
        (layout->architecture == builtin.architecture && layout->norm == builtin.norm &&
         layout->position_embedding == builtin.position_embedding && layout->tie_embeddings == builtin.tie_embeddings &&
         layout->linear_biases == builtin.linear_biases);
    if (!same) {
      throw Unsupported{"arch '" + arch.text + "': the built-in models of family '" + family + "' (" + layout->name +
                        ", " + builtin.name + ") differ in their layout; give the row's model as a model file"};
    }
    if (layout == nullptr) layout = &builtin;
  }
  if (layout == nullptr) {
    throw Unsupported{"arch '" + arch.text +
                      "' names no family of the built-in models (distsim list models); the "
                      "closest is '" +
                      closest_name(family, families) + "'"};
  }
  if (layout->architecture != model::Architecture::decoder) {
    throw Unsupported{"arch '" + arch.text + "' names the family of built-in model '" + layout->name +
                      "', which is not a decoder; the calibration reader reads decoder rows"};
  }
  model.norm = layout->norm;
  model.position_embedding = layout->position_embedding;
  model.tie_embeddings = layout->tie_embeddings;
  model.linear_biases = layout->linear_biases;
}

//! The MLP activation the row names (model/ffn_type.hpp's names and aliases); GELU when it names none.
model::FfnType read_activation(const RowReader& row) {
  const PublishedField activation = read_published_field(row.text("ffn_activation"));
  if (activation.missing) return model::FfnType::gelu;
  if (const model::FfnTypeInfo* found = model::find_ffn_type(activation.value)) return found->type;
  std::vector<std::string> names;
  names.reserve(model::kFfnTypes.size());
  for (const auto& info : model::kFfnTypes) names.emplace_back(info.name);
  throw Unsupported{"ffn_activation '" + activation.text + "' is not an MLP activation distsim models (" +
                    comma_joined(names) + "); the closest is '" + closest_name(activation.value, names) + "'"};
}

//! A row is a mixture-of-experts run when its moe column says so or it states more than one
//! routed expert.
bool is_moe_row(const RowReader& row) {
  const PublishedField moe = read_published_field(row.text("moe"));
  if (!moe.missing && !same_name(moe.value, "no") && !same_name(moe.value, "dense")) {
    if (!same_name(moe.value, "moe") && !same_name(moe.value, "yes")) {
      throw Unsupported{"moe '" + row.text("moe") + "' is neither MoE, yes nor no"};
    }
    return true;
  }
  const auto experts = row.optional_number("moe_num_experts");
  return moe.missing && experts && *experts > 1;
}

//! The row's model; a remark on an MoE model's name may add job settings to `settings`.
model::ModelSpec read_model(const RowReader& row, std::vector<std::string>& assumptions,
                            std::vector<std::pair<std::string, std::string>>& settings) {
  if (is_moe_row(row)) {
    MoeRowModel read = read_moe_row_model([&row](std::string_view column) { return row.text(column); });
    if (!read.model) throw Unsupported{read.refused_because};
    assumptions.insert(assumptions.end(), read.assumptions.begin(), read.assumptions.end());
    settings.insert(settings.end(), read.settings.begin(), read.settings.end());
    return *read.model;
  }
  model::ModelSpec model;
  model.name = row.text("model");
  model.num_layers = row.integer("num_layers");
  model.hidden_size = row.integer("hidden_size");
  model.num_attention_heads = row.integer("num_attention_heads");
  model.num_kv_heads = row.integer_or("num_kv_heads", model.num_attention_heads);
  model.ffn_hidden_size = row.integer_or("ffn_hidden_size", 4 * model.hidden_size);
  model.vocab_size = row.integer("vocab_size");
  model.seq_length = row.integer("seq_len");
  model.ffn_type = read_activation(row);
  read_architecture(row, model, assumptions);
  return model;
}

//! The power limit a GPU field states in its remarks ("H100 (Grand Teton; 96 GB HBM2e, 500 W power
//! limit)" gives 500), or none; a number of more than six digits is no power limit.
std::optional<int> stated_power_limit(const std::string& gpu_field) {
  static const std::regex watts(R"((?:^|[^0-9.])([0-9]{1,6}) ?W\b)");
  std::smatch match;
  if (!std::regex_search(gpu_field, match, watts)) return std::nullopt;
  return std::stoi(match[1].str());
}

// Rows name parts as NVIDIA does ("A100-SXM4", "H100-SXM5", "GB200 (Blackwell)") with the memory
// in a column of its own and a power limit, where one is stated, in the name's remarks. The part
// with its memory and limit ("h100-96gb-500w"), then with its memory ("a100-sxm4-40gb"), then the
// part alone is looked up, each by its exact name among the GPU files given and then the catalog's
// names and aliases. A part whose memory or power limit differs from the entry's is another part,
// never the stock one.
cluster::GpuSpec read_gpu(const RowReader& row, const std::vector<cluster::GpuSpec>& gpus) {
  const std::string gpu = read_published_field(row.text("gpu")).value;
  const auto memory = row.optional_number("gpu_mem_gb");
  const auto watts = stated_power_limit(row.text("gpu"));
  std::vector<std::string> names;
  const std::string with_memory = memory ? gpu + "-" + std::to_string(std::lround(*memory)) + "gb" : gpu;
  if (watts) names.push_back(with_memory + "-" + std::to_string(*watts) + "w");
  if (memory) names.push_back(with_memory);
  names.push_back(gpu);
  const auto find = [&gpus](const std::string& name) -> std::optional<cluster::GpuSpec> {
    for (const auto& given : gpus) {
      if (lowercase(given.name) == name) return given;
    }
    try {
      return catalog::find_gpu(name);
    } catch (const InputError&) {
      return std::nullopt;
    }
  };
  const std::string describe_it = "; describe the part in a GPU file named '" + names.front() +
                                  "' (base, memory_gb, tdp_w and the rates it sustains) and pass it with --gpu";
  for (const auto& name : names) {
    const auto found = find(name);
    if (!found) continue;
    if (memory && std::lround(*memory) != std::lround(found->memory_gb)) {
      throw Unsupported{"GPU '" + row.text("gpu") + "' with " + row.text("gpu_mem_gb") + " GB is not " + found->name +
                        ", which has " + std::to_string(std::lround(found->memory_gb)) + " GB" + describe_it};
    }
    if (watts && std::lround(found->tdp_w) != *watts) {
      throw Unsupported{"GPU '" + row.text("gpu") + "' states a " + std::to_string(*watts) +
                        " W power limit: it is not " + found->name + ", whose limit is " +
                        std::to_string(std::lround(found->tdp_w)) + " W" + describe_it};
    }
    return *found;
  }
  throw Unsupported{"GPU '" + row.text("gpu") + "' is not in the catalog (distsim list gpus)" + describe_it};
}

//! The parts of a field separated by ';' outside parentheses.
std::vector<std::string> field_parts(const std::string& text) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (const char c : text) {
    depth += c == '(' ? 1 : (c == ')' && depth > 0 ? -1 : 0);
    if (c == ';' && depth == 0) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  for (auto& part : parts) {
    part.erase(0, part.find_first_not_of(' '));
    part.erase(part.find_last_not_of(' ') + 1);
  }
  return parts;
}

std::string assumption_text(const ColumnReading& reading) {
  std::string settings;
  for (const auto& [key, value] : reading.settings) {
    settings += (settings.empty() ? "" : ", ") + key + "=" + value;
  }
  return settings.empty() ? reading.assumed_because : settings + " (" + reading.assumed_because + ")";
}

//! Every vocabulary column's settings, in the option table's terms; the node design by name.
struct ColumnSettings {
  std::vector<std::pair<std::string, std::string>> settings;
  std::string cluster;
  std::vector<std::string> assumptions;
};

ColumnSettings read_vocabulary_columns(const RowReader& row) {
  ColumnSettings read;
  for (const auto& vocabulary : calibration_vocabularies()) {
    for (const auto& part : field_parts(row.text(vocabulary.column))) {
      const PublishedField field = read_published_field(part);
      ColumnReading reading = read_column_value(vocabulary, field);
      if (!reading.refused_because.empty()) throw Unsupported{reading.refused_because};
      if (reading.assumed_because.empty() && field.not_stated) {
        reading.assumed_because =
            "the table's " + vocabulary.column + " '" + field.text + "', not stated in its source";
      }
      if (!reading.assumed_because.empty()) read.assumptions.push_back(assumption_text(reading));
      for (const auto& setting : reading.settings) {
        if (setting.first == "cluster") {
          read.cluster = setting.second;
        } else {
          read.settings.push_back(setting);
        }
      }
    }
  }
  return read;
}

//! A job larger than one NVL72 rack gets whole segments of 16 compute trays (64 GPUs) in each rack
//! it uses: Slurm's block scheduling with --segment 16, which NVIDIA recommends for jobs of 128 GPUs
//! or more such as MoE training (NVIDIA technical blog, "Unlock Exascale Performance on NVIDIA
//! GB200 NVL72 with Slurm Topology-Aware Job Scheduling"). Filling racks of 18 trays one after
//! another would instead cut power-of-two groups at rack boundaries no scheduler would choose.
void place_in_rack_segments(cluster::ClusterSpec& cluster, std::vector<std::string>& assumptions) {
  constexpr int kSegmentTrays = 16;
  const bool spans_racks = cluster.hosts_per_domain > kSegmentTrays && cluster.num_hosts > cluster.hosts_per_domain;
  if (!spans_racks || cluster.num_hosts % kSegmentTrays != 0) return;
  cluster.hosts_per_domain = kSegmentTrays;
  assumptions.push_back(
      "allocation: 16 compute trays (" + std::to_string(kSegmentTrays * cluster.gpus_per_host) +
      " GPUs) in each NVL72 rack the job uses (Slurm block scheduling with segment 16, which NVIDIA recommends for "
      "jobs of 128 GPUs or more: NVIDIA technical blog 'Unlock Exascale Performance on NVIDIA GB200 NVL72 with Slurm "
      "Topology-Aware Job Scheduling')");
}

cluster::ClusterSpec read_cluster(const RowReader& row, const std::string& node_design,
                                  const std::vector<cluster::GpuSpec>& given_gpus,
                                  std::vector<std::string>& assumptions) {
  const cluster::GpuSpec gpu = read_gpu(row, given_gpus);
  const bool rack = node_design == kRackOfTheGpu;
  cluster::ClusterSpec cluster = catalog::find_cluster(node_design.empty() || rack ? gpu.default_cluster : node_design);
  constexpr int kNvl72 = 72;
  if (rack && cluster.gpus_per_domain() != kNvl72) {
    throw Unsupported{"intra_node_link names an NVL72 rack, but GPU '" + row.text("gpu") + "' comes in " +
                      gpu.default_cluster + ", whose NVLink domains have " + std::to_string(cluster.gpus_per_domain()) +
                      " GPUs"};
  }
  cluster.gpu = gpu;
  const int gpus = row.integer("num_gpus");
  const int per_node = row.integer("gpus_per_node");
  cluster.gpus_per_host = std::min(gpus, per_node);
  if (gpus % cluster.gpus_per_host != 0) {
    throw Unsupported{"num_gpus " + std::to_string(gpus) + " is not a whole number of " + std::to_string(per_node) +
                      "-GPU nodes"};
  }
  cluster.num_hosts = gpus / cluster.gpus_per_host;
  place_in_rack_segments(cluster, assumptions);
  return cluster;
}

//! The latest year the framework text names, as "Megatron-LM (2021)" or an NGC container tag
//! "NGC 20.12" (year 2020) does; none when it names neither.
std::optional<int> framework_year(const std::string& framework) {
  const std::string text = lowercase(framework);
  std::optional<int> latest;
  const auto note = [&latest](int year) { latest = std::max(latest.value_or(year), year); };
  static const std::regex year(R"((?:^|[^0-9])(20[0-9]{2})(?![0-9]))");
  static const std::regex container(R"(ngc\s+([0-9]{2})\.[0-9]{2})");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), year); it != std::sregex_iterator(); ++it) {
    note(std::stoi((*it)[1].str()));
  }
  for (auto it = std::sregex_iterator(text.begin(), text.end(), container); it != std::sregex_iterator(); ++it) {
    note(2000 + std::stoi((*it)[1].str()));
  }
  return latest;
}

//! Megatron-LM before Megatron-Core: a run whose framework names Megatron and a year before 2023.
//! Megatron-LM gained FlashAttention (--use-flash-attn) in 2023 (NVIDIA/Megatron-LM pull request
//! #267, T. Dao, opened 2022-12-09, reviewed and merged from January 2023), and its pipeline
//! transfers were scatter/gathered by default until then (--no-scatter-gather-tensors-in-pipeline,
//! Narayanan et al. SC'21 §4.1).
bool is_megatron_before_2023(const RowReader& row) {
  constexpr int kFirstCoreYear = 2023;
  const std::string framework = row.text("framework");
  const auto year = framework_year(framework);
  return lowercase(framework).find("megatron") != std::string::npos && year && *year < kFirstCoreYear;
}

//! The columns that hold a job setting as a whole number, with the option-table key each one sets.
struct SettingColumn {
  std::string_view column;
  std::string_view key;
  bool required;
};

constexpr SettingColumn kSettingColumns[] = {{"tp", "tp", true},
                                             {"pp", "pp", true},
                                             {"dp", "dp", true},
                                             {"micro_batch", "micro_batch_size", true},
                                             {"global_batch", "global_batch_size", true},
                                             {"cp", "cp", false},
                                             {"vpp", "virtual_stages", false}};

void apply_setting(std::string_view key, const std::string& text, strategy::JobSpec& job) {
  const options::JobOption& option = options::option(key);
  const options::ParsedValue parsed = options::parse_value(option, text);
  if (!parsed.ok()) throw Unsupported{std::string(key) + " as the table gives it: " + parsed.problem};
  option.apply(parsed.value, job, options::SpecResolvers{});
}

//! Whether the field says the source does not state it and gives no number of its own
//! ("not stated", "per recipe (not stated)"), where "4 (not stated; inferred)" gives 4.
bool unstated_number(const RowReader& row, std::string_view column) {
  const PublishedField field = read_published_field(row.text(column));
  return field.not_stated && !std::isdigit(static_cast<unsigned char>(field.value.empty() ? ' ' : field.value[0]));
}

void read_strategy(const RowReader& row, const ColumnSettings& columns, strategy::JobSpec& job,
                   std::vector<std::string>& assumptions) {
  for (const auto& [column, key, required] : kSettingColumns) {
    if (!required && unstated_number(row, column)) {
      // A size the source leaves unstated is the framework's default, which is the option's.
      const std::string value = options::option(key).default_value;
      assumptions.push_back(std::string(key) + "=" + value + " (" + std::string(column) + " '" + row.text(column) +
                            "'; Megatron-Core's default, which is distsim's)");
      apply_setting(key, value, job);
    } else if (required || row.optional_number(column)) {
      apply_setting(key, std::to_string(row.integer(column)), job);
    }
  }
  if (const int ep = row.integer_or("ep", 1); job.model.moe.enabled()) {
    apply_setting("ep", std::to_string(ep), job);
  } else if (ep > 1) {
    throw Unsupported{"expert parallelism (ep " + std::to_string(ep) + ") in a row without experts (moe '" +
                      row.text("moe") + "')"};
  }
  for (const auto& [key, value] : columns.settings) apply_setting(key, value, job);
  strategy::Strategy& s = job.strategy;
  s.schedule = std::string(schedule::megatron_schedule(s.virtual_stages).name());
  if (is_megatron_before_2023(row)) {
    s.attention = strategy::Attention::unfused;
    s.p2p_scatter_gather = true;
  }
  const auto problems = strategy::precision_problems(job, {{"fp8", "precision '" + row.text("precision") + "'"}});
  if (!problems.empty()) throw Unsupported{problems.front()};
}

//! Megatron-Core splits the decoder layers evenly over the pipeline's pp x vpp model chunks and
//! refuses a remainder; its recipes for layer counts that do not split count the embedding and the
//! loss as layers (--account-for-embedding-in-pipeline-split, --account-for-loss-in-pipeline-split;
//! Megatron-Bridge's Llama 3.1 405B and Qwen3-235B recipes set both). A row whose layers do not
//! split and that states no layout gets that rule when it splits the layers evenly, as an
//! assumption; it is refused when no rule fits or when one of the two alone would fit, since the
//! source does not say which.
void split_layers_as_megatron_does(strategy::JobSpec& job, std::vector<std::string>& assumptions) {
  strategy::Strategy& s = job.strategy;
  const int chunks = s.pipeline_parallel * s.virtual_stages;
  const int layers = job.model.num_layers;
  if (s.custom_pipeline_layout() || chunks <= 1 || layers % chunks == 0) return;
  const std::string split = std::to_string(layers) + " layers over pp " + std::to_string(s.pipeline_parallel) +
                            " x vpp " + std::to_string(s.virtual_stages) + " = " + std::to_string(chunks) + " chunks";
  if ((layers + 2) % chunks == 0) {
    s.account_for_embedding = true;
    s.account_for_loss = true;
    assumptions.push_back("account_for_embedding_in_pipeline_split=true, account_for_loss_in_pipeline_split=true (" +
                          split + " do not split evenly; with the embedding and the loss counted as layers, " +
                          std::to_string(layers + 2) + " do, as Megatron-Core's recipes run such models)");
    return;
  }
  if ((layers + 1) % chunks == 0) {
    throw Unsupported{split + " do not split evenly; counting either the embedding or the loss as a layer would, "
                              "and the source does not say which (give the row's pipeline layout)"};
  }
  throw Unsupported{split + " do not split evenly, nor with the embedding and the loss counted as layers (" +
                    std::to_string(layers + 2) + "); the source's pipeline layout is not stated"};
}

//! The settings of the recipe the row's framework runs its model with, as an assumption naming it.
void apply_recipe(const RowReader& row, strategy::JobSpec& job, std::vector<std::string>& assumptions) {
  const strategy::Strategy& s = job.strategy;
  const std::string framework = row.text("framework");
  const RecipeDefaults* recipe = find_recipe(framework, job.model, s.pipeline_parallel, s.virtual_stages);
  if (!recipe) return;
  if (!recipe->refusal.empty()) throw Unsupported{recipe->refusal};
  if (recipe->settings.empty()) return;
  std::string reason = recipe->recipe;
  if (!same_name(framework, recipe->framework)) {
    reason +=
        "; the row's framework '" + framework + "' is taken to lay the model out as " + recipe->framework + " does";
  }
  for (const auto& [key, value] : recipe->settings) {
    const options::JobOption& option = options::option(key);
    const options::ParsedValue parsed = options::parse_value(option, value);
    if (!parsed.ok()) throw Unsupported{recipe->recipe + ": " + key + " '" + value + "' " + parsed.problem};
    option.apply(parsed.value, job, options::SpecResolvers{});
  }
  assumptions.push_back(assumption_text(ColumnReading{recipe->settings, reason, ""}));
}

validation::CalibrationRun read_run(const CsvTable& table, std::size_t index,
                                    const std::vector<cluster::GpuSpec>& gpus) {
  const RowReader row(table, index);
  validation::CalibrationRun run;
  run.id = row.text("id");
  run.source = row.text("source");
  run.line = table.line(index);
  run.label = row.text("model") + ", " + row.text("num_gpus") + " x " + row.text("gpu");
  try {
    run.measured_iteration_s = row.number("iter_time_s");
    if (run.measured_iteration_s <= 0) throw Unsupported{"iter_time_s must be positive"};
    strategy::JobSpec job;
    std::vector<std::pair<std::string, std::string>> model_settings;
    job.model = read_model(row, run.assumptions, model_settings);
    ColumnSettings columns = read_vocabulary_columns(row);
    columns.settings.insert(columns.settings.end(), model_settings.begin(), model_settings.end());
    job.cluster = read_cluster(row, columns.cluster, gpus, run.assumptions);
    read_strategy(row, columns, job, run.assumptions);
    run.assumptions.insert(run.assumptions.end(), columns.assumptions.begin(), columns.assumptions.end());
    apply_recipe(row, job, run.assumptions);
    split_layers_as_megatron_does(job, run.assumptions);
    run.job = job;
  } catch (const Unsupported& unsupported) {
    run.excluded_because = unsupported.reason;
  }
  return run;
}

}  // namespace

const std::vector<std::string>& required_calibration_columns() {
  static const std::vector<std::string> columns{
      "id",      "source",     "model",       "num_layers",    "hidden_size", "num_attention_heads",
      "seq_len", "vocab_size", "gpu",         "gpus_per_node", "num_gpus",    "tp",
      "pp",      "dp",         "micro_batch", "global_batch",  "iter_time_s"};
  return columns;
}

std::vector<validation::CalibrationRun> read_calibration_runs(std::string_view csv_text, const std::string& file_name,
                                                              const std::vector<cluster::GpuSpec>& gpus) {
  const CsvTable table = CsvTable::parse(csv_text, file_name);
  for (const auto& column : required_calibration_columns()) {
    if (!table.column(column)) {
      throw InputError(file_name + ": no column '" + column + "'; did you mean '" +
                       closest_name(column, table.header()) +
                       "'? A calibration file needs the columns of data/published_calibration.csv");
    }
  }
  std::vector<validation::CalibrationRun> runs;
  for (std::size_t i = 0; i < table.rows(); ++i) {
    runs.push_back(read_run(table, i, gpus));
  }
  return runs;
}

}  // namespace distsim::io
