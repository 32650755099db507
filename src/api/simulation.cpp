#include "api/simulation.hpp"

#include "cost/analytical_cost_model.hpp"
#include "cost/fallback_cost_model.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::api {

namespace {

std::shared_ptr<const cost::CostModel> cost_chain(const strategy::JobSpec& job, const SimulationOptions& options) {
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

program::JobProgram job_events(const strategy::JobSpec& job, const SimulationOptions& options) {
  return build(job, options);
}

}  // namespace distsim::api
