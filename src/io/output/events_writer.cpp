#include "io/output/events_writer.hpp"

#include <iterator>

#include <fmt/format.h>

#include "core/plain_text.hpp"
#include "io/output/summary_writer.hpp"
#include "io/spec/spec_writer.hpp"

namespace distsim::io {

namespace {

//! The same counts the run summary reports, read off the program alone so that the event list
//! can be written without running the engine.
analysis::EventCounts count_events(const program::JobProgram& program) {
  analysis::EventCounts counts;
  counts.unique = static_cast<std::int64_t>(program.events.size());
  counts.instances = program.events.total_instances();
  for (const auto& cost : program.costs) {
    switch (cost.source) {
      case cost::CostSource::profiled: ++counts.profiled; break;
      case cost::CostSource::extrapolated: ++counts.extrapolated; break;
      case cost::CostSource::analytical: ++counts.analytical; break;
    }
  }
  return counts;
}

analysis::EventCounts count_events(const search::EventCensus& census) {
  analysis::EventCounts counts;
  counts.unique = static_cast<std::int64_t>(census.events().size());
  counts.instances = census.total_instances();
  for (const auto& entry : census.events()) {
    switch (entry.cost.source) {
      case cost::CostSource::profiled: ++counts.profiled; break;
      case cost::CostSource::extrapolated: ++counts.extrapolated; break;
      case cost::CostSource::analytical: ++counts.analytical; break;
    }
  }
  return counts;
}

double ratio_of(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

nlohmann::json event_json(events::EventId id, const events::Event& event, const cost::Cost& cost,
                          std::int64_t instances) {
  nlohmann::json entry = {{"id", id},
                          {"key", event.key()},
                          {"class", std::string(events::event_class_name(event.event_class))},
                          {"op", std::string(events::operator_name(event.op))}};
  if (event.is_communication()) {
    entry["collective"] = std::string(events::collective_name(event.collective));
    entry["bytes"] = event.bytes;
    entry["group_size"] = event.group_size;
    entry["scope"] = event.within_domain ? "intra" : "inter";
    entry["ranks_per_domain"] = event.ranks_per_domain;
  } else {
    nlohmann::json dims = nlohmann::json::object();
    for (const auto& dim : event.dims) {
      dims[std::string(dim.name)] = dim.value;
    }
    entry["dims"] = std::move(dims);
  }
  entry["dtype"] = std::string(dtype_name(event.dtype));
  entry["flops"] = event.flops;
  entry["bytes_moved"] = event.bytes_moved;
  entry["instances"] = instances;
  entry["duration_us"] = static_cast<double>(cost.duration) / 1e3;
  entry["source"] = std::string(cost::cost_source_name(cost.source));
  return entry;
}

bool skipped(const cost::Cost& cost, bool skip_profiled) {
  return skip_profiled && cost.source == cost::CostSource::profiled;
}

std::string ratio_text(double ratio) {
  return ratio < 10 ? fmt::format("{:.1f}x", ratio) : fmt::format("{:.0f}x", ratio);
}

nlohmann::json census_job_json(const strategy::JobSpec& spec, const search::CensusJob& job) {
  nlohmann::json entry = {{"label", job.label}, {"job", job_settings_json(spec)}};
  entry["strategy"] = spec.strategy.notation();
  entry["num_microbatches"] = spec.strategy.num_microbatches();
  entry["world_size"] = job.world_size;
  entry["iteration_time_s"] = job.iteration_time_s;
  entry["unique"] = job.unique;
  entry["instances"] = job.instances;
  entry["dedup_ratio"] = job.dedup_ratio();
  return entry;
}

nlohmann::json cost_json(const search::ProfilingCost& cost, const search::ProfilingCostOptions& options) {
  return {{"warmup", options.warmup},
          {"repeats", options.repeats},
          {"max_nodes", options.max_nodes},
          {"measured_events", cost.measured_events},
          {"profile_device_seconds", cost.profile_device_seconds},
          {"direct_iterations", options.iterations()},
          {"direct_device_seconds", cost.direct_device_seconds},
          {"ratio", cost.ratio()}};
}

nlohmann::json census_event_json(events::EventId id, const search::CensusEvent& entry,
                                 const search::ProfilingCostOptions& options) {
  nlohmann::json json = event_json(id, entry.event, entry.cost, entry.instances);
  json["jobs"] = entry.jobs;
  const events::Event measured = search::measured_form(entry.event, options);
  json["profile_devices"] = search::profiling_devices(measured);
  if (measured.group_size != entry.event.group_size) {
    json["measured_as"] = measured.key();
  }
  return json;
}

std::int64_t count_profiled(const search::EventCensus& census) {
  std::int64_t count = 0;
  for (const auto& entry : census.events()) {
    count += entry.cost.source == cost::CostSource::profiled ? 1 : 0;
  }
  return count;
}

}  // namespace

nlohmann::json events_json(const strategy::JobSpec& job, const program::JobProgram& program, bool skip_profiled) {
  const auto counts = count_events(program);
  nlohmann::json list = nlohmann::json::array();
  for (events::EventId id = 0; id < program.events.size(); ++id) {
    if (skipped(program.costs.at(id), skip_profiled)) continue;
    list.push_back(event_json(id, program.events.at(id), program.costs.at(id), program.events.instances(id)));
  }
  nlohmann::json json = {
      {"job", job_settings_json(job)},
      {"strategy", job.strategy.notation()},
      {"num_microbatches", job.strategy.num_microbatches()},
      {"simulated", simulated_name(program)},
      {"unique", counts.unique},
      {"instances", counts.instances},
      {"dedup_ratio", ratio_of(static_cast<double>(counts.instances), static_cast<double>(counts.unique))}};
  if (skip_profiled) {
    json["skipped_profiled"] = counts.profiled;
  }
  json["events"] = std::move(list);
  return json;
}

std::string events_text(const strategy::JobSpec& job, const program::JobProgram& program, bool skip_profiled) {
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "unique events of {} ({}, {}):\n", job.model.name, job.strategy.notation(),
                 job.cluster.mixed() ? hosts_text(job.cluster) : job.cluster.gpu.name);
  if (job.cluster.mixed()) {
    std::string types;
    for (const int type : job.cluster.gpu_types()) {
      types += fmt::format("{}{} {}", types.empty() ? "" : ", ", type, job.cluster.gpu_of_type(type).name);
    }
    fmt::format_to(out, "GPU types (gpu= in a key, 0 when left out): {}\n", types);
  }
  fmt::format_to(out, "settings: {}\n", job_settings_text(job));
  // Written out rather than padded by fmt, which counts the bytes of "µ" as columns.
  text += "    id  source           duration µs     instances  key\n";
  for (events::EventId id = 0; id < program.events.size(); ++id) {
    const auto& cost = program.costs.at(id);
    if (skipped(cost, skip_profiled)) continue;
    fmt::format_to(out, "{:>6}  {:<12}  {:>14.3f}  {:>12}  {}\n", id, cost::cost_source_name(cost.source),
                   static_cast<double>(cost.duration) / 1e3, program.events.instances(id), program.events.at(id).key());
  }
  const auto counts = count_events(program);
  if (skip_profiled) {
    fmt::format_to(out, "left out {} events already profiled\n", counts.profiled);
  }
  text += events_line(counts);
  text += '\n';
  return text;
}

nlohmann::json census_json(const std::vector<strategy::JobSpec>& jobs, const search::EventCensus& census,
                           const search::ProfilingCostOptions& options) {
  nlohmann::json job_list = nlohmann::json::array();
  for (std::size_t i = 0; i < census.jobs().size(); ++i) {
    job_list.push_back(census_job_json(jobs.at(i), census.jobs()[i]));
  }
  nlohmann::json list = nlohmann::json::array();
  std::int64_t shared = 0;
  for (std::size_t id = 0; id < census.events().size(); ++id) {
    const auto& entry = census.events()[id];
    shared += entry.jobs > 1 ? 1 : 0;
    if (skipped(entry.cost, options.skip_profiled)) continue;
    list.push_back(census_event_json(static_cast<events::EventId>(id), entry, options));
  }
  const auto unique = static_cast<double>(census.events().size());
  nlohmann::json json = {{"jobs", std::move(job_list)},
                         {"unique", census.events().size()},
                         {"instances", census.total_instances()},
                         {"dedup_ratio", census.dedup_ratio()},
                         {"sum_of_job_unique", census.sum_of_job_unique()},
                         {"cross_job_dedup_ratio", ratio_of(static_cast<double>(census.sum_of_job_unique()), unique)},
                         {"shared_by_several_jobs", shared}};
  if (options.skip_profiled) {
    json["skipped_profiled"] = count_profiled(census);
  }
  json["profiling_cost"] = cost_json(search::estimate_profiling_cost(census, options), options);
  json["events"] = std::move(list);
  return json;
}

std::string census_text(const search::EventCensus& census, const search::ProfilingCostOptions& options) {
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "event census of {} jobs:\n", census.jobs().size());
  fmt::format_to(out, "  {:<32}  {:>8}  {:>16}  {:>8}  {:>12}\n", "job", "unique", "instances", "dedup", "iteration s");
  for (const auto& job : census.jobs()) {
    fmt::format_to(out, "  {:<32}  {:>8}  {:>16}  {:>8}  {:>12.6f}\n", job.label, digits_grouped(job.unique),
                   digits_grouped(job.instances), ratio_text(job.dedup_ratio()), job.iteration_time_s);
  }
  const auto unique = static_cast<std::int64_t>(census.events().size());
  std::int64_t shared = 0;
  for (const auto& entry : census.events()) shared += entry.jobs > 1 ? 1 : 0;
  fmt::format_to(out,
                 "unique events: {} over the set, {} summed over the jobs (dedup across jobs {}); {} used by "
                 "more than one job\n",
                 digits_grouped(unique), digits_grouped(census.sum_of_job_unique()),
                 ratio_text(ratio_of(static_cast<double>(census.sum_of_job_unique()), static_cast<double>(unique))),
                 digits_grouped(shared));
  text += events_line(count_events(census));
  text += '\n';
  const search::ProfilingCost cost = search::estimate_profiling_cost(census, options);
  fmt::format_to(out, "profiling cost ({} warm-up + {} timed runs per event, collectives on at most {} nodes):\n",
                 options.warmup, options.repeats, options.max_nodes);
  const std::string left_out =
      options.skip_profiled ? fmt::format(", {} already profiled left out", count_profiled(census)) : "";
  fmt::format_to(out, "  profile {} measured events{}: {:.3f} device-seconds\n", digits_grouped(cost.measured_events),
                 left_out, cost.profile_device_seconds);
  fmt::format_to(out, "  run each job directly for {} iterations: {:.3f} device-seconds\n", options.iterations(),
                 cost.direct_device_seconds);
  fmt::format_to(out, "  profiling / direct: {:.3g} %\n", 100.0 * cost.ratio());
  return text;
}

}  // namespace distsim::io
