#include <iostream>
#include <memory>
#include <thread>

#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "cli/threads_flag.hpp"
#include "core/input_error.hpp"
#include "io/calibration/calibration_reader.hpp"
#include "io/document/text_file.hpp"
#include "io/output/validation_writer.hpp"
#include "io/spec/spec_resolver.hpp"
#include "validation/validation_report.hpp"

namespace distsim::cli {

namespace {

constexpr const char* kBuiltinName = "the built-in calibration set (data/published_calibration.csv)";

struct ValidateOptions {
  std::string csv;
  std::vector<std::string> gpus;
  bool json = false;
  bool per_row = false;
  ThreadsFlag threads;
  ProgressFlag progress;
};

std::string read_csv_file(const std::string& path) {
  try {
    return io::read_text_file(path, "calibration file");
  } catch (const InputError& e) {
    throw InputError(std::string("--csv: ") + e.what());
  }
}

void run_validate(const ValidateOptions& options) {
  const bool builtin = options.csv.empty();
  const std::string file_name = builtin ? kBuiltinName : options.csv;
  const std::string text = builtin ? std::string(io::builtin_calibration_csv()) : read_csv_file(options.csv);
  std::vector<cluster::GpuSpec> gpus;
  gpus.reserve(options.gpus.size());
  for (const auto& gpu : options.gpus) {
    try {
      gpus.push_back(io::resolve_gpu(gpu));
    } catch (const InputError& e) {
      throw InputError(std::string("--gpu: ") + e.what());
    }
  }
  auto runs = io::read_calibration_runs(text, builtin ? "data/published_calibration.csv" : options.csv, gpus);
  const auto report =
      validation::validate(std::move(runs), options.threads.count(), options.progress.reporter("validate", "runs"));
  if (options.json) {
    std::cout << io::validation_json(report, file_name).dump(2) << "\n";
  } else {
    std::cout << io::validation_text(report, file_name, options.per_row);
  }
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  auto* command = app.add_subcommand("validate", "simulate published training runs and report the prediction error");
  command->add_option("--csv", options->csv,
                      "runs in the columns of data/published_calibration.csv (default: that set)");
  command->add_option("--gpu", options->gpus,
                      "a GPU file (or inline mapping) of a part the rows name, such as a GPU with another memory size "
                      "or power limit; a row's GPU is looked up among these by name before the catalog (repeatable)");
  command->add_flag("--json", options->json, "print one JSON object");
  command->add_flag("--per-row", options->per_row, "list every row's measured and predicted time");
  options->threads.add_to(*command, "simulation threads");
  options->progress.add_to(*command);
  command->callback([options] { run_validate(*options); });
}

}  // namespace distsim::cli
