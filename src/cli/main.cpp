#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "api/simulation.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "catalog/builtin_models.hpp"
#include "cli/job_options.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "io/output/events_writer.hpp"
#include "io/output/summary_writer.hpp"
#include "io/output/trace_writer.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::cli {

namespace {

constexpr int kExitInputError = 2;
constexpr int kExitInternalError = 70;

//! Writes through a temporary file renamed into place, so a failed run leaves no partial file.
template <typename Writer>
void write_file_atomically(const std::string& path, Writer&& write) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary);
    if (!out) {
      throw InputError("cannot write '" + path + "': the directory does not exist or is not writable");
    }
    write(out);
    if (!out.flush()) {
      std::filesystem::remove(temporary);
      throw InputError("failed while writing '" + path + "'");
    }
  }
  std::filesystem::rename(temporary, path);
}

struct SimulateOptions {
  bool json = false;
  std::string trace;
  std::string trace_ranks = "replica";
  bool all_ranks = false;
};

io::TraceRanks parse_trace_ranks(const std::string& text) {
  if (text == "replica") return io::TraceRanks::replica;
  if (text == "all") return io::TraceRanks::all;
  throw InputError("--trace-ranks: " + unknown_name_message("value", text, {"replica", "all"}));
}

void run_simulate(const JobOptions& job_options, const SimulateOptions& options) {
  const io::TraceRanks trace_ranks = parse_trace_ranks(options.trace_ranks);
  api::SimulationOptions simulation_options;
  simulation_options.all_ranks = options.all_ranks;
  const api::Simulation simulation = api::simulate(job_options.to_job(), simulation_options);
  if (!options.trace.empty()) {
    write_file_atomically(options.trace, [&](std::ostream& out) { io::write_chrome_trace(out, simulation, trace_ranks); });
  }
  if (options.json) {
    std::cout << io::summary_json(simulation).dump(2) << "\n";
  } else {
    std::cout << io::summary_text(simulation);
  }
}

void run_events(const JobOptions& job_options, bool json) {
  const strategy::JobSpec job = job_options.to_job();
  const program::JobProgram program = api::job_events(job);
  if (json) {
    std::cout << io::events_json(job, program).dump(2) << "\n";
  } else {
    std::cout << io::events_text(job, program);
  }
}

template <typename Item, typename Describe>
void print_catalog(const std::vector<Item>& items, Describe describe) {
  for (const auto& item : items) {
    std::cout << describe(item) << "\n";
  }
}

std::string padded(std::string_view name) {
  std::string text(name);
  text.resize(std::max<size_t>(text.size() + 2, 18), ' ');
  return text;
}

void run_list(const std::string& what) {
  if (what == "models") {
    print_catalog(catalog::builtin_models(), [](const auto& m) { return padded(m.name) + m.description; });
  } else if (what == "gpus") {
    print_catalog(catalog::builtin_gpus(), [](const auto& g) { return padded(g.name) + g.description; });
  } else if (what == "clusters") {
    print_catalog(catalog::builtin_clusters(), [](const auto& c) { return padded(c.name) + c.description; });
  } else if (what == "schedules") {
    print_catalog(schedule::all_schedules(),
                  [](const auto* s) { return padded(s->name()) + std::string(s->description()); });
  } else {
    throw InputError("distsim list: " + unknown_name_message("catalog", what, {"models", "gpus", "clusters", "schedules"}));
  }
}

int run(int argc, char** argv) {
  CLI::App app{"distsim: predicts how a hybrid-parallel DNN training job runs on a GPU cluster"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "distsim 0.1.0");

  JobOptions simulate_job;
  SimulateOptions simulate_options;
  auto* simulate = app.add_subcommand("simulate", "simulate one training iteration and summarize it");
  simulate_job.add_to(*simulate);
  simulate->add_flag("--json", simulate_options.json, "print one JSON object instead of the text summary");
  simulate->add_option("--trace", simulate_options.trace, "write a Chrome/Perfetto trace JSON to this file");
  simulate->add_option("--trace-ranks", simulate_options.trace_ranks, "ranks in the trace: replica (data-parallel replica 0) or all")
      ->capture_default_str();
  simulate->add_flag("--all-ranks", simulate_options.all_ranks, "simulate every rank explicitly instead of one per stage");

  JobOptions events_job;
  bool events_json = false;
  auto* events = app.add_subcommand("events", "list the job's unique events, their costs and instance counts");
  events_job.add_to(*events);
  events->add_flag("--json", events_json, "print JSON (the profiler's work list)");

  std::string list_what;
  auto* list = app.add_subcommand("list", "list the built-in models, gpus, clusters or schedules");
  list->add_option("what", list_what, "models | gpus | clusters | schedules")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitInputError;
  }
  if (simulate->parsed()) {
    run_simulate(simulate_job, simulate_options);
  } else if (events->parsed()) {
    run_events(events_job, events_json);
  } else {
    run_list(list_what);
  }
  return 0;
}

}  // namespace

}  // namespace distsim::cli

int main(int argc, char** argv) {
  try {
    return distsim::cli::run(argc, argv);
  } catch (const distsim::InputError& e) {
    std::cerr << "distsim: error: " << e.what() << "\n";
    return distsim::cli::kExitInputError;
  } catch (const std::exception& e) {
    std::cerr << "distsim: internal error: " << e.what() << " (please report)\n";
    return distsim::cli::kExitInternalError;
  }
}
