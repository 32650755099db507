#include "io/output/summary_writer.hpp"

#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "events/job_events.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::io {

namespace {

//! How the devices of one pipeline stage spent the iteration, in seconds. In all-ranks mode a
//! stage has many devices and their mean is reported; in symmetric mode it has exactly one.
struct StageStats {
  events::LayerRange layers;
  double compute_s = 0;
  double communication_s = 0;
  double idle_s = 0;
};

std::vector<StageStats> stage_stats(const api::Simulation& simulation) {
  const int stages = simulation.job.strategy.pipeline_parallel;
  std::vector<StageStats> result(static_cast<size_t>(stages));
  std::vector<int> members(static_cast<size_t>(stages), 0);
  const auto& devices = simulation.program.devices;
  for (size_t d = 0; d < devices.size() && d < simulation.summary.devices.size(); ++d) {
    const auto stage = static_cast<size_t>(devices[d].coord.pp);
    const auto& stats = simulation.summary.devices[d];
    result[stage].compute_s += time_to_seconds(stats.busy_compute);
    result[stage].communication_s += time_to_seconds(stats.busy_communication);
    result[stage].idle_s += time_to_seconds(stats.idle);
    ++members[stage];
  }
  for (int stage = 0; stage < stages; ++stage) {
    auto& s = result[static_cast<size_t>(stage)];
    const int count = members[static_cast<size_t>(stage)];
    if (count > 1) {
      s.compute_s /= count;
      s.communication_s /= count;
      s.idle_s /= count;
    }
    s.layers = events::stage_layers(simulation.job.model.total_layers(), stages, stage);
  }
  return result;
}

//! Every rank with its own coordinates and its simulated device's times: in symmetric mode the
//! tp × dp ranks of a stage share their stage device's figures.
nlohmann::json devices_json(const api::Simulation& simulation) {
  const auto& job = simulation.job;
  const strategy::RankLayout layout(job.strategy, job.cluster.gpus_per_node);
  nlohmann::json devices = nlohmann::json::array();
  for (int rank = 0; rank < layout.world_size(); ++rank) {
    const auto coord = layout.coord_of(rank);
    const auto device = static_cast<size_t>(simulation.program.device_for_rank(layout, rank));
    const auto& stats = simulation.summary.devices.at(device);
    devices.push_back({{"rank", rank},
                       {"node", layout.node_of(rank)},
                       {"stage", coord.pp},
                       {"tp", coord.tp},
                       {"dp", coord.dp},
                       {"busy_compute_s", time_to_seconds(stats.busy_compute)},
                       {"busy_comm_s", time_to_seconds(stats.busy_communication)},
                       {"idle_s", time_to_seconds(stats.idle)}});
  }
  return devices;
}

nlohmann::json stages_json(const api::Simulation& simulation) {
  nlohmann::json stages = nlohmann::json::array();
  int stage = 0;
  for (const auto& s : stage_stats(simulation)) {
    stages.push_back({{"stage", stage++},
                      {"layers", {{"first", s.layers.first}, {"count", s.layers.count}}},
                      {"busy_compute_s", s.compute_s},
                      {"busy_comm_s", s.communication_s},
                      {"idle_s", s.idle_s}});
  }
  return stages;
}

double dedup_ratio(const analysis::EventCounts& counts) {
  return counts.unique > 0 ? static_cast<double>(counts.instances) / static_cast<double>(counts.unique) : 0.0;
}

//! 1234567 → "1,234,567".
std::string grouped(std::int64_t value) {
  const std::string digits = std::to_string(value);
  const size_t sign = value < 0 ? 1 : 0;
  std::string result = digits.substr(0, sign);
  for (size_t i = sign; i < digits.size(); ++i) {
    if (i > sign && (digits.size() - i) % 3 == 0) {
      result += ',';
    }
    result += digits[i];
  }
  return result;
}

std::string simulated_name(bool all_ranks) { return all_ranks ? "all ranks" : "symmetric: one rank per stage"; }

double percent(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

void append_stage_table(std::string& text, const api::Simulation& simulation) {
  const double iteration_s = time_to_seconds(simulation.summary.iteration_time);
  auto out = std::back_inserter(text);
  fmt::format_to(out, "{:>5}  {:>9}  {:>20}  {:>20}  {:>20}\n", "stage", "layers", "compute ms", "comm ms",
                 "idle ms");
  int stage = 0;
  for (const auto& s : stage_stats(simulation)) {
    const std::string layers = fmt::format("{}-{}", s.layers.first, s.layers.first + s.layers.count - 1);
    fmt::format_to(out, "{:>5}  {:>9}  {:>10.3f} ({:>5.1f} %)  {:>10.3f} ({:>5.1f} %)  {:>10.3f} ({:>5.1f} %)\n",
                   stage++, layers, s.compute_s * 1e3, percent(s.compute_s, iteration_s), s.communication_s * 1e3,
                   percent(s.communication_s, iteration_s), s.idle_s * 1e3, percent(s.idle_s, iteration_s));
  }
}

}  // namespace

nlohmann::json job_json(const strategy::JobSpec& job, bool all_ranks) {
  const auto& s = job.strategy;
  return {{"model", job.model.name},
          {"gpu", job.cluster.gpu.name},
          {"cluster", job.cluster.name},
          {"nodes", job.cluster.num_nodes},
          {"gpus_per_node", job.cluster.gpus_per_node},
          {"strategy", s.notation()},
          {"tp", s.tensor_parallel},
          {"pp", s.pipeline_parallel},
          {"dp", s.data_parallel},
          {"micro_batch_size", s.micro_batch_size},
          {"global_batch_size", s.global_batch_size},
          {"num_microbatches", s.num_microbatches()},
          {"schedule", s.schedule},
          {"dtype", std::string(dtype_name(s.dtype))},
          {"simulated", simulated_name(all_ranks)}};
}

std::string events_line(const analysis::EventCounts& counts) {
  const double ratio = dedup_ratio(counts);
  // Small ratios keep a decimal so that 1.5x does not read as 2x.
  const std::string dedup = ratio < 10 ? fmt::format("{:.1f}", ratio) : fmt::format("{:.0f}", ratio);
  return fmt::format("events: {} unique, {} instances (dedup {}x): {} profiled, {} extrapolated, {} analytical",
                     grouped(counts.unique), grouped(counts.instances), dedup, grouped(counts.profiled),
                     grouped(counts.extrapolated), grouped(counts.analytical));
}

nlohmann::json summary_json(const api::Simulation& simulation) {
  const auto& summary = simulation.summary;
  const auto& counts = summary.events;
  return {{"job", job_json(simulation.job, simulation.program.all_ranks)},
          {"iteration_time_s", time_to_seconds(summary.iteration_time)},
          {"throughput_samples_per_s", summary.throughput_samples_per_s},
          {"tokens_per_s", summary.tokens_per_s},
          {"tflops_per_gpu", summary.tflops_per_gpu},
          {"mfu", summary.mfu},
          {"bubble_fraction", summary.bubble_fraction},
          {"devices", devices_json(simulation)},
          {"stages", stages_json(simulation)},
          {"events",
           {{"unique", counts.unique},
            {"instances", counts.instances},
            {"profiled", counts.profiled},
            {"extrapolated", counts.extrapolated},
            {"analytical", counts.analytical},
            {"dedup_ratio", dedup_ratio(counts)}}}};
}

std::string summary_text(const api::Simulation& simulation) {
  const auto& job = simulation.job;
  const auto& s = job.strategy;
  const auto& summary = simulation.summary;
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out,
                 "job: {} on {} x {} {} ({}), {}, micro-batch {}, global batch {} ({} micro-batches), {}, {}; {}\n",
                 job.model.name, job.cluster.num_nodes, job.cluster.gpus_per_node, job.cluster.gpu.name,
                 job.cluster.name, s.notation(), s.micro_batch_size, s.global_batch_size, s.num_microbatches(),
                 s.schedule, dtype_name(s.dtype), simulated_name(simulation.program.all_ranks));
  fmt::format_to(out, "iteration time: {:.3f} ms\n", time_to_seconds(summary.iteration_time) * 1e3);
  fmt::format_to(out, "throughput: {:.2f} samples/s\n", summary.throughput_samples_per_s);
  fmt::format_to(out, "tokens/s: {:.0f}\n", summary.tokens_per_s);
  fmt::format_to(out, "TFLOP/s per GPU: {:.2f}\n", summary.tflops_per_gpu);
  fmt::format_to(out, "MFU: {:.2f} %\n", summary.mfu * 100);
  fmt::format_to(out, "bubble: {:.2f} %\n", summary.bubble_fraction * 100);
  append_stage_table(text, simulation);
  text += events_line(summary.events);
  text += '\n';
  return text;
}

}  // namespace distsim::io
