#include "io/output/events_writer.hpp"

#include <iterator>

#include <fmt/format.h>

#include "io/output/summary_writer.hpp"

namespace distsim::io {

namespace {

std::string_view class_name(events::EventClass event_class) {
  switch (event_class) {
    case events::EventClass::gemm: return "gemm";
    case events::EventClass::attention: return "attention";
    case events::EventClass::memory_bound: return "memory_bound";
    case events::EventClass::collective: return "collective";
    case events::EventClass::point_to_point: return "point_to_point";
  }
  return "?";
}

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

nlohmann::json event_json(const program::JobProgram& program, events::EventId id) {
  const auto& event = program.events.at(id);
  const auto& cost = program.costs.at(id);
  nlohmann::json entry = {{"id", id},
                          {"key", event.key()},
                          {"class", std::string(class_name(event.event_class))},
                          {"op", event.op}};
  if (event.is_communication()) {
    entry["collective"] = std::string(events::collective_name(event.collective));
    entry["bytes"] = event.bytes;
    entry["group_size"] = event.group_size;
    entry["scope"] = event.intra_node ? "intra" : "inter";
    entry["ranks_per_node"] = event.ranks_per_node;
  } else {
    nlohmann::json dims = nlohmann::json::object();
    for (const auto& dim : event.dims) {
      dims[dim.name] = dim.value;
    }
    entry["dims"] = std::move(dims);
  }
  entry["dtype"] = std::string(dtype_name(event.dtype));
  entry["flops"] = event.flops;
  entry["bytes_moved"] = event.bytes_moved;
  entry["instances"] = program.events.instances(id);
  entry["duration_us"] = static_cast<double>(cost.duration) / 1e3;
  entry["source"] = std::string(cost::cost_source_name(cost.source));
  return entry;
}

}  // namespace

nlohmann::json events_json(const strategy::JobSpec& job, const program::JobProgram& program) {
  const auto counts = count_events(program);
  nlohmann::json list = nlohmann::json::array();
  for (events::EventId id = 0; id < program.events.size(); ++id) {
    list.push_back(event_json(program, id));
  }
  const double ratio =
      counts.unique > 0 ? static_cast<double>(counts.instances) / static_cast<double>(counts.unique) : 0.0;
  return {{"job", job_json(job, program.all_ranks)},
          {"unique", counts.unique},
          {"instances", counts.instances},
          {"dedup_ratio", ratio},
          {"events", std::move(list)}};
}

std::string events_text(const strategy::JobSpec& job, const program::JobProgram& program) {
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "unique events of {} ({}, {}):\n", job.model.name, job.strategy.notation(),
                 job.cluster.gpu.name);
  // Written out rather than padded by fmt, which counts the bytes of "µ" as columns.
  text += "    id  source           duration µs     instances  key\n";
  for (events::EventId id = 0; id < program.events.size(); ++id) {
    const auto& cost = program.costs.at(id);
    fmt::format_to(out, "{:>6}  {:<12}  {:>14.3f}  {:>12}  {}\n", id, cost::cost_source_name(cost.source),
                   static_cast<double>(cost.duration) / 1e3, program.events.instances(id),
                   program.events.at(id).key());
  }
  text += events_line(count_events(program));
  text += '\n';
  return text;
}

}  // namespace distsim::io
