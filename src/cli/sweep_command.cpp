#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/file_output.hpp"
#include "cli/mpi_process_group.hpp"
#include "cli/path_overlap.hpp"
#include "cli/profile_options.hpp"
#include "cli/progress.hpp"
#include "cli/threads_flag.hpp"
#include "io/output/sweep_writer.hpp"
#include "io/spec/spec_resolver.hpp"
#include "io/spec/sweep_file_reader.hpp"
#include "search/sweep.hpp"

namespace distsim::cli {

namespace {

struct SweepCommandOptions {
  std::string file;
  std::string csv;
  bool json = false;
  ProfileOptions profile;
  ThreadsFlag threads;
  ProgressFlag progress;
};

void run_sweep(const SweepCommandOptions& options) {
  const search::Sweep sweep = io::read_sweep_file(options.file);
  search::SweepRun run;
  run.search.threads = options.threads.count();
  run.progress = options.progress.reporter("sweep", "points");
  run.search.processes = mpi_processes();
  run.costs = [&](const strategy::JobSpec& base) { return options.profile.cost_model(base.cluster.gpu.name); };
  const std::vector<search::SweepPoint> points = search::run_sweep(sweep, io::spec_resolvers(), run);
  // Every process of an MPI group holds every point's result; the first alone writes them.
  if (run.search.processes != nullptr && run.search.processes->rank() != 0) return;
  if (!options.csv.empty()) {
    write_output_file("--csv", options.csv, [&](std::ostream& out) { io::write_sweep_csv(out, sweep, points); });
  }
  if (options.json) {
    std::cout << io::sweep_json(sweep, points).dump(2) << "\n";
  } else {
    std::cout << io::sweep_text(sweep, points);
  }
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto options = std::make_shared<SweepCommandOptions>();
  auto* command = app.add_subcommand(
      "sweep",
      "search the best strategies of every combination of models, GPUs, clusters, cluster sizes, batch sizes and "
      "sequence lengths that a YAML sweep file lists, and print the best of each in one table");
  command
      ->add_option("file", options->file,
                   "the sweep file: lists models, gpus, clusters, nodes, global_batch_sizes, seq_lengths, and a "
                   "search mapping of distsim search's flags (docs/sweep.md)")
      ->required();
  command->add_option("--csv", options->csv, "write the best candidates of every point to this CSV file");
  options->profile.add_to(*command);
  command->add_flag("--json", options->json, "print one JSON object instead of the text table");
  options->threads.add_to(*command, "simulation threads");
  options->progress.add_to(*command);
  command->callback([options, command] {
    refuse_outputs_onto_inputs(*command, {"--csv"});
    run_sweep(*options);
  });
}

}  // namespace distsim::cli
