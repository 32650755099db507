#pragma once

#include <cstdint>
#include <vector>

#include "core/sim_time.hpp"
#include "engine/engine.hpp"
#include "program/job_program.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::analysis {

//! How one simulated device spent the iteration. The three parts add up to the iteration time:
//! compute is time its compute stream is busy, communication is time only communication runs
//! (exposed), idle is time neither runs.
struct DeviceStats {
  SimTime busy_compute = 0;
  SimTime busy_communication = 0;
  SimTime idle = 0;
  //! The host thread's time launching kernels (docs/host_time.md), beside the device's time; 0
  //! when the host is not modelled or each pass is one task.
  SimTime host_busy = 0;
  SimTime first_start = 0;
  SimTime last_end = 0;
};

//! How many unique events came from each cost source, and how many tasks they stand for.
struct EventCounts {
  std::int64_t unique = 0;
  std::int64_t instances = 0;
  std::int64_t profiled = 0;
  std::int64_t extrapolated = 0;
  std::int64_t analytical = 0;
};

struct RunSummary {
  SimTime iteration_time = 0;
  double throughput_samples_per_s = 0;
  double tokens_per_s = 0;
  double total_flops = 0;     //!< floating-point operations of the iteration, all GPUs
  double tflops_per_gpu = 0;  //!< achieved, averaged over GPUs
  double mfu = 0;             //!< tflops_per_gpu over mfu_peak_tflops
  //! The dense peak MFU is measured against: the job dtype's, so bf16 also with fp8 GEMMs (the
  //! model FLOPs are the same, and NVIDIA reports its FP8 runs' MFU against the bf16 peak).
  double mfu_peak_tflops = 0;
  double bubble_fraction = 0;        //!< mean idle share of the iteration over ranks
  std::vector<DeviceStats> devices;  //!< per simulated device
  EventCounts events;
};

//! A stretch of simulated time, [begin, end).
struct TimeWindow {
  SimTime begin = 0;
  SimTime end = 0;
};

//! How each simulated device spent the whole timeline.
std::vector<DeviceStats> device_stats(const program::JobProgram& program, const engine::TaskTimes& times);
//! How each simulated device spent the whole timeline and `window` of it, from one pass over the
//! tasks.
struct WholeAndWindow {
  std::vector<DeviceStats> whole;
  //! Busy times of the activities cut to the window; idle, first_start and last_end are 0.
  std::vector<DeviceStats> window;
};
WholeAndWindow device_stats(const program::JobProgram& program, const engine::TaskTimes& times, TimeWindow window);

//! The metrics of an iteration that took `iteration_time`, with the program's events and
//! `devices`' time.
RunSummary summarize(const strategy::JobSpec& job, const program::JobProgram& program, SimTime iteration_time,
                     std::vector<DeviceStats> devices);
//! Reads the metrics off a simulated timeline.
RunSummary summarize(const strategy::JobSpec& job, const program::JobProgram& program, const engine::TaskTimes& times);

}  // namespace distsim::analysis
