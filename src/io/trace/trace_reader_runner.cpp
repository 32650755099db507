#include <fmt/format.h>

#include "core/input_error.hpp"
#include "io/trace/trace_reader_formats.hpp"

namespace distsim::io::trace_format {

namespace {

using nlohmann::json;

strategy::Strategy job_of(const json& runner, const std::string& place) {
  strategy::Strategy job;
  job.tensor_parallel = required_int(runner, "tp", place);
  job.pipeline_parallel = required_int(runner, "pp", place);
  job.data_parallel = required_int(runner, "dp", place);
  job.schedule = optional_string(runner, "schedule", place, job.schedule);
  return job;
}

//! The runner states the rank's position (stage, tp_rank, dp_rank); older files may not.
bool read_coord(const json& runner, const std::string& place, strategy::RankCoord& coord) {
  if (!runner.contains("stage") || !runner.contains("tp_rank") || !runner.contains("dp_rank")) {
    return false;
  }
  coord = strategy::RankCoord{{strategy::ParallelDim::tp, required_int(runner, "tp_rank", place)},
                              {strategy::ParallelDim::dp, required_int(runner, "dp_rank", place)},
                              {strategy::ParallelDim::pp, required_int(runner, "stage", place)}};
  return true;
}

}  // namespace

bool is_runner_trace(const TraceFile& file) { return file.root.contains("distsim_runner"); }

FileTrace read_runner_trace(const TraceFile& file) {
  const std::string place = file.path + ": distsim_runner";
  // find, not operator[]: on a const document a missing key is undefined behaviour there.
  const auto found = file.root.find("distsim_runner");
  if (found == file.root.end() || !found->is_object()) {
    throw InputError(place + " is not an object");
  }
  const json& runner = *found;
  FileTrace trace;
  trace.format = "distsim runner";
  trace.job = job_of(runner, place);
  trace.world_size = required_int(runner, "world_size", place);
  trace.begin = required_microseconds(runner, "iteration_start_us", place);
  trace.end = required_microseconds(runner, "iteration_end_us", place);
  compare::RankTimeline rank;
  rank.rank = required_int(runner, "rank", place);
  rank.file = file.path;
  trace.coords_known = read_coord(runner, place, rank.coord);
  for (const auto& event : timed_events(file)) {
    const std::string event_place = where(file, event);
    const auto tid_value = event.event->find("tid");
    const int tid = tid_value != event.event->end() && tid_value->is_number_integer() ? tid_value->get<int>() : -1;
    rank.activities.push_back(labelled_activity(event, parse_category(event.category, tid, event_place), event_place));
  }
  trace.ranks.push_back(std::move(rank));
  return trace;
}

}  // namespace distsim::io::trace_format
