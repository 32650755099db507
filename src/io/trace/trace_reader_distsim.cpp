#include <algorithm>
#include <array>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "io/trace/trace_reader_formats.hpp"
#include "options/job_option.hpp"
#include "whatif/simulated_operations.hpp"

namespace distsim::io::trace_format {

namespace {

using nlohmann::json;

//! The job settings that shape the ranks' groups besides tp, cp, dp and pp, which a measured
//! collective is placed in (compare::measured_communication_kind), as otherData.job echoes them.
constexpr std::array<std::string_view, 6> kGroupSettings{"ep",           "etp",        "sharding", "shard_group_size",
                                                         "cp_comm_type", "cp_a2a_size"};

//! otherData.job's value of `key` (the top level or a section of the echo), or nullptr.
const json* echoed_setting(const json& settings, std::string_view key) {
  if (const auto found = settings.find(key); found != settings.end()) return &*found;
  for (const auto& section : settings) {
    if (!section.is_object()) continue;
    if (const auto found = section.find(key); found != section.end()) return &*found;
  }
  return nullptr;
}

void apply_group_settings(const TraceFile& file, const json& other, strategy::Strategy& job) {
  const auto settings = other.find("job");
  if (settings == other.end() || !settings->is_object()) return;
  strategy::JobSpec spec;
  spec.strategy = job;
  for (const std::string_view key : kGroupSettings) {
    const json* value = echoed_setting(*settings, key);
    if (value == nullptr) continue;
    const auto& option = options::option(key);
    const options::ParsedValue parsed =
        options::parse_value(option, value->is_string() ? value->get<std::string>() : value->dump());
    if (!parsed.ok()) {
      throw InputError(fmt::format("{}: otherData.job.{}: {}", file.path, key, parsed.problem));
    }
    option.apply(parsed.value, spec, {});
  }
  job = spec.strategy;
}

strategy::Strategy job_of(const TraceFile& file, const json& other) {
  const std::string place = file.path + ": otherData";
  strategy::Strategy job;
  job.tensor_parallel = required_int(other, "tp", place);
  job.pipeline_parallel = required_int(other, "pp", place);
  job.data_parallel = required_int(other, "dp", place);
  if (job.tensor_parallel < 1 || job.pipeline_parallel < 1 || job.data_parallel < 1) {
    throw InputError(fmt::format("{}: tp, pp and dp must be at least 1 (they are {}, {}, {})", place,
                                 job.tensor_parallel, job.pipeline_parallel, job.data_parallel));
  }
  // distsim writes cp only for jobs with context parallelism.
  job.context_parallel = other.contains("cp") ? required_int(other, "cp", place) : 1;
  if (job.context_parallel < 1) {
    throw InputError(fmt::format("{}: cp must be at least 1, got {}", place, job.context_parallel));
  }
  job.schedule = optional_string(other, "schedule", place, job.schedule);
  apply_group_settings(file, other, job);
  return job;
}

//! The ranks the trace names: every pid with a process_name or an activity.
std::map<int, compare::RankTimeline> ranks_named(const TraceFile& file, int world_size) {
  std::map<int, compare::RankTimeline> ranks;
  for (std::size_t i = 0; i < file.root["traceEvents"].size(); ++i) {
    const json& event = file.root["traceEvents"][i];
    const std::string place = fmt::format("{}: traceEvents[{}]", file.path, i);
    const auto ph = optional_string(event, "ph", place);
    if (ph != "X" && !(ph == "M" && optional_string(event, "name", place) == "process_name")) {
      continue;
    }
    const int rank = required_int(event, "pid", place);
    if (rank < 0 || rank >= world_size) {
      throw InputError(fmt::format("{}: traceEvents[{}]: pid {} is not a rank of the job's {} ranks", file.path, i,
                                   rank, world_size));
    }
    ranks[rank].rank = rank;
  }
  return ranks;
}

//! Each activity on a device (not the host thread's launches, which a measured trace has none of to
//! match), in file order, with its rank.
void visit_device_activities(const TraceFile& file,
                             const std::function<void(int, const TimedEvent&, compare::Activity)>& visit) {
  for (const auto& event : timed_events(file)) {
    const std::string place = where(file, event);
    const int tid = required_int(*event.event, "tid", place);
    const auto kind = parse_category(event.category, tid, place);
    if (!compare::on_device(kind)) continue;
    visit(required_int(*event.event, "pid", place), event, labelled_activity(event, kind, place));
  }
}

//! The job's virtual pipeline stages, which otherData.job says (1 when it does not).
int virtual_stages_of(const TraceFile& file, const json& other) {
  const auto job = other.find("job");
  if (job == other.end() || !job->is_object() || !job->contains("virtual_stages")) return 1;
  return required_int(*job, "virtual_stages", file.path + ": otherData.job");
}

}  // namespace

bool is_distsim_trace(const TraceFile& file) {
  const auto other = file.root.find("otherData");
  return other != file.root.end() && other->is_object() && other->contains("iteration_time_ns");
}

FileTrace read_distsim_trace(const TraceFile& file) {
  // find, not operator[]: on a const document a missing key is undefined behaviour there.
  const auto found = file.root.find("otherData");
  if (found == file.root.end() || !found->is_object()) {
    throw InputError(file.path + ": otherData is not an object");
  }
  const json& other = *found;
  FileTrace trace;
  trace.format = "distsim trace";
  trace.job = job_of(file, other);
  trace.world_size = trace.job->world_size();
  trace.coords_known = true;
  const auto iteration = other.find("iteration_time_ns");
  if (!iteration->is_number_integer() || iteration->get<SimTime>() < 0) {
    throw InputError(file.path + ": otherData.iteration_time_ns is not a count of nanoseconds");
  }
  trace.end = iteration->get<SimTime>();
  auto ranks = ranks_named(file, *trace.world_size);
  visit_device_activities(file, [&](int rank, const TimedEvent&, compare::Activity activity) {
    ranks[rank].activities.push_back(activity);
  });
  const strategy::RankLayout layout(strategy::parallel_dims(*trace.job), {});
  for (auto& [rank, timeline] : ranks) {
    timeline.coord = layout.coord_of(rank);
    timeline.file = file.path;
    trace.ranks.push_back(std::move(timeline));
  }
  return trace;
}

whatif::MeasuredTrace read_distsim_steps(const TraceFile& file) {
  if (!is_distsim_trace(file)) throw InputError(file.path + ": otherData.iteration_time_ns is missing");
  // find, not operator[]: on a const document a missing key is undefined behaviour there.
  const json& other = *file.root.find("otherData");
  const strategy::Strategy job = job_of(file, other);
  ranks_named(file, job.world_size());
  const strategy::RankLayout layout(strategy::parallel_dims(job), {});
  std::vector<whatif::SimulatedActivity> activities;
  visit_device_activities(file, [&](int rank, const TimedEvent& event, compare::Activity activity) {
    const strategy::RankCoord coord = layout.coord_of(rank);
    activities.push_back({coord[strategy::ParallelDim::dp], coord[strategy::ParallelDim::pp],
                          coord[strategy::ParallelDim::tp], activity.kind, activity.phase, activity.microbatch,
                          event.name, activity.start, activity.end});
  });
  const whatif::SimulatedJob simulated{job.data_parallel, job.context_parallel, virtual_stages_of(file, other)};
  return whatif::simulated_operations(simulated, activities, file.path);
}

}  // namespace distsim::io::trace_format
