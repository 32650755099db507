#include "api/kernel_jitter.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <random>

#include "engine/engine.hpp"

namespace distsim::api {

namespace {

//! Draws of a mean-1 multiplicative noise. std::mt19937_64's sequence is fixed by the standard;
//! the standard library's distributions are not, so the draws are made here.
class JitterDraws {
 public:
  JitterDraws(strategy::KernelJitter jitter, std::uint64_t seed) : jitter_(jitter), engine_(seed) {}

  double next() {
    using strategy::JitterDistribution;
    switch (jitter_.distribution) {
      case JitterDistribution::lognormal:
        return std::exp(jitter_.spread * standard_normal() - jitter_.spread * jitter_.spread / 2);
      case JitterDistribution::normal: return std::max(0.0, 1.0 + jitter_.spread * standard_normal());
      case JitterDistribution::uniform: return 1.0 + jitter_.spread * (2.0 * uniform() - 1.0);
    }
    return 1.0;
  }

 private:
  //! In [0, 1), from the top 53 bits of one draw.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  //! Box and Muller's transform of two uniform draws.
  double standard_normal() {
    const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform()));
    return radius * std::cos(2.0 * std::numbers::pi * uniform());
  }

  strategy::KernelJitter jitter_;
  std::mt19937_64 engine_;
};

}  // namespace

double percentile(const std::vector<double>& sorted, double p) {
  const double position = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  return sorted[lower] + (position - static_cast<double>(lower)) * (sorted[upper] - sorted[lower]);
}

StepTimeDistribution sample_kernel_jitter(const program::JobProgram& program, const strategy::Variability& variability,
                                          double noiseless_s) {
  StepTimeDistribution distribution;
  distribution.jitter = *variability.jitter;
  distribution.samples = variability.jitter_samples;
  distribution.seed = variability.jitter_seed;
  distribution.noiseless_s = noiseless_s;
  std::vector<engine::TaskId> device_tasks;
  for (engine::TaskId task = 0; task < program.program.num_tasks(); ++task) {
    const auto kind = program.streams[program.program.streams(task).front()].kind;
    if (events::stream_kind_info(kind).on_device) device_tasks.push_back(task);
  }
  engine::Program jittered = program.program;
  JitterDraws draws(distribution.jitter, distribution.seed);
  for (int sample = 0; sample < distribution.samples; ++sample) {
    for (const engine::TaskId task : device_tasks) {
      const auto base = static_cast<double>(program.program.duration(task));
      jittered.set_duration(task, static_cast<SimTime>(std::llround(base * draws.next())));
    }
    distribution.times_s.push_back(time_to_seconds(engine::run(jittered).makespan));
  }
  std::vector<double> sorted = distribution.times_s;
  std::sort(sorted.begin(), sorted.end());
  distribution.mean_s = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  distribution.p50_s = percentile(sorted, 50);
  distribution.p90_s = percentile(sorted, 90);
  distribution.p99_s = percentile(sorted, 99);
  distribution.max_s = sorted.back();
  return distribution;
}

}  // namespace distsim::api
