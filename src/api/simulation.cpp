#include "api/simulation.hpp"

#include <algorithm>

#include "cost/analytical_cost_model.hpp"
#include "cost/fallback_cost_model.hpp"
#include "events/job_events.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::api {

namespace {

std::shared_ptr<const cost::FallbackCostModel> cost_chain(const strategy::JobSpec& job,
                                                          const SimulationOptions& options) {
  auto chain = std::make_shared<cost::FallbackCostModel>();
  if (options.preferred_costs) {
    chain->add(options.preferred_costs);
  }
  chain->add(std::make_shared<cost::AnalyticalCostModel>(job.cluster));
  return chain;
}

program::JobProgram build(const strategy::JobSpec& job, const SimulationOptions& options) {
  schedule::validate_job(job);
  const auto& schedule = schedule::find_schedule(job.strategy.schedule);
  const strategy::RankLayout layout(job.strategy, job.cluster);
  const bool all_ranks = options.all_ranks || !layout.is_uniform();
  return program::build_job_program(job, schedule, *cost_chain(job, options), all_ranks, options.aggregate_passes);
}

}  // namespace

Simulation simulate(const strategy::JobSpec& job, const SimulationOptions& options) {
  Simulation simulation{job, build(job, options), {}, {}, {}};
  simulation.times = engine::run(simulation.program.program);
  simulation.summary = analysis::summarize(job, simulation.program, simulation.times);
  simulation.memory = memory::estimate_memory(job);
  return simulation;
}

SimTime compute_lower_bound(const strategy::JobSpec& job, const SimulationOptions& options) {
  schedule::validate_job(job);
  const auto& schedule = schedule::find_schedule(job.strategy.schedule);
  const strategy::RankLayout layout(job.strategy, job.cluster);
  const auto costs = cost_chain(job, options);
  const auto compute_time = [&](const std::vector<events::TaskTemplate>& steps, const events::EventTable& table) {
    SimTime total = 0;
    for (const auto& step : steps) {
      if (step.stream == events::StreamKind::compute) total += costs->cost(table.at(step.event)).duration;
    }
    return total;
  };
  const SimTime microbatches = job.strategy.num_microbatches();
  SimTime busiest = 0;
  for (int stage = 0; stage < job.strategy.pipeline_parallel; ++stage) {
    events::EventTable table;
    const strategy::RankCoord coord{{strategy::ParallelDim::pp, stage}};
    const events::RankWork work =
        events::build_rank_work(job, layout, coord, schedule.stage_chunk_layers(job, stage), table);
    SimTime stage_time = costs->cost(table.at(work.optimizer_step)).duration;
    for (const auto& chunk : work.chunks) {
      stage_time += microbatches * (compute_time(chunk.forward, table) + compute_time(chunk.backward, table));
    }
    busiest = std::max(busiest, stage_time);
  }
  return busiest;
}

program::JobProgram job_events(const strategy::JobSpec& job, const SimulationOptions& options) {
  return build(job, options);
}

}  // namespace distsim::api
