#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "compare/comparison.hpp"
#include "io/output/comparison_json.hpp"
#include "io/output/comparison_text.hpp"
#include "io/trace/trace_reader.hpp"

namespace distsim::cli {

namespace {

struct CompareOptions {
  std::string predicted;
  std::vector<std::string> measured;
  bool json = false;
};

void run_compare(const CompareOptions& options) {
  const auto predicted = io::read_predicted_trace(options.predicted);
  const auto measured = io::read_measured_traces(options.measured, predicted);
  const auto comparison = compare::compare_timelines(predicted, measured);
  if (options.json) {
    std::cout << compare::comparison_json(predicted, measured, comparison).dump(2) << "\n";
  } else {
    std::cout << compare::comparison_text(predicted, measured, comparison);
  }
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto options = std::make_shared<CompareOptions>();
  auto* command = app.add_subcommand(
      "compare", "compare a predicted trace with measured ones: batch-time, per-device activity and per-stage errors");
  command->add_option("--predicted", options->predicted, "the trace of distsim simulate --trace")->required();
  command
      ->add_option("--measured", options->measured,
                   "measured traces, one per rank: CPU runner (tools/profiler/distsim_run.py), PyTorch profiler "
                   "(Kineto) JSON, or an Nsight Systems SQLite export (nsys export --type sqlite; one rank per GPU)")
      ->required()
      ->expected(1, -1);
  command->add_flag("--json", options->json, "print one JSON object with every number");
  command->callback([options] { run_compare(*options); });
}

}  // namespace distsim::cli
