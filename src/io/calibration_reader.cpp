#include "io/calibration_reader.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "io/csv_table.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::io {

namespace {

//! A row that cannot become a job; caught per row and recorded as the reason it is excluded.
struct Unsupported {
  std::string reason;
};

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool contains(const std::string& text, std::string_view needle) { return lowercase(text).find(needle) != std::string::npos; }

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

cluster::GpuSpec read_gpu(const RowReader& row) {
  const std::string gpu = lowercase(row.text("gpu"));
  const auto memory = row.optional_number("gpu_mem_gb");
  std::string name;
  if (gpu.find("a100") != std::string::npos) {
    name = memory && *memory <= 40 ? "a100-40gb" : "a100-80gb";
  } else if (gpu.find("h100") != std::string::npos) {
    name = "h100-sxm";
  } else if (gpu.find("h200") != std::string::npos) {
    name = "h200";
  } else if (gpu.find("b200") != std::string::npos) {
    name = "b200";
  } else if (gpu.find("v100") != std::string::npos) {
    name = "v100-sxm3";
  } else {
    for (const auto& known : catalog::gpu_names()) {
      if (gpu.rfind(known, 0) == 0) name = known;
    }
  }
  if (name.empty()) throw Unsupported{"GPU '" + row.text("gpu") + "' is not in the catalog (distsim list gpus)"};
  return catalog::find_gpu(name);
}

cluster::ClusterSpec read_cluster(const RowReader& row) {
  const cluster::GpuSpec gpu = read_gpu(row);
  cluster::ClusterSpec cluster = catalog::find_cluster(gpu.default_cluster);
  cluster.gpu = gpu;
  const int gpus = row.integer("num_gpus");
  const int per_node = row.integer("gpus_per_node");
  cluster.gpus_per_node = std::min(gpus, per_node);
  if (gpus % cluster.gpus_per_node != 0) {
    throw Unsupported{"num_gpus " + std::to_string(gpus) + " is not a whole number of " + std::to_string(per_node) +
                      "-GPU nodes"};
  }
  cluster.num_nodes = gpus / cluster.gpus_per_node;
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

bool read_fp8_gemms(const RowReader& row, const cluster::GpuSpec& gpu) {
  if (!is_fp8_run(row)) return false;
  if (gpu.peak_fp8_tflops <= 0) {
    throw Unsupported{"precision '" + row.text("precision") + "' needs fp8 tensor cores, which " + gpu.name +
                      " does not have (peak_fp8_tflops 0)"};
  }
  return true;
}

strategy::Strategy read_strategy(const RowReader& row) {
  strategy::Strategy s;
  s.tensor_parallel = row.integer("tp");
  s.pipeline_parallel = row.integer("pp");
  s.data_parallel = row.integer("dp");
  s.micro_batch_size = row.integer("micro_batch");
  s.global_batch_size = row.integer("global_batch");
  s.dtype = read_dtype(row);
  s.context_parallel = row.integer_or("cp", 1);
  if (const int ep = row.integer_or("ep", 1); ep > 1) {
    throw Unsupported{"expert parallelism (ep " + std::to_string(ep) + ") is not modelled"};
  }
  s.sequence_parallel = lowercase(row.text("sequence_parallel")).rfind("yes", 0) == 0;
  s.virtual_stages = row.integer_or("vpp", 1);
  s.schedule = schedule::megatron_schedule(s.virtual_stages).name();
  const std::string recompute = lowercase(row.text("recompute"));
  if (recompute.find("selective") != std::string::npos) {
    s.recompute = strategy::Recompute::selective;
  } else if (recompute.find("full") != std::string::npos) {
    s.recompute = strategy::Recompute::full;
  }
  const std::string sharding = lowercase(row.text("optimizer_sharding"));
  s.distributed_optimizer = sharding.find("distributed") != std::string::npos;
  s.overlap_grad_reduce = (sharding + " " + lowercase(row.text("comm_overlap"))).find("overlap_grad") != std::string::npos;
  s.attention = read_attention(row);
  s.p2p_scatter_gather = read_p2p_scatter_gather(row);
  return s;
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
    job.strategy = read_strategy(row);
    job.strategy.fp8_gemms = read_fp8_gemms(row, job.cluster.gpu);
    run.job = job;
  } catch (const Unsupported& unsupported) {
    run.excluded_because = unsupported.reason;
  }
  return run;
}

}  // namespace

const std::vector<std::string>& required_calibration_columns() {
  static const std::vector<std::string> columns{
      "id",        "source",   "model",       "num_layers", "hidden_size",  "num_attention_heads", "seq_len",
      "vocab_size", "gpu",     "gpus_per_node", "num_gpus", "tp",           "pp",                  "dp",
      "micro_batch", "global_batch", "iter_time_s"};
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
