#include "python/timeline_rows.hpp"

#include "core/input_error.hpp"
#include "io/trace/device_timelines.hpp"

namespace distsim::python {

std::vector<TimelineRow> timeline_rows(const api::Simulation& simulation, int rank) {
  const strategy::RankLayout layout(simulation.job.strategy, simulation.job.cluster);
  if (rank < 0 || rank >= layout.world_size()) {
    throw InputError("rank: expected 0 to " + std::to_string(layout.world_size() - 1) + " (the job's ranks), got " +
                     std::to_string(rank));
  }
  const auto& program = simulation.program;
  const io::DeviceTimelines timelines(simulation);
  const auto device = static_cast<std::size_t>(program.device_for_rank(layout, rank));
  std::vector<TimelineRow> rows;
  for (const io::Activity& activity : timelines.of(device)) {
    const auto& task = program.tasks[activity.task];
    const auto& event = program.events.at(task.event);
    rows.push_back({events::stream_kind_info(program.streams[activity.stream].kind).id, event.is_communication(),
                    activity.start, activity.end, activity.microbatch, task.layer, events::phase_name(task.phase),
                    event.key(), task.label});
  }
  return rows;
}

}  // namespace distsim::python
