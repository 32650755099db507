#include "analysis/run_summary.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace distsim::analysis {

namespace {

using Interval = std::pair<SimTime, SimTime>;

//! The union of intervals, each run sorted by start (a stream's tasks, which run one after
//! another), as sorted disjoint intervals: the runs merged pairwise, then overlaps joined.
std::vector<Interval> union_of(std::vector<std::vector<Interval>> runs) {
  while (runs.size() > 1) {
    std::vector<std::vector<Interval>> pairs;
    pairs.reserve((runs.size() + 1) / 2);
    for (std::size_t i = 0; i + 1 < runs.size(); i += 2) {
      std::vector<Interval>& both = pairs.emplace_back();
      both.reserve(runs[i].size() + runs[i + 1].size());
      std::merge(runs[i].begin(), runs[i].end(), runs[i + 1].begin(), runs[i + 1].end(), std::back_inserter(both));
    }
    if (runs.size() % 2 == 1) pairs.push_back(std::move(runs.back()));
    runs = std::move(pairs);
  }
  std::vector<Interval> result;
  if (runs.empty()) return result;
  for (const auto& interval : runs.front()) {
    if (!result.empty() && interval.first <= result.back().second) {
      result.back().second = std::max(result.back().second, interval.second);
    } else {
      result.push_back(interval);
    }
  }
  return result;
}

//! Total length of `covered` not overlapped by `excluded` (both merged and sorted).
SimTime length_outside(const std::vector<Interval>& covered, const std::vector<Interval>& excluded) {
  SimTime total = 0;
  size_t e = 0;
  for (const auto& [start, end] : covered) {
    SimTime cursor = start;
    while (e < excluded.size() && excluded[e].second <= cursor) {
      ++e;
    }
    for (size_t k = e; k < excluded.size() && excluded[k].first < end; ++k) {
      if (excluded[k].first > cursor) {
        total += excluded[k].first - cursor;
      }
      cursor = std::max(cursor, excluded[k].second);
    }
    if (cursor < end) {
      total += end - cursor;
    }
  }
  return total;
}

SimTime length(const std::vector<Interval>& intervals) {
  SimTime total = 0;
  for (const auto& [start, end] : intervals) {
    total += end - start;
  }
  return total;
}

//! Where one device is busy: the union of its compute streams' activities and of its
//! communication streams', each as sorted disjoint intervals, and its first start and last end.
struct DeviceBusy {
  std::vector<Interval> compute;
  std::vector<Interval> communication;
  SimTime first_start = 0;
  SimTime last_end = 0;
};

std::vector<DeviceBusy> busy_intervals(const program::JobProgram& job_program, const engine::TaskTimes& times) {
  const size_t devices = job_program.devices.size();
  std::vector<std::vector<Interval>> by_stream(job_program.streams.size());
  std::vector<DeviceBusy> busy(devices);
  for (auto& device : busy) {
    device.first_start = times.makespan;
  }
  for (engine::TaskId task = 0; task < job_program.program.num_tasks(); ++task) {
    const SimTime start = times.start[task];
    const SimTime end = times.end[task];
    if (end <= start) {
      continue;
    }
    for (engine::StreamId stream : job_program.program.streams(task)) {
      by_stream[stream].emplace_back(start, end);
      auto& device = busy[static_cast<size_t>(job_program.streams[stream].device)];
      device.first_start = std::min(device.first_start, start);
      device.last_end = std::max(device.last_end, end);
    }
  }
  std::vector<std::vector<std::vector<Interval>>> compute(devices);
  std::vector<std::vector<std::vector<Interval>>> communication(devices);
  for (std::size_t stream = 0; stream < by_stream.size(); ++stream) {
    if (by_stream[stream].empty()) continue;
    const auto& info = job_program.streams[stream];
    auto& runs = info.kind == events::StreamKind::compute ? compute : communication;
    runs[static_cast<size_t>(info.device)].push_back(std::move(by_stream[stream]));
  }
  for (size_t d = 0; d < devices; ++d) {
    busy[d].compute = union_of(std::move(compute[d]));
    busy[d].communication = union_of(std::move(communication[d]));
  }
  return busy;
}

//! The parts of sorted disjoint `intervals` inside `window`.
std::vector<Interval> cut_to(const std::vector<Interval>& intervals, TimeWindow window) {
  std::vector<Interval> inside;
  auto it = std::upper_bound(intervals.begin(), intervals.end(), window.begin,
                             [](SimTime time, const Interval& interval) { return time < interval.second; });
  for (; it != intervals.end() && it->first < window.end; ++it) {
    inside.emplace_back(std::max(it->first, window.begin), std::min(it->second, window.end));
  }
  return inside;
}

//! A device's busy times: compute, and communication while no compute runs.
DeviceStats busy_stats(const std::vector<Interval>& compute, const std::vector<Interval>& communication) {
  DeviceStats stats;
  stats.busy_compute = length(compute);
  stats.busy_communication = length_outside(communication, compute);
  return stats;
}

//! A device's time over a whole timeline of `makespan`.
DeviceStats whole_stats(const DeviceBusy& busy, SimTime makespan) {
  DeviceStats stats = busy_stats(busy.compute, busy.communication);
  stats.first_start = busy.first_start;
  stats.last_end = busy.last_end;
  stats.idle = makespan - stats.busy_compute - stats.busy_communication;
  return stats;
}

EventCounts event_counts(const program::JobProgram& job_program) {
  EventCounts counts;
  counts.unique = static_cast<std::int64_t>(job_program.events.size());
  counts.instances = job_program.events.total_instances();
  for (const auto& cost : job_program.costs) {
    switch (cost.source) {
      case cost::CostSource::profiled: ++counts.profiled; break;
      case cost::CostSource::extrapolated: ++counts.extrapolated; break;
      case cost::CostSource::analytical: ++counts.analytical; break;
    }
  }
  return counts;
}

//! From the event table's instance counts, which count every rank each task stands for, so a
//! program with one task per pass counts the same work as one with a task per operator.
double executed_flops(const program::JobProgram& job_program) {
  double flops = 0;
  for (events::EventId id = 0; id < job_program.events.size(); ++id) {
    flops += job_program.events.at(id).flops * static_cast<double>(job_program.events.instances(id));
  }
  return flops;
}

}  // namespace

std::vector<DeviceStats> device_stats(const program::JobProgram& job_program, const engine::TaskTimes& times) {
  std::vector<DeviceStats> stats;
  for (const DeviceBusy& busy : busy_intervals(job_program, times)) {
    stats.push_back(whole_stats(busy, times.makespan));
  }
  return stats;
}

WholeAndWindow device_stats(const program::JobProgram& job_program, const engine::TaskTimes& times, TimeWindow window) {
  WholeAndWindow stats;
  for (const DeviceBusy& busy : busy_intervals(job_program, times)) {
    stats.whole.push_back(whole_stats(busy, times.makespan));
    stats.window.push_back(busy_stats(cut_to(busy.compute, window), cut_to(busy.communication, window)));
  }
  return stats;
}

RunSummary summarize(const strategy::JobSpec& job, const program::JobProgram& job_program, SimTime iteration_time,
                     std::vector<DeviceStats> devices) {
  RunSummary summary;
  summary.iteration_time = iteration_time;
  summary.devices = std::move(devices);
  summary.events = event_counts(job_program);
  summary.total_flops = executed_flops(job_program);
  const double seconds = time_to_seconds(iteration_time);
  const int world = job.strategy.world_size();
  if (seconds > 0) {
    summary.throughput_samples_per_s = job.strategy.global_batch_size / seconds;
    summary.tokens_per_s = summary.throughput_samples_per_s * job.model.target_seq_length();
    summary.tflops_per_gpu = summary.total_flops / seconds / world / 1e12;
    const double peak = job.cluster.gpu.peak_flops(job.strategy.dtype);
    summary.mfu_peak_tflops = peak / 1e12;
    summary.mfu = peak > 0 ? summary.tflops_per_gpu * 1e12 / peak : 0;
    // Over ranks: a device counts once for each rank whose timeline it is. Integer sums, so that
    // any grouping of the same ranks into devices gives the same fraction.
    std::int64_t idle_over_ranks = 0;
    std::int64_t ranks = 0;
    for (size_t d = 0; d < summary.devices.size(); ++d) {
      const std::int64_t weight = job_program.devices[d].ranks;
      idle_over_ranks += weight * summary.devices[d].idle;
      ranks += weight;
    }
    summary.bubble_fraction =
        static_cast<double>(idle_over_ranks) / static_cast<double>(ranks) / static_cast<double>(iteration_time);
  }
  return summary;
}

RunSummary summarize(const strategy::JobSpec& job, const program::JobProgram& job_program,
                     const engine::TaskTimes& times) {
  return summarize(job, job_program, times.makespan, device_stats(job_program, times));
}

}  // namespace distsim::analysis
