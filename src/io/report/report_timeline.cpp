#include "io/report/report_timeline.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "io/trace/device_timelines.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::io {

namespace {

using events::StreamKind;

void widen_microbatches(TimelineBlock& into, int first, int last) {
  if (first < 0) {
    return;
  }
  into.first_microbatch = into.first_microbatch < 0 ? first : std::min(into.first_microbatch, first);
  into.last_microbatch = std::max(into.last_microbatch, last);
}

//! A band for `device` with an empty row for each stream it uses, in stream order.
TimelineBand empty_band(const api::Simulation& simulation, const DeviceTimelines& timelines, std::size_t device) {
  TimelineBand band;
  band.device = device;
  band.coord = simulation.program.devices[device].coord;
  for (const auto& stream : events::kStreamKindTable) {
    if (timelines.uses(device, stream.kind)) {
      band.rows.push_back({stream.kind, {}});
    }
  }
  return band;
}

void fill_rows(TimelineBand& band, const api::Simulation& simulation, const DeviceTimelines& timelines,
               double merge_gap_ns) {
  std::array<TimelineRow*, events::kStreamKinds> row_of{};
  for (auto& row : band.rows) {
    row_of[static_cast<std::size_t>(row.stream)] = &row;
  }
  for (const Activity& activity : timelines.of(band.device)) {
    const SimTime start = activity.start;
    const SimTime end = activity.end;
    if (end <= start) {
      continue;
    }
    const auto& info = simulation.program.tasks[activity.task];
    const StreamKind kind = simulation.program.streams[activity.stream].kind;
    const TimelineBlock block{.start = start,
                              .end = end,
                              .category = categorize(info.phase, kind),
                              .first_task = activity.task,
                              .last_task = activity.task,
                              .tasks = 1,
                              .busy = end - start,
                              .first_microbatch = activity.microbatch,
                              .last_microbatch = activity.microbatch};
    add_block(row_of[static_cast<std::size_t>(kind)]->blocks, block, merge_gap_ns);
  }
}

}  // namespace

std::string_view category_label(ActivityCategory category) {
  switch (category) {
    case ActivityCategory::forward: return "forward";
    case ActivityCategory::backward: return "backward";
    case ActivityCategory::recompute: return "recomputation";
    case ActivityCategory::tp_comm: return "TP comm";
    case ActivityCategory::pipeline_p2p: return "pipeline p2p";
    case ActivityCategory::dp_comm: return "DP comm";
    case ActivityCategory::optimizer: return "optimizer";
    case ActivityCategory::cp_comm: return "CP comm";
    case ActivityCategory::weight_gradient: return "weight gradient";
    case ActivityCategory::ep_comm: return "EP comm";
    case ActivityCategory::host: return "host launches";
  }
  return "?";
}

std::string_view category_css_class(ActivityCategory category) {
  switch (category) {
    case ActivityCategory::forward: return "fwd";
    case ActivityCategory::backward: return "bwd";
    case ActivityCategory::recompute: return "rec";
    case ActivityCategory::tp_comm: return "tp";
    case ActivityCategory::pipeline_p2p: return "pp";
    case ActivityCategory::dp_comm: return "dp";
    case ActivityCategory::optimizer: return "opt";
    case ActivityCategory::cp_comm: return "cp";
    case ActivityCategory::weight_gradient: return "wgrad";
    case ActivityCategory::ep_comm: return "ep";
    case ActivityCategory::host: return "host";
  }
  return "?";
}

ActivityCategory categorize(events::Phase phase, events::StreamKind stream) {
  switch (stream) {
    case StreamKind::tp_comm: return ActivityCategory::tp_comm;
    case StreamKind::pp_send_next:
    case StreamKind::pp_recv_prev:
    case StreamKind::pp_send_prev:
    case StreamKind::pp_recv_next: return ActivityCategory::pipeline_p2p;
    case StreamKind::dp_comm:
    case StreamKind::dp_reduce:
    case StreamKind::dp_replica: return ActivityCategory::dp_comm;
    case StreamKind::cp_comm: return ActivityCategory::cp_comm;
    case StreamKind::ep_comm:
    case StreamKind::etp_comm: return ActivityCategory::ep_comm;
    case StreamKind::host: return ActivityCategory::host;
    case StreamKind::compute: break;
  }
  switch (phase) {
    case events::Phase::forward: return ActivityCategory::forward;
    case events::Phase::backward: return ActivityCategory::backward;
    case events::Phase::recompute: return ActivityCategory::recompute;
    case events::Phase::optimizer: return ActivityCategory::optimizer;
    case events::Phase::weight_gradient: return ActivityCategory::weight_gradient;
  }
  return ActivityCategory::forward;
}

void add_block(std::vector<TimelineBlock>& blocks, const TimelineBlock& block, double merge_gap_ns) {
  if (!blocks.empty()) {
    TimelineBlock& last = blocks.back();
    if (last.category == block.category && static_cast<double>(block.start - last.end) < merge_gap_ns) {
      last.end = std::max(last.end, block.end);
      last.last_task = block.last_task;
      last.tasks += block.tasks;
      last.busy += block.busy;
      widen_microbatches(last, block.first_microbatch, block.last_microbatch);
      return;
    }
  }
  blocks.push_back(block);
}

std::vector<TimelineBand> build_timeline(const api::Simulation& simulation, double merge_gap_ns) {
  const strategy::RankLayout layout(simulation.job.strategy, simulation.job.cluster);
  const DeviceTimelines timelines(simulation);
  std::vector<TimelineBand> bands;
  std::map<std::size_t, std::size_t> band_of_device;
  for (const int rank : shown_ranks(layout, false)) {
    const auto device = static_cast<std::size_t>(simulation.program.device_for_rank(layout, rank));
    const auto [found, added] = band_of_device.emplace(device, bands.size());
    if (added) {
      bands.push_back(empty_band(simulation, timelines, device));
      fill_rows(bands.back(), simulation, timelines, merge_gap_ns);
    }
    bands[found->second].ranks.push_back(rank);
  }
  return bands;
}

}  // namespace distsim::io
