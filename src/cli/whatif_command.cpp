#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "io/output/whatif_writer.hpp"
#include "io/trace/step_timeline_reader.hpp"
#include "whatif/straggler_analysis.hpp"

namespace distsim::cli {

namespace {

struct WhatIfOptions {
  std::string trace;
  bool json = false;
};

void run_whatif(const WhatIfOptions& options) {
  const whatif::MeasuredTrace trace = io::read_step_timeline(options.trace);
  const whatif::StragglerAnalysis analysis = whatif::analyze_stragglers(trace);
  if (options.json) {
    std::cout << io::whatif_json(analysis, options.trace).dump(2) << "\n";
  } else {
    std::cout << io::whatif_text(analysis, options.trace);
  }
}

}  // namespace

void add_whatif_command(CLI::App& app) {
  auto options = std::make_shared<WhatIfOptions>();
  auto* command = app.add_subcommand("whatif", "replay a measured (or simulated) per-rank step timeline: the straggler "
                                               "slowdown and its attribution by stage, data-parallel "
                                               "rank and operation type (docs/whatif.md)");
  command
      ->add_option("trace", options->trace,
                   "the measured timeline (Chrome trace events; .json or .json.gz) or distsim's own --trace")
      ->required();
  command->add_flag("--json", options->json, "print one JSON object with every number, each step's too");
  command->callback([options] { run_whatif(*options); });
}

}  // namespace distsim::cli
