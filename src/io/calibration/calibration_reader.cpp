#include "io/calibration/calibration_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <regex>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "io/calibration/csv_table.hpp"
#include "options/job_option.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::io {

namespace {

//! A row that cannot become a job; caught per row and recorded as the reason it is excluded.
struct Unsupported {
  std::string reason;
};

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool contains(const std::string& text, std::string_view needle) {
  return lowercase(text).find(needle) != std::string::npos;
}

//! Reads the number a field starts with ("40 (inferred: ...)" gives 40).
class RowReader {
 public:
  RowReader(const CsvTable& table, std::size_t row) : table_(table), row_(row) {}

  std::string text(std::string_view column) const { return table_.field(row_, column); }

  std::optional<double> optional_number(std::string_view column) const {
    const std::string value = text(column);
    if (value.empty() || lowercase(value).rfind("n/a", 0) == 0) return std::nullopt;
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
    if (value <= 0 || value != static_cast<double>(static_cast<int>(value))) {
      throw Unsupported{std::string(column) + " '" + text(column) + "' is not a positive whole number"};
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

model::ModelSpec read_model(const RowReader& row) {
  model::ModelSpec model;
  model.name = row.text("model");
  model.num_layers = row.integer("num_layers");
  model.hidden_size = row.integer("hidden_size");
  model.num_attention_heads = row.integer("num_attention_heads");
  model.num_kv_heads = row.integer_or("num_kv_heads", model.num_attention_heads);
  model.ffn_hidden_size = row.integer_or("ffn_hidden_size", 4 * model.hidden_size);
  model.vocab_size = row.integer("vocab_size");
  model.seq_length = row.integer("seq_len");
  const std::string activation = lowercase(row.text("ffn_activation"));
  if (activation == "swiglu") {
    model.ffn_type = model::FfnType::swiglu;
  } else if (!activation.empty() && activation != "gelu") {
    throw Unsupported{"ffn_activation '" + row.text("ffn_activation") + "' is not modelled (gelu or swiglu)"};
  }
  if (contains(row.text("arch"), "llama")) {
    model.norm = model::NormType::rmsnorm;
    model.position_embedding = model::PositionEmbedding::rope;
    model.tie_embeddings = false;
  }
  const std::string moe = lowercase(row.text("moe"));
  if (!moe.empty() && moe != "no" && moe != "none") {
    throw Unsupported{"mixture of experts (moe '" + row.text("moe") + "') is not modelled"};
  }
  return model;
}

// Rows name parts as NVIDIA does ("A100-SXM4", "H100-SXM5") with the memory in a column of its
// own; the part with its memory ("a100-sxm4-40gb") is looked up before the part alone, each by
// its exact catalog name or alias.
cluster::GpuSpec read_gpu(const RowReader& row) {
  const std::string gpu = lowercase(row.text("gpu"));
  const auto memory = row.optional_number("gpu_mem_gb");
  std::vector<std::string> names;
  if (memory) {
    names.push_back(gpu + "-" + std::to_string(std::lround(*memory)) + "gb");
  }
  names.push_back(gpu);
  for (const auto& name : names) {
    try {
      return catalog::find_gpu(name);
    } catch (const InputError&) {
      // the next spelling may be the catalog's
    }
  }
  throw Unsupported{"GPU '" + row.text("gpu") + "' is not in the catalog (distsim list gpus)"};
}

cluster::ClusterSpec read_cluster(const RowReader& row) {
  const cluster::GpuSpec gpu = read_gpu(row);
  cluster::ClusterSpec cluster = catalog::find_cluster(gpu.default_cluster);
  cluster.gpu = gpu;
  const int gpus = row.integer("num_gpus");
  const int per_node = row.integer("gpus_per_node");
  cluster.gpus_per_host = std::min(gpus, per_node);
  if (gpus % cluster.gpus_per_host != 0) {
    throw Unsupported{"num_gpus " + std::to_string(gpus) + " is not a whole number of " + std::to_string(per_node) +
                      "-GPU nodes"};
  }
  cluster.num_hosts = gpus / cluster.gpus_per_host;
  return cluster;
}

bool is_fp8_run(const RowReader& row) { return contains(row.text("precision"), "fp8"); }

//! FP8 runs (TransformerEngine, Megatron-Core --fp8-format) train in bf16 with fp8 GEMMs.
Dtype read_dtype(const RowReader& row) {
  const std::string precision = lowercase(row.text("precision"));
  if (is_fp8_run(row)) return Dtype::bf16;
  if (precision.find("fp16") != std::string::npos) return Dtype::fp16;
  if (precision.find("fp32") != std::string::npos && precision.find("bf16") == std::string::npos) return Dtype::fp32;
  return Dtype::bf16;
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
  return contains(framework, "megatron") && year && *year < kFirstCoreYear;
}

//! Runs of Megatron-LM before 2023 ran the unfused attention core; anything else keeps the flash
//! default.
strategy::Attention read_attention(const RowReader& row) {
  return is_megatron_before_2023(row) ? strategy::Attention::unfused : strategy::Attention::flash;
}

bool read_p2p_scatter_gather(const RowReader& row) {
  return is_megatron_before_2023(row) || contains(lowercase(row.text("comm_overlap")), "scatter/gather");
}

//! FP8 runs are refused by validation's fp8 rule, named by the row's precision column.
void read_fp8_gemms(const RowReader& row, strategy::JobSpec& job) {
  options::option("fp8").apply(is_fp8_run(row), job, options::SpecResolvers{});
  const auto problems = strategy::precision_problems(job, {{"fp8", "precision '" + row.text("precision") + "'"}});
  if (!problems.empty()) throw Unsupported{problems.front()};
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

void read_setting_columns(const RowReader& row, strategy::JobSpec& job) {
  for (const auto& [column, key, required] : kSettingColumns) {
    if (required || row.optional_number(column)) {
      options::option(key).apply(row.integer(column), job, options::SpecResolvers{});
    }
  }
}

void read_strategy(const RowReader& row, strategy::JobSpec& job) {
  read_setting_columns(row, job);
  strategy::Strategy& s = job.strategy;
  s.dtype = read_dtype(row);
  if (const int ep = row.integer_or("ep", 1); ep > 1) {
    throw Unsupported{"expert parallelism (ep " + std::to_string(ep) + ") is not modelled"};
  }
  s.sequence_parallel = lowercase(row.text("sequence_parallel")).rfind("yes", 0) == 0;
  s.schedule = std::string(schedule::megatron_schedule(s.virtual_stages).name());
  const std::string recompute = lowercase(row.text("recompute"));
  if (recompute.find("selective") != std::string::npos) {
    s.recompute = strategy::Recompute::selective;
  } else if (recompute.find("full") != std::string::npos) {
    s.recompute = strategy::Recompute::full;
  }
  const std::string sharding = lowercase(row.text("optimizer_sharding"));
  s.distributed_optimizer = sharding.find("distributed") != std::string::npos;
  s.overlap_grad_reduce =
      (sharding + " " + lowercase(row.text("comm_overlap"))).find("overlap_grad") != std::string::npos;
  s.attention = read_attention(row);
  s.p2p_scatter_gather = read_p2p_scatter_gather(row);
}

validation::CalibrationRun read_run(const CsvTable& table, std::size_t index) {
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
    job.model = read_model(row);
    job.cluster = read_cluster(row);
    read_strategy(row, job);
    read_fp8_gemms(row, job);
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

std::vector<validation::CalibrationRun> read_calibration_runs(std::string_view csv_text, const std::string& file_name) {
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
    runs.push_back(read_run(table, i));
  }
  return runs;
}

}  // namespace distsim::io
