#pragma once

#include <cstdint>
#include <vector>

#include "program/job_program.hpp"
#include "strategy/variability.hpp"

namespace distsim::api {

//! The step time of a job whose kernels jitter, over sampled iterations (docs/variability.md).
struct StepTimeDistribution {
  strategy::KernelJitter jitter;
  int samples = 0;
  std::uint64_t seed = 0;
  double noiseless_s = 0;       //!< the iteration without jitter
  std::vector<double> times_s;  //!< each sampled iteration, in sampling order
  double mean_s = 0;
  double p50_s = 0;
  double p90_s = 0;
  double p99_s = 0;
  double max_s = 0;
  //! The mean sampled iteration over the noiseless one.
  double slowdown() const { return noiseless_s > 0 ? mean_s / noiseless_s : 0.0; }
};

//! Runs `program` (every task of the iteration) `variability.jitter_samples` times, each device
//! task's duration (computation and communication; not the host's launches) multiplied by a draw
//! from the jitter's distribution. Sample k draws from its own 64-bit Mersenne Twister, seeded
//! through std::seed_seq with `jitter_seed` and k, one draw per task in task order, so that a seed
//! gives the same times on any machine and with any number of `threads` running the samples.
//! Percentiles interpolate linearly between the nearest sampled times.
StepTimeDistribution sample_kernel_jitter(const program::JobProgram& program, const strategy::Variability& variability,
                                          double noiseless_s, int threads = 1);

//! The `p`-th percentile (0 to 100) of `sorted` (ascending, not empty), linear between ranks.
double percentile(const std::vector<double>& sorted, double p);

}  // namespace distsim::api
