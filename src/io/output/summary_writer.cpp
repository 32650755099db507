#include "io/output/summary_writer.hpp"

#include "io/output/stage_layers_text.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "catalog/builtin_models.hpp"
#include "catalog/host_cpus.hpp"
#include "core/checked_arithmetic.hpp"
#include "core/plain_text.hpp"
#include "events/job_events.hpp"
#include "io/output/goodput_writer.hpp"
#include "io/output/jitter_writer.hpp"
#include "io/spec/spec_writer.hpp"
#include "options/job_assembly.hpp"
#include "options/job_option.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/gpu_placement.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::io {

using strategy::ParallelDim;

namespace {

//! How the devices of one pipeline stage spent the iteration, in seconds. In all-ranks mode a
//! stage has many devices and their mean is reported; in symmetric mode it has exactly one.
struct StageStats {
  events::LayerRange layers;
  double compute_s = 0;
  double communication_s = 0;
  double idle_s = 0;
  double host_s = 0;  //!< the host thread's launches
};

//! The layers a stage holds as one span: with an even split, the stage's contiguous share of the
//! layers (events::stage_layers); with a custom pipeline layout, the first layer of its first chunk
//! and the count over all its chunks.
events::LayerRange stage_layer_span(const strategy::JobSpec& job, int stage) {
  if (!job.strategy.custom_pipeline_layout()) {
    return events::stage_layers(job.model.total_layers(), job.strategy.pipeline_parallel, stage);
  }
  const auto chunks = schedule::find_schedule(job.strategy.schedule).stage_chunk_layers(job, stage);
  events::LayerRange span{chunks.front().first, 0};
  for (const auto& chunk : chunks) {
    span.count += chunk.count;
  }
  return span;
}

//! Each stage's mean over its ranks, each device counted once per rank whose timeline it is.
std::vector<StageStats> stage_stats(const api::Simulation& simulation) {
  const int stages = simulation.job.strategy.pipeline_parallel;
  // Exact: a rank count times a time near the clock's range passes 64 bits.
  struct RankSums {
    WideInteger compute = 0;
    WideInteger communication = 0;
    WideInteger idle = 0;
    WideInteger host = 0;
    WideInteger ranks = 0;
  };
  std::vector<RankSums> sums(static_cast<size_t>(stages));
  const auto& devices = simulation.program.devices;
  for (size_t d = 0; d < devices.size() && d < simulation.summary.devices.size(); ++d) {
    auto& sum = sums[static_cast<size_t>(devices[d].coord[ParallelDim::pp])];
    const auto& stats = simulation.summary.devices[d];
    const WideInteger weight = devices[d].ranks;
    sum.compute += weight * stats.busy_compute;
    sum.communication += weight * stats.busy_communication;
    sum.idle += weight * stats.idle;
    sum.host += weight * stats.host_busy;
    sum.ranks += weight;
  }
  std::vector<StageStats> result(static_cast<size_t>(stages));
  const auto mean_seconds = [](WideInteger total, WideInteger ranks) {
    return ranks > 0 ? static_cast<double>(total) / static_cast<double>(ranks) * 1e-9 : 0.0;
  };
  for (int stage = 0; stage < stages; ++stage) {
    auto& s = result[static_cast<size_t>(stage)];
    const auto& sum = sums[static_cast<size_t>(stage)];
    s.compute_s = mean_seconds(sum.compute, sum.ranks);
    s.communication_s = mean_seconds(sum.communication, sum.ranks);
    s.idle_s = mean_seconds(sum.idle, sum.ranks);
    s.host_s = mean_seconds(sum.host, sum.ranks);
    s.layers = stage_layer_span(simulation.job, stage);
  }
  return result;
}

//! Every rank with its own coordinates and its simulated device's times: in symmetric mode the
//! tp × dp ranks of a stage share their stage device's figures.
//! One rank's record under `devices`: where it sits and its busy and idle time.
nlohmann::json device_json(const api::Simulation& simulation, const strategy::RankLayout& layout, int rank) {
  const auto coord = layout.coord_of(rank);
  const auto device = static_cast<size_t>(simulation.program.device_for_rank(layout, rank));
  const auto& stats = simulation.summary.devices.at(device);
  nlohmann::json entry = {{"rank", rank},
                          {"node", layout.host_of(rank)},
                          {"stage", coord[ParallelDim::pp]},
                          {"tp", coord[ParallelDim::tp]},
                          {"dp", coord[ParallelDim::dp]},
                          {"busy_compute_s", time_to_seconds(stats.busy_compute)},
                          {"busy_comm_s", time_to_seconds(stats.busy_communication)},
                          {"idle_s", time_to_seconds(stats.idle)},
                          {"host_busy_s", time_to_seconds(stats.host_busy)}};
  if (simulation.job.strategy.context_parallel > 1) {
    entry["cp"] = coord[ParallelDim::cp];
  }
  return entry;
}

nlohmann::json devices_json(const api::Simulation& simulation) {
  const strategy::RankLayout layout(simulation.job.strategy, simulation.job.cluster);
  nlohmann::json devices = nlohmann::json::array();
  for (int rank = 0; rank < layout.world_size(); ++rank) devices.push_back(device_json(simulation, layout, rank));
  return devices;
}

//! `text` with `indent` spaces after each line break and before its first line.
std::string indented(const std::string& text, const std::string& indent) {
  std::string out = indent;
  for (const char c : text) {
    out += c;
    if (c == '\n') out += indent;
  }
  return out;
}

//! How rank numbers map to grid coordinates and nodes: the dimensions fastest varying first, so
//! that rank = tp + TP·(cp + CP·(dp + DP·pp)), and the node of a rank is rank / gpus_per_node.
nlohmann::json rank_layout_json(const strategy::JobSpec& job) {
  nlohmann::json dims = nlohmann::json::array();
  for (const auto& dim : strategy::parallel_dims(job.strategy)) {
    dims.push_back({{"dim", strategy::parallel_dim_name(dim.dim)}, {"size", dim.size}});
  }
  return {{"fastest_first", std::move(dims)}, {"gpus_per_node", job.cluster.gpus_per_host}};
}

nlohmann::json stages_json(const api::Simulation& simulation) {
  nlohmann::json stages = nlohmann::json::array();
  int stage = 0;
  for (const auto& s : stage_stats(simulation)) {
    stages.push_back({{"stage", stage++},
                      {"layers", {{"first", s.layers.first}, {"count", s.layers.count}}},
                      {"busy_compute_s", s.compute_s},
                      {"busy_comm_s", s.communication_s},
                      {"idle_s", s.idle_s},
                      {"host_busy_s", s.host_s}});
  }
  return stages;
}

double dedup_ratio(const analysis::EventCounts& counts) {
  return counts.unique > 0 ? static_cast<double>(counts.instances) / static_cast<double>(counts.unique) : 0.0;
}

double percent(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

//! Each stage's mean compute, communication and idle time, and its host thread's launch time
//! when some stage's host launched anything (a column more).
void append_stage_table(std::string& text, const api::Simulation& simulation) {
  const double iteration_s = time_to_seconds(simulation.summary.iteration_time);
  const auto stages = stage_stats(simulation);
  const bool host = std::any_of(stages.begin(), stages.end(), [](const StageStats& s) { return s.host_s > 0; });
  auto out = std::back_inserter(text);
  fmt::format_to(out, "{:>5}  {:>9}  {:>20}  {:>20}  {:>20}", "stage", "layers", "compute ms", "comm ms", "idle ms");
  fmt::format_to(out, "{}\n", host ? fmt::format("  {:>20}", "host launches ms") : "");
  int stage = 0;
  for (const auto& s : stages) {
    const std::string layers = stage_layers_text(simulation.job, stage);
    fmt::format_to(out, "{:>5}  {:>9}  {:>10.3f} ({:>5.1f} %)  {:>10.3f} ({:>5.1f} %)  {:>10.3f} ({:>5.1f} %)", stage++,
                   layers, s.compute_s * 1e3, percent(s.compute_s, iteration_s), s.communication_s * 1e3,
                   percent(s.communication_s, iteration_s), s.idle_s * 1e3, percent(s.idle_s, iteration_s));
    fmt::format_to(out, "{}\n",
                   host ? fmt::format("  {:>10.3f} ({:>5.1f} %)", s.host_s * 1e3, percent(s.host_s, iteration_s)) : "");
  }
}

double gibibytes(std::int64_t bytes) { return static_cast<double>(bytes) / static_cast<double>(std::int64_t{1} << 30); }

nlohmann::json stage_memory_json(const memory::StageMemory& stage, bool capacities_differ) {
  nlohmann::json json = {{"stage", stage.stage},
                         {"parameters", stage.parameters},
                         {"microbatches_in_flight", stage.microbatches_in_flight},
                         {"weights_bytes", stage.weights},
                         {"gradients_bytes", stage.gradients},
                         {"optimizer_states_bytes", stage.optimizer_states},
                         {"activations_bytes", stage.activations},
                         {"pipeline_buffers_bytes", stage.pipeline_buffers},
                         {"overhead_bytes", stage.overhead},
                         {"total_bytes", stage.total()},
                         {"fits", stage.total() <= stage.capacity}};
  if (capacities_differ) {
    json["gpu"] = stage.gpu;
    json["capacity_bytes"] = stage.capacity;
  }
  return json;
}

}  // namespace

std::string simulated_name(const program::JobProgram& program) {
  if (!program.all_ranks) return "symmetric: one rank per stage";
  const auto& classes = *program.placement_classes;
  if (classes.num_classes() == classes.num_blocks()) return "all ranks";
  return fmt::format("all ranks, by placement class: {} of {} data-parallel indices simulated",
                     classes.simulated_indices(), classes.num_blocks() * classes.block_size());
}

nlohmann::json memory_json(const memory::MemoryEstimate& estimate) {
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& stage : estimate.stages) {
    stages.push_back(stage_memory_json(stage, estimate.capacities_differ()));
  }
  return {{"stages", stages},
          {"peak_bytes", estimate.peak().total()},
          {"peak_stage", estimate.peak().stage},
          {"capacity_bytes", estimate.capacity},
          {"fits", estimate.fits()}};
}

std::string memory_text(const memory::MemoryEstimate& estimate) {
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "memory per GPU (GiB):\n{:>5}  {:>9}  {:>8}  {:>8}  {:>9}  {:>11}  {:>8}  {:>8}  {:>8}\n",
                 "stage", "in flight", "weights", "grads", "optimizer", "activations", "buffers", "overhead", "total");
  for (const auto& s : estimate.stages) {
    fmt::format_to(out, "{:>5}  {:>9.2f}  {:>8.2f}  {:>8.2f}  {:>9.2f}  {:>11.2f}  {:>8.2f}  {:>8.2f}  {:>8.2f}\n",
                   s.stage, s.microbatches_in_flight, gibibytes(s.weights), gibibytes(s.gradients),
                   gibibytes(s.optimizer_states), gibibytes(s.activations), gibibytes(s.pipeline_buffers),
                   gibibytes(s.overhead), gibibytes(s.total()));
  }
  const auto& peak = estimate.peak();
  if (estimate.fits()) {
    fmt::format_to(out, "peak memory: {:.1f} GiB on stage {}, the {} has {:g} GiB: fits\n", gibibytes(peak.total()),
                   peak.stage, peak.gpu, gibibytes(peak.capacity));
    return text;
  }
  const auto& tightest = estimate.tightest();
  fmt::format_to(out, "OUT OF MEMORY: stage {} needs {:.1f} GiB, the {} has {:g} GiB", tightest.stage,
                 gibibytes(tightest.total()), tightest.gpu, gibibytes(tightest.capacity));
  const int over = estimate.stages_over_capacity();
  if (estimate.stages.size() > 1) {
    fmt::format_to(out, " ({} of {} stages do not fit)", over, estimate.stages.size());
  }
  text += '\n';
  return text;
}

namespace {

//! The built-in entry called exactly `name`, or nullptr.
template <class Spec>
const Spec* builtin_named(const std::vector<Spec>& catalog, const std::string& name) {
  for (const auto& entry : catalog) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

//! The model as its mapping, unless it is the built-in entry of its name (with the job's sequence
//! length, which the job's own setting gives).
std::optional<nlohmann::ordered_json> model_mapping(const strategy::JobSpec& job) {
  const model::ModelSpec* builtin = builtin_named(catalog::builtin_models(), job.model.name);
  nlohmann::ordered_json mapping = model_json(job.model);
  if (builtin != nullptr) {
    model::ModelSpec as_run = *builtin;
    as_run.seq_length = job.model.seq_length;
    if (model_json(as_run) == mapping) return std::nullopt;
  }
  return mapping;
}

std::optional<nlohmann::ordered_json> gpu_mapping(const strategy::JobSpec& job) {
  const cluster::GpuSpec* builtin = builtin_named(catalog::builtin_gpus(), job.cluster.gpu.name);
  nlohmann::ordered_json mapping = gpu_json(job.cluster.gpu);
  if (builtin != nullptr && gpu_json(*builtin) == mapping) return std::nullopt;
  return mapping;
}

//! The cluster as its mapping, unless it is the built-in entry of its name with the job's GPU,
//! node count and GPUs per node, which the job's own settings give.
std::optional<nlohmann::ordered_json> cluster_mapping(const strategy::JobSpec& job) {
  const cluster::ClusterSpec* builtin = builtin_named(catalog::builtin_clusters(), job.cluster.name);
  nlohmann::ordered_json mapping = cluster_json(job.cluster);
  if (builtin != nullptr) {
    cluster::ClusterSpec as_run = *builtin;
    as_run.gpu = job.cluster.gpu;
    as_run.num_hosts = job.cluster.num_hosts;
    as_run.gpus_per_host = job.cluster.gpus_per_host;
    if (cluster_json(as_run) == mapping) return std::nullopt;
  }
  return mapping;
}

//! A model, GPU or cluster that a name does not reproduce (a file, or a catalog entry of another
//! version) is echoed as its whole mapping, which a job file and the flags take inline.
std::optional<nlohmann::ordered_json> spec_mapping(const strategy::JobSpec& job, const std::string& key) {
  if (key == "model") return model_mapping(job);
  if (key == "gpu") return gpu_mapping(job);
  if (key == "cluster") return cluster_mapping(job);
  return std::nullopt;
}

}  // namespace

nlohmann::json job_settings_json(const strategy::JobSpec& job) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [key, value] : options::describe_job(job)) {
    const std::string& section = options::option(key).section;
    nlohmann::json& holder = section.empty() ? json : json[section];
    if (const auto mapping = spec_mapping(job, key)) {
      holder[key] = nlohmann::json(*mapping);
    } else {
      std::visit([&holder, &key = key](const auto& held) { holder[key] = held; }, value);
    }
  }
  return json;
}

std::string job_settings_text(const strategy::JobSpec& job, const std::vector<std::string>& left_out) {
  std::string text;
  for (const auto& [key, value] : options::describe_job(job)) {
    if (std::find(left_out.begin(), left_out.end(), key) != left_out.end()) continue;
    const auto mapping = spec_mapping(job, key);
    text += (text.empty() ? "" : " ") + key + "=" + (mapping ? flow_yaml(*mapping) : options::value_text(value));
  }
  return text;
}

nlohmann::json job_json(const strategy::JobSpec& job, const program::JobProgram& program) {
  const auto& s = job.strategy;
  nlohmann::json json = {{"model", job.model.name},
                         {"gpu", job.cluster.mixed() ? hosts_text(job.cluster) : job.cluster.gpu.name},
                         {"cluster", job.cluster.name},
                         {"nodes", job.cluster.num_hosts},
                         {"gpus_per_node", job.cluster.gpus_per_host},
                         {"strategy", s.notation()},
                         {"tp", s.tensor_parallel},
                         {"pp", s.pipeline_parallel},
                         {"dp", s.data_parallel},
                         {"micro_batch_size", s.micro_batch_size},
                         {"global_batch_size", s.global_batch_size},
                         {"num_microbatches", s.num_microbatches()},
                         {"schedule", s.schedule},
                         {"dtype", std::string(dtype_name(s.dtype))},
                         {"fp8_gemms", s.gemm_format == strategy::GemmFormat::fp8},
                         {"simulated", simulated_name(program)}};
  // Shown only when used, so that jobs without context parallelism read as before.
  if (s.context_parallel > 1) {
    json["cp"] = s.context_parallel;
  }
  if (s.gemm_format == strategy::GemmFormat::mxfp8 || s.gemm_format == strategy::GemmFormat::nvfp4) {
    json["gemm_precision"] = std::string(dtype_name(strategy::gemm_dtype(s.gemm_format, s.dtype)));
  }
  if (job.cluster.mixed()) {
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& group : job.cluster.host_groups)
      groups.push_back({{"gpu", group.gpu.name}, {"hosts", group.hosts}});
    json["host_groups"] = groups;
    const strategy::GpuPlacement gpus(job);
    nlohmann::json stage_gpus = nlohmann::json::array();
    for (int stage = 0; stage < s.pipeline_parallel; ++stage) {
      const int type = gpus.type_of_stage(stage);
      stage_gpus.push_back(type < 0 ? nlohmann::json(nullptr) : nlohmann::json(job.cluster.gpu_of_type(type).name));
    }
    json["stage_gpus"] = stage_gpus;  // null for a stage whose replicas run on several
  }
  return json;
}

std::string events_line(const analysis::EventCounts& counts) {
  const double ratio = dedup_ratio(counts);
  // Small ratios keep a decimal so that 1.5x does not read as 2x.
  const std::string dedup = ratio < 10 ? fmt::format("{:.1f}", ratio) : fmt::format("{:.0f}", ratio);
  return fmt::format("events: {} unique, {} instances (dedup {}x): {} profiled, {} extrapolated, {} analytical",
                     digits_grouped(counts.unique), digits_grouped(counts.instances), dedup,
                     digits_grouped(counts.profiled), digits_grouped(counts.extrapolated),
                     digits_grouped(counts.analytical));
}

//! What a mixture-of-experts job's prediction takes for granted that the job does not say: how
//! evenly the router spreads tokens and whether it drops any. Empty for a dense model.
std::vector<std::string> moe_assumptions(const strategy::JobSpec& job) {
  const auto& moe = job.model.moe;
  if (!moe.enabled()) {
    return {};
  }
  std::vector<std::string> assumptions;
  assumptions.push_back(fmt::format(
      "MoE load imbalance {} (busiest expert rank's tokens over the mean; 1.0 means perfectly balanced routing, as "
      "in force-balanced benchmark runs; set with --moe-imbalance)",
      options::value_text(options::option("moe_imbalance").read(job))));
  if (moe.dropless()) {
    assumptions.emplace_back("dropless routing (no capacity factor)");
  } else {
    assumptions.push_back(
        fmt::format("capacity factor {:g}: tokens beyond it are dropped{}", moe.capacity_factor,
                    job.strategy.moe_pad_to_capacity ? ", and every expert's input is padded to it" : ""));
  }
  return assumptions;
}

//! What the attention of a model with sliding windows or sinks is priced as.
std::vector<std::string> attention_assumptions(const model::ModelSpec& model) {
  std::vector<std::string> assumptions;
  if (model.sliding_window > 0) {
    std::string layers = model.window_layers == model::WindowLayers::all    ? "every layer"
                         : model.window_layers == model::WindowLayers::even ? "even layers"
                                                                            : "odd layers";
    if (model.window_start_layer > 0) {
      layers += fmt::format(" from layer {} on (0-based; the layers before it attend fully)", model.window_start_layer);
    }
    assumptions.push_back(fmt::format(
        "sliding window of {} keys on {}: only the query-key pairs inside the band are priced, as for the causal "
        "mask (the kernel's tiles along the band's edges also compute masked pairs)",
        model.sliding_window, layers));
  }
  if (model.attention_sinks) {
    assumptions.emplace_back(
        "attention sinks: one learned logit per query head, counted as parameters; the extra term of each softmax "
        "denominator is not priced separately");
  }
  return assumptions;
}

//! Every assumption of the job's prediction, printed as "assumed:" lines and in the JSON.
//! What a cluster of several GPU types takes for granted: one host design, the GPU apart, and
//! where each stage runs.
std::vector<std::string> mixed_cluster_assumptions(const strategy::JobSpec& job) {
  if (!job.cluster.mixed()) return {};
  std::vector<std::string> assumptions = {
      "every host group has the cluster's host design but its GPU: " + std::to_string(job.cluster.gpus_per_host) +
      " GPUs a host, its scale-up fabric (" + fmt::format("{:g}", job.cluster.intra_node.collective_busbw_gbps) +
      " GB/s bus bandwidth) and NICs; a GPU computes at its own rates, communication at the cluster's"};
  const strategy::GpuPlacement gpus(job);
  std::string stages;
  for (int stage = 0; stage < job.strategy.pipeline_parallel; ++stage) {
    const int type = gpus.type_of_stage(stage);
    stages += fmt::format("{}{} {}", stages.empty() ? "" : ", ", stage,
                          type < 0 ? "several GPUs" : job.cluster.gpu_of_type(type).name);
  }
  assumptions.push_back(std::string(job.strategy.stage_gpus.empty() ? "ranks fill the hosts in the cluster's order"
                                                                    : "each stage on the hosts of its stage_gpus") +
                        "; stages on: " + stages);
  return assumptions;
}

std::vector<std::string> job_assumptions(const strategy::JobSpec& job) {
  std::vector<std::string> assumptions = attention_assumptions(job.model);
  for (auto& assumption : moe_assumptions(job)) {
    assumptions.push_back(std::move(assumption));
  }
  for (auto& assumption : mixed_cluster_assumptions(job)) {
    assumptions.push_back(std::move(assumption));
  }
  if (job.strategy.host_time == strategy::HostTime::modelled) {
    if (std::string cpu = catalog::host_cpu_assumption(job.cluster); !cpu.empty())
      assumptions.push_back(std::move(cpu));
  }
  return assumptions;
}

nlohmann::json summary_json(const api::Simulation& simulation, RankRecords ranks) {
  const auto& summary = simulation.summary;
  const auto& counts = summary.events;
  const auto& s = simulation.job.strategy;
  nlohmann::json json = {{"job", job_settings_json(simulation.job)},
                         {"strategy", s.notation()},
                         {"num_microbatches", s.num_microbatches()},
                         {"simulated", simulated_name(simulation.program)},
                         {"iteration_time_s", time_to_seconds(summary.iteration_time)},
                         {"throughput_samples_per_s", summary.throughput_samples_per_s},
                         {"tokens_per_s", summary.tokens_per_s},
                         {"tflops_per_gpu", summary.tflops_per_gpu},
                         {"mfu", summary.mfu},
                         {"mfu_peak_tflops", summary.mfu_peak_tflops},
                         {"bubble_fraction", summary.bubble_fraction},
                         {"rank_layout", rank_layout_json(simulation.job)},
                         {"stages", stages_json(simulation)},
                         {"events",
                          {{"unique", counts.unique},
                           {"instances", counts.instances},
                           {"profiled", counts.profiled},
                           {"extrapolated", counts.extrapolated},
                           {"analytical", counts.analytical},
                           {"dedup_ratio", dedup_ratio(counts)}}},
                         {"memory", memory_json(simulation.memory)}};
  if (ranks == RankRecords::every_rank) {
    json["devices"] = devices_json(simulation);
  }
  const auto assumptions = job_assumptions(simulation.job);
  if (!assumptions.empty()) {
    json["assumptions"] = assumptions;
  }
  if (simulation.jitter) json["jitter"] = jitter_json(*simulation.jitter);
  if (simulation.goodput) json["goodput"] = goodput_json(*simulation.goodput);
  return json;
}

void write_summary_json(std::ostream& out, const api::Simulation& simulation, RankRecords ranks) {
  nlohmann::json json = summary_json(simulation, RankRecords::stages);
  if (ranks == RankRecords::stages) {
    out << json.dump(2) << "\n";
    return;
  }
  // The whole document with a mark where the ranks go, then the ranks one at a time, each as
  // dump(2) writes an object two levels deep. Only the key itself starts a line with it: a line
  // break inside a string is written "\n".
  json["devices"] = "devices";
  const std::string text = json.dump(2);
  const std::string marked = "\n  \"devices\": \"devices\"";
  const std::size_t at = text.find(marked);
  out << text.substr(0, at) << "\n  \"devices\": [\n";
  const strategy::RankLayout layout(simulation.job.strategy, simulation.job.cluster);
  for (int rank = 0; rank < layout.world_size(); ++rank) {
    out << (rank == 0 ? "" : ",\n") << indented(device_json(simulation, layout, rank).dump(2), "    ");
  }
  out << "\n  ]" << text.substr(at + marked.size()) << "\n";
}

std::string summary_text(const api::Simulation& simulation) {
  const auto& job = simulation.job;
  const auto& s = job.strategy;
  const auto& summary = simulation.summary;
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "job: {} on {} ({}), {}, micro-batch {}, global batch {} ({} micro-batches), {}, {}; {}\n",
                 job.model.name, hosts_text(job.cluster), job.cluster.name, s.notation(), s.micro_batch_size,
                 s.global_batch_size, s.num_microbatches(),
                 s.schedule + (s.overlap_moe_expert_parallel_comm ? " (combined 1F1B)" : ""), s.precision_name(),
                 simulated_name(simulation.program));
  fmt::format_to(out, "settings: {}\n", job_settings_text(job));
  for (const auto& assumption : job_assumptions(job)) {
    fmt::format_to(out, "assumed: {}\n", assumption);
  }
  fmt::format_to(out, "iteration time: {:.3f} ms\n", time_to_seconds(summary.iteration_time) * 1e3);
  fmt::format_to(out, "throughput: {:.2f} samples/s\n", summary.throughput_samples_per_s);
  fmt::format_to(out, "tokens/s: {:.0f}\n", summary.tokens_per_s);
  fmt::format_to(out, "TFLOP/s per GPU: {:.2f}\n", summary.tflops_per_gpu);
  fmt::format_to(out, "MFU: {:.2f} % (of the {}{:g} TFLOP/s {} peak{})\n", summary.mfu * 100,
                 job.cluster.mixed() ? "mean " : "", summary.mfu_peak_tflops, dtype_name(s.dtype),
                 job.cluster.mixed() ? " of its GPUs" : "");
  fmt::format_to(out, "bubble: {:.2f} %\n", summary.bubble_fraction * 100);
  append_stage_table(text, simulation);
  text += memory_text(simulation.memory);
  text += events_line(summary.events);
  text += '\n';
  if (simulation.jitter) text += jitter_text(*simulation.jitter);
  if (simulation.goodput) text += goodput_text(*simulation.goodput);
  return text;
}

}  // namespace distsim::io
