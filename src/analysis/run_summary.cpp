#include "analysis/run_summary.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/checked_arithmetic.hpp"

namespace distsim::analysis {

namespace {

using Interval = std::pair<SimTime, SimTime>;

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
  std::vector<Interval> host;
  SimTime first_start = 0;
  SimTime last_end = 0;
};

//! A stream's tasks in the order it runs them, which, one at a time, is also the order of their
//! times: sorted and disjoint intervals without a sort.
class StreamWalk {
 public:
  StreamWalk(const engine::Program& program, const engine::TaskTimes& times, engine::StreamId stream)
      : program_(&program), times_(&times), stream_(stream), task_(program.first_on_stream(stream)) {
    settle();
  }
  bool done() const { return task_ == engine::kNoTask; }
  SimTime start() const { return start_; }
  SimTime end() const { return end_; }
  void next() {
    advance();
    settle();
  }

 private:
  void advance() {
    const auto streams = program_->streams(task_);
    const auto slot = static_cast<std::size_t>(std::find(streams.begin(), streams.end(), stream_) - streams.begin());
    task_ = program_->next_on_streams(task_)[slot];
  }
  //! Moves past tasks that take no time and reads the times of the one it stops at.
  void settle() {
    for (; !done(); advance()) {
      start_ = times_->start[task_];
      end_ = times_->end[task_];
      if (end_ > start_) return;
    }
  }

  const engine::Program* program_;
  const engine::TaskTimes* times_;
  engine::StreamId stream_;
  engine::TaskId task_;
  SimTime start_ = 0;
  SimTime end_ = 0;
};

//! The union of the streams' activities as sorted disjoint intervals: the streams' runs merged by
//! start, each interval joined to the one before where they overlap or touch.
std::vector<Interval> union_of(std::vector<StreamWalk> walks) {
  std::vector<Interval> result;
  std::erase_if(walks, [](const StreamWalk& walk) { return walk.done(); });
  while (!walks.empty()) {
    auto earliest = walks.begin();
    for (auto it = walks.begin() + 1; it != walks.end(); ++it) {
      if (it->start() < earliest->start()) earliest = it;
    }
    const Interval interval{earliest->start(), earliest->end()};
    if (!result.empty() && interval.first <= result.back().second) {
      result.back().second = std::max(result.back().second, interval.second);
    } else {
      result.push_back(interval);
    }
    earliest->next();
    if (earliest->done()) walks.erase(earliest);
  }
  return result;
}

std::vector<DeviceBusy> busy_intervals(const program::JobProgram& job_program, const engine::TaskTimes& times) {
  const size_t devices = job_program.devices.size();
  std::vector<std::vector<StreamWalk>> compute(devices);
  std::vector<std::vector<StreamWalk>> communication(devices);
  std::vector<std::vector<StreamWalk>> host(devices);
  for (engine::StreamId stream = 0; stream < job_program.streams.size(); ++stream) {
    const auto& info = job_program.streams[stream];
    auto& walks = !events::stream_kind_info(info.kind).on_device ? host
                  : info.kind == events::StreamKind::compute     ? compute
                                                                 : communication;
    walks[static_cast<size_t>(info.device)].emplace_back(job_program.program, times, stream);
  }
  std::vector<DeviceBusy> busy(devices);
  for (size_t d = 0; d < devices; ++d) {
    DeviceBusy& device = busy[d];
    device.compute = union_of(std::move(compute[d]));
    device.communication = union_of(std::move(communication[d]));
    device.host = union_of(std::move(host[d]));
    device.first_start = times.makespan;
    for (const auto* intervals : {&device.compute, &device.communication}) {
      if (intervals->empty()) continue;
      device.first_start = std::min(device.first_start, intervals->front().first);
      device.last_end = std::max(device.last_end, intervals->back().second);
    }
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

//! A device's busy times: compute, communication while no compute runs, and its host's launches.
DeviceStats busy_stats(const std::vector<Interval>& compute, const std::vector<Interval>& communication,
                       const std::vector<Interval>& host) {
  DeviceStats stats;
  stats.busy_compute = length(compute);
  stats.busy_communication = length_outside(communication, compute);
  stats.host_busy = length(host);
  return stats;
}

//! A device's time over a whole timeline of `makespan`.
DeviceStats whole_stats(const DeviceBusy& busy, SimTime makespan) {
  DeviceStats stats = busy_stats(busy.compute, busy.communication, busy.host);
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

//! The fastest any of the GPU's formats runs, in FLOP/s: no mix of GEMM formats beats it.
double fastest_peak_flops(const cluster::GpuSpec& gpu) {
  double fastest = 0;
  for (const Dtype dtype : {Dtype::fp16, Dtype::bf16, Dtype::fp8, Dtype::mxfp8, Dtype::nvfp4, Dtype::fp32}) {
    fastest = std::max(fastest, gpu.peak_flops(dtype));
  }
  return fastest;
}

//! A figure no iteration can have means a defect in distsim, never an output: time runs forward,
//! a device is idle for a share of the iteration in [0, 1), and the analytical costs never beat
//! the GPU's fastest peak.
//! The peak a GPU of the cluster has on average: on a cluster of several GPU types, each type's
//! peak weighted by its GPUs.
double mean_peak_flops(const cluster::ClusterSpec& cluster, Dtype dtype) {
  if (!cluster.mixed()) return cluster.gpu.peak_flops(dtype);
  double sum = 0;
  std::int64_t hosts = 0;
  for (const auto& group : cluster.host_groups) {
    sum += static_cast<double>(group.hosts) * group.gpu.peak_flops(dtype);
    hosts += group.hosts;
  }
  return hosts > 0 ? sum / static_cast<double>(hosts) : 0;
}

//! `fastest_peak` is the fastest peak of the fastest GPU the job runs on.
void check_physical_bounds(const RunSummary& summary, double fastest_peak) {
  if (summary.iteration_time < 0) {
    throw std::logic_error("negative iteration time " + std::to_string(summary.iteration_time) + " ns");
  }
  for (const DeviceStats& device : summary.devices) {
    if (device.busy_compute < 0 || device.busy_communication < 0 || device.idle < 0) {
      throw std::logic_error(
          fmt::format("a device's busy or idle time is negative: compute {} ns, communication {} ns, idle {} ns",
                      device.busy_compute, device.busy_communication, device.idle));
    }
  }
  if (summary.iteration_time > 0 && !(summary.bubble_fraction >= 0 && summary.bubble_fraction < 1)) {
    throw std::logic_error(fmt::format("bubble fraction {} outside [0, 1)", summary.bubble_fraction));
  }
  // Measured costs are what they are: a profile faster than the GPU file's peak says the file
  // is wrong, not the timeline.
  const double fastest_tflops = fastest_peak / 1e12;
  const bool analytical = summary.events.profiled + summary.events.extrapolated == 0;
  if (analytical && fastest_tflops > 0 && summary.tflops_per_gpu > fastest_tflops) {
    throw std::logic_error(fmt::format(
        "the analytical costs run the job at {:.1f} TFLOP/s per GPU, above the GPU's fastest peak of {:.1f} TFLOP/s",
        summary.tflops_per_gpu, fastest_tflops));
  }
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
    stats.window.push_back(
        busy_stats(cut_to(busy.compute, window), cut_to(busy.communication, window), cut_to(busy.host, window)));
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
    const double peak = mean_peak_flops(job.cluster, job.strategy.dtype);
    summary.mfu_peak_tflops = peak / 1e12;
    summary.mfu = peak > 0 ? summary.tflops_per_gpu * 1e12 / peak : 0;
    // Over ranks: a device counts once for each rank whose timeline it is. Exact integer sums, so
    // that any grouping of the same ranks into devices gives the same fraction; 128 bits, since a
    // rank count times an idle time near the clock's range does not fit 64.
    WideInteger idle_over_ranks = 0;
    WideInteger ranks = 0;
    for (size_t d = 0; d < summary.devices.size(); ++d) {
      const WideInteger weight = job_program.devices[d].ranks;
      idle_over_ranks += weight * summary.devices[d].idle;
      ranks += weight;
    }
    summary.bubble_fraction =
        static_cast<double>(idle_over_ranks) / static_cast<double>(ranks) / static_cast<double>(iteration_time);
  }
  double fastest = 0;
  for (const int type : job.cluster.gpu_types())
    fastest = std::max(fastest, fastest_peak_flops(job.cluster.gpu_of_type(type)));
  check_physical_bounds(summary, fastest);
  return summary;
}

RunSummary summarize(const strategy::JobSpec& job, const program::JobProgram& job_program,
                     const engine::TaskTimes& times) {
  return summarize(job, job_program, times.makespan, device_stats(job_program, times));
}

}  // namespace distsim::analysis
