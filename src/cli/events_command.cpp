#include <iostream>
#include <memory>

#include "api/simulation.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
#include "cli/profile_options.hpp"
#include "io/output/events_writer.hpp"

namespace distsim::cli {

namespace {

struct EventsOptions {
  JobOptions job;
  bool json = false;
  ProfileOptions profile;
};

void run_events(const EventsOptions& options) {
  const strategy::JobSpec job = options.job.to_job();
  api::SimulationOptions simulation_options;
  simulation_options.preferred_costs = options.profile.cost_model(job.cluster.gpu.name);
  const program::JobProgram program = api::job_events(job, simulation_options);
  if (options.json) {
    std::cout << io::events_json(job, program).dump(2) << "\n";
  } else {
    std::cout << io::events_text(job, program);
  }
}

}  // namespace

void add_events_command(CLI::App& app) {
  auto options = std::make_shared<EventsOptions>();
  auto* command = app.add_subcommand("events", "list the job's unique events, their costs and instance counts");
  options->job.add_to(*command);
  command->add_flag("--json", options->json, "print JSON (the profiler's work list)");
  options->profile.add_to(*command);
  command->callback([options] { run_events(*options); });
}

}  // namespace distsim::cli
