#include "program/slow_gpus.hpp"

#include <cmath>

#include "strategy/rank_layout.hpp"

namespace distsim::program {

void slow_down_gpus(const strategy::JobSpec& job, JobProgram& program) {
  if (job.variability.slow.empty()) return;
  const strategy::RankLayout layout(job.strategy, job.cluster);
  std::vector<double> factor_of_device;
  for (const auto& device : program.devices) {
    factor_of_device.push_back(
        job.variability.factor(device.rank, device.coord[strategy::ParallelDim::pp], layout.host_of(device.rank)));
  }
  engine::Program& tasks = program.program;
  for (engine::TaskId task = 0; task < tasks.num_tasks(); ++task) {
    const auto streams = tasks.streams(task);
    if (streams.size() != 1) continue;  // a collective or a transfer
    const StreamInfo& stream = program.streams[streams.front()];
    if (stream.kind != events::StreamKind::compute) continue;
    const double factor = factor_of_device[static_cast<std::size_t>(stream.device)];
    if (factor != 1.0) {
      tasks.set_duration(task, static_cast<SimTime>(std::llround(static_cast<double>(tasks.duration(task)) * factor)));
    }
  }
}

}  // namespace distsim::program
