#include <iostream>
#include <memory>

#include "api/simulation.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
#include "io/output/events_writer.hpp"

namespace distsim::cli {

namespace {

struct EventsOptions {
  JobOptions job;
  bool json = false;
};

void run_events(const EventsOptions& options) {
  const strategy::JobSpec job = options.job.to_job();
  const program::JobProgram program = api::job_events(job);
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
  command->callback([options] { run_events(*options); });
}

}  // namespace distsim::cli
