#include "api/kernel_jitter.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>

#include "core/parallel_for.hpp"
#include "engine/engine.hpp"

namespace distsim::api {

namespace {

//! Draws of a mean-1 multiplicative noise for one sampled iteration, from its own generator: a
//! 64-bit Mersenne Twister seeded through std::seed_seq with the seed and the sample's number, so
//! that samples can run in any order or at once. The generator and std::seed_seq are fixed by the
//! standard; the standard library's distributions are not, so the draws are made here.
class JitterDraws {
 public:
  JitterDraws(strategy::KernelJitter jitter, std::uint64_t seed, int sample) : jitter_(jitter) {
    std::seed_seq seeds{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                        static_cast<std::uint32_t>(sample)};
    engine_.seed(seeds);
  }

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

  //! Marsaglia's polar method: a point drawn uniformly in the unit disc gives two independent
  //! standard normals (the second kept for the next call) with one logarithm and no cosine.
  double standard_normal() {
    if (spare_) {
      const double normal = *spare_;
      spare_.reset();
      return normal;
    }
    double x = 0;
    double y = 0;
    double r2 = 0;
    do {
      x = 2.0 * uniform() - 1.0;
      y = 2.0 * uniform() - 1.0;
      r2 = x * x + y * y;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double scale = std::sqrt(-2.0 * std::log(r2) / r2);
    spare_ = y * scale;
    return x * scale;
  }

  strategy::KernelJitter jitter_;
  std::mt19937_64 engine_;
  std::optional<double> spare_;
};

}  // namespace

double percentile(const std::vector<double>& sorted, double p) {
  const double position = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  return sorted[lower] + (position - static_cast<double>(lower)) * (sorted[upper] - sorted[lower]);
}

StepTimeDistribution sample_kernel_jitter(const program::JobProgram& program, const strategy::Variability& variability,
                                          double noiseless_s, int threads) {
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
  std::vector<double> base;
  base.reserve(device_tasks.size());
  for (const engine::TaskId task : device_tasks) base.push_back(static_cast<double>(program.program.duration(task)));
  // Each thread runs a contiguous share of the samples on its own copy of the program.
  const auto samples = static_cast<std::size_t>(distribution.samples);
  const std::size_t shares = std::min(samples, static_cast<std::size_t>(std::max(threads, 1)));
  distribution.times_s.assign(samples, 0.0);
  parallel_for(shares, static_cast<int>(shares), [&](std::size_t share) {
    engine::Program jittered = program.program;
    const engine::RepeatedRuns runs(jittered);
    for (std::size_t sample = share * samples / shares; sample < (share + 1) * samples / shares; ++sample) {
      JitterDraws draws(distribution.jitter, distribution.seed, static_cast<int>(sample));
      for (std::size_t i = 0; i < device_tasks.size(); ++i) {
        jittered.set_duration(device_tasks[i], static_cast<SimTime>(std::llround(base[i] * draws.next())));
      }
      distribution.times_s[sample] = time_to_seconds(runs.run().makespan);
    }
  });
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
