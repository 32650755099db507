#include <iostream>
#include <memory>
#include <optional>

#include "api/simulation.hpp"
#include "cli/commands.hpp"
#include "cli/file_output.hpp"
#include "cli/job_flags.hpp"
#include "cli/path_overlap.hpp"
#include "cli/profile_options.hpp"
#include "cli/progress.hpp"
#include "cli/task_limit_flag.hpp"
#include "cli/threads_flag.hpp"
#include "io/chakra/chakra_writer.hpp"
#include "io/output/summary_writer.hpp"
#include "io/report/html_report.hpp"
#include "io/spec/spec_resolver.hpp"
#include "io/trace/trace_notices.hpp"
#include "io/trace/trace_writer.hpp"
#include "options/job_assembly.hpp"

namespace distsim::cli {

namespace {

struct SimulateOptions {
  JobFlags job;
  bool json = false;
  bool json_ranks = false;
  std::string trace;
  std::string report;
  std::string chakra;
  std::string trace_ranks = "replica";
  bool all_ranks = false;
  ProfileOptions profile;
  TaskLimitFlag task_limit;
  ThreadsFlag threads;
  ProgressFlag progress;
};

//! Says on stderr how large the trace will be when that matters, before the time goes into it.
void announce_trace(const SimulateOptions& options, const api::Simulation& simulation, io::TraceRanks ranks) {
  const io::TraceSizeEstimate estimate = io::estimate_chrome_trace(simulation, ranks);
  std::optional<io::TraceSizeEstimate> replica;
  if (ranks == io::TraceRanks::all && estimate.ranks >= io::kManyTraceRanks) {
    replica = io::estimate_chrome_trace(simulation, io::TraceRanks::replica);
  }
  for (const auto& notice : io::trace_notices(options.trace, ranks, estimate, replica)) {
    std::cerr << "distsim: " << notice << "\n";
  }
}

void run_simulate(const SimulateOptions& options) {
  const io::TraceRanks trace_ranks = io::parse_trace_ranks(options.trace_ranks);
  api::SimulationOptions simulation_options;
  simulation_options.all_ranks = options.all_ranks;
  // A Chakra export is the whole iteration's task graph, which a steady state would shorten.
  simulation_options.steady_state = options.chakra.empty();
  simulation_options.task_limit = options.task_limit.limit();
  simulation_options.threads = options.threads.count();
  const strategy::JobSpec job = distsim::options::assemble_valid_job(options.job.settings(), io::spec_resolvers());
  simulation_options.preferred_costs = options.profile.cost_model(job.cluster.gpu.name);
  simulation_options.build_progress = options.progress.reporter("build", "groups");
  simulation_options.progress = options.progress.reporter("simulate", "tasks");
  const api::Simulation simulation = api::simulate(job, simulation_options);
  if (!options.trace.empty()) {
    announce_trace(options, simulation, trace_ranks);
    const auto progress = options.progress.reporter("trace '" + options.trace + "'", "activities");
    write_output_file("--trace", options.trace,
                      [&](std::ostream& out) { io::write_chrome_trace(out, simulation, trace_ranks, progress); });
  }
  if (!options.chakra.empty()) {
    write_output_files("--chakra", io::chakra_files(simulation, trace_ranks, options.chakra));
  }
  if (!options.report.empty()) {
    write_output_file("--report", options.report,
                      [&](std::ostream& out) { io::write_simulation_report(out, simulation); });
  }
  if (options.json) {
    io::write_summary_json(std::cout, simulation,
                           options.json_ranks ? io::RankRecords::every_rank : io::RankRecords::stages);
  } else {
    std::cout << io::summary_text(simulation);
  }
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto options = std::make_shared<SimulateOptions>();
  auto* command = app.add_subcommand("simulate", "simulate one training iteration and summarize it");
  options->job.add_to(*command);
  command->add_flag("--json", options->json, "print one JSON object instead of the text summary");
  command->add_flag(
      "--json-ranks", options->json_ranks,
      "with --json, also list every rank (node, grid coordinates, busy and idle time) under "
      "'devices'; without it the JSON has one entry per stage and the rank layout, whatever the GPU count");
  command->add_option("--trace", options->trace, "write a Chrome/Perfetto trace JSON to this file");
  command->add_option("--report", options->report, "write a self-contained HTML report to this file");
  command->add_option("--chakra", options->chakra,
                      "write the iteration as Chakra execution traces for ASTRA-sim: PREFIX.<rank>.et per rank "
                      "and PREFIX.comm_groups.json (docs/chakra.md)");
  command
      ->add_option("--trace-ranks", options->trace_ranks,
                   "ranks in the trace and the Chakra export: replica (data-parallel replica 0) or all")
      ->capture_default_str();
  command->add_flag("--all-ranks", options->all_ranks,
                    "give every rank its own timeline instead of one per stage (one data-parallel replica simulated "
                    "per placement class)");
  options->profile.add_to(*command);
  options->task_limit.add_to(*command);
  options->threads.add_to(*command, "threads for the --kernel-jitter samples (their times do not depend on it)");
  options->progress.add_to(*command);
  command->callback([options, command] {
    refuse_outputs_onto_inputs(*command, {"--trace", "--report"});
    run_simulate(*options);
  });
}

}  // namespace distsim::cli
