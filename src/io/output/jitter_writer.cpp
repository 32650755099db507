#include "io/output/jitter_writer.hpp"

#include <fmt/format.h>

#include "strategy/variability.hpp"

namespace distsim::io {

nlohmann::json jitter_json(const api::StepTimeDistribution& d) {
  return {{"distribution", strategy::kernel_jitter_text(d.jitter)},
          {"samples", d.samples},
          {"seed", d.seed},
          {"noiseless_s", d.noiseless_s},
          {"mean_s", d.mean_s},
          {"p50_s", d.p50_s},
          {"p90_s", d.p90_s},
          {"p99_s", d.p99_s},
          {"max_s", d.max_s},
          {"slowdown", d.slowdown()},
          {"times_s", d.times_s}};
}

std::string jitter_text(const api::StepTimeDistribution& d) {
  const auto ms = [](double seconds) { return fmt::format("{:.3f} ms", seconds * 1e3); };
  return fmt::format("kernel jitter {} over {} sampled iterations (seed {}, docs/variability.md):\n"
                     "  step time: mean {} ({:+.2f} % over the noiseless {}), p50 {}, p90 {}, p99 {}, max {}\n",
                     strategy::kernel_jitter_text(d.jitter), d.samples, d.seed, ms(d.mean_s), (d.slowdown() - 1) * 100,
                     ms(d.noiseless_s), ms(d.p50_s), ms(d.p90_s), ms(d.p99_s), ms(d.max_s));
}

}  // namespace distsim::io
