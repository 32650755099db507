#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/file_output.hpp"
#include "cli/job_flags.hpp"
#include "cli/list_items.hpp"
#include "cli/mpi_process_group.hpp"
#include "cli/path_overlap.hpp"
#include "cli/profile_options.hpp"
#include "cli/progress.hpp"
#include "cli/task_limit_flag.hpp"
#include "cli/threads_flag.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "core/number_text.hpp"
#include "io/output/search_writer.hpp"
#include "io/report/html_report.hpp"
#include "io/report/search_report_builder.hpp"
#include "io/spec/spec_resolver.hpp"
#include "options/job_option.hpp"
#include "search/memory_limit.hpp"
#include "search/objective.hpp"
#include "search/search_setup.hpp"
#include "search/strategy_search.hpp"

namespace distsim::cli {

namespace {

struct SearchCommandOptions {
  JobFlags job;
  //! Per searched option key: the values listed on the command line, and its flag.
  std::map<std::string, std::vector<std::string>> lists;
  std::map<std::string, CLI::Option*> list_flags;
  std::int64_t top = 10;
  std::string csv;
  std::string report;
  ProfileOptions profile;
  bool json = false;
  ThreadsFlag threads;
  ProgressFlag progress;
  TaskLimitFlag task_limit;
  bool simulate_out_of_memory = false;
  std::string memory_headroom;
  double max_memory_gib = 0;
  CLI::Option* memory_headroom_flag = nullptr;
  CLI::Option* max_memory_flag = nullptr;
  std::vector<std::string> nodes;
  CLI::Option* nodes_flag = nullptr;
  std::vector<std::string> objectives{"time", "memory"};
  std::string front_within = fmt::format("{:g}", search::kDefaultFrontWithin);
};

//! The spellings of earlier versions, which named the lists in the plural.
std::string plural_alias(const std::string& key) {
  if (key == "micro_batch_size") return ",--micro-batch-sizes";
  if (key == "schedule") return ",--schedules";
  return "";
}

//! The values listed on the command line per searched option key, and the node counts of
//! `--nodes` under "nodes".
std::map<std::string, std::vector<std::string>> listed_values(const SearchCommandOptions& options) {
  std::map<std::string, std::vector<std::string>> lists;
  for (const auto* option : search::searched_options()) {
    if (options.list_flags.at(option->key)->count() == 0) continue;
    const auto& items = options.lists.at(option->key);
    // A yes/no flag given alone (CLI11 then holds one empty value) means yes, as simulate's does.
    const bool alone = items.empty() || (items.size() == 1 && items.front().empty());
    const bool yes = alone && option->type == distsim::options::ValueType::boolean;
    lists[option->key] = yes ? std::vector<std::string>{"true"} : list_items(option->flag, items);
  }
  if (options.nodes_flag->count() > 0) lists["nodes"] = list_items("--nodes", options.nodes);
  return lists;
}

search::SearchSpace make_space(const SearchCommandOptions& options) {
  options.threads.count();  // refuses a bad --threads before any work
  return search::make_search_space(options.job.settings(), listed_values(options), io::spec_resolvers());
}

//! What counts as fitting: --max-memory-gib, or the GPU's memory less --memory-headroom.
std::optional<double> memory_limit(const SearchCommandOptions& options, const search::SearchSpace& space) {
  const std::optional<std::string> headroom =
      options.memory_headroom_flag->count() > 0 ? std::optional(options.memory_headroom) : std::nullopt;
  const std::optional<double> max_gib =
      options.max_memory_flag->count() > 0 ? std::optional(options.max_memory_gib) : std::nullopt;
  return search::memory_limit_bytes(space.base, headroom, max_gib);
}

//! The rows of the ranking to print; 0 prints every one.
std::size_t rows_to_print(const SearchCommandOptions& options) {
  if (options.top < 0) {
    throw InputError("--top: expected 0 or more rows (0: every candidate), got '" + std::to_string(options.top) + "'");
  }
  return static_cast<std::size_t>(options.top);
}

void run_search(const SearchCommandOptions& options) {
  const std::size_t top = rows_to_print(options);
  const search::SearchSpace space = make_space(options);
  search::SearchOptions search_options;
  search_options.threads = options.threads.count();
  search_options.simulate_out_of_memory = options.simulate_out_of_memory;
  search_options.memory_limit_bytes = memory_limit(options, space);
  search_options.keep = top;
  search_options.objectives = search::parse_objectives(list_items("--objectives", options.objectives), "--objectives");
  search_options.objectives.front_within = search::parse_front_within(options.front_within, "--front-within");
  search_options.goal = search::training_goal(space.base.run);
  search_options.progress = options.progress.reporter("search", "candidates");
  search_options.check_progress = options.progress.reporter("checks", "candidates");
  search_options.bound_progress = options.progress.reporter("lower bounds", "candidates");
  search_options.processes = mpi_processes();
  search_options.simulation.preferred_costs = options.profile.cost_model(space.base.cluster.gpu.name);
  search_options.simulation.task_limit = options.task_limit.limit();
  const search::SearchResult result = search::run_search(space, search_options);
  // Every process of an MPI group holds the whole result; the first alone writes it.
  if (search_options.processes != nullptr && search_options.processes->rank() != 0) return;
  if (!options.csv.empty()) {
    write_output_file("--csv", options.csv, [&](std::ostream& out) { io::write_search_csv(out, result); });
  }
  if (!options.report.empty()) {
    // --top 0 simulates every candidate, and the report's table then lists them all.
    const io::SearchReport report = io::make_search_report(space, result, top == 0 ? result.candidates.size() : top);
    write_output_file("--report", options.report, [&](std::ostream& out) { io::write_search_report(out, report); });
  }
  if (options.json) {
    io::write_search_json(std::cout, space, result, top);
  } else {
    std::cout << io::search_text(space, result, top);
  }
}

}  // namespace

void add_search_command(CLI::App& app) {
  auto options = std::make_shared<SearchCommandOptions>();
  auto* command = app.add_subcommand(
      "search",
      "simulate every combination of the searchable job settings (the list flags below) and rank them by throughput");
  std::vector<std::string> left_out = search::searched_keys();  // the search varies these itself
  left_out.emplace_back("nodes");                               // a list here
  options->job.add_to(*command, left_out);
  options->nodes_flag =
      command
          ->add_option("--nodes", options->nodes,
                       "node counts to try, e.g. 16,32,64 (default: the job file's nodes); each candidate uses every "
                       "GPU of one")
          ->type_name("N,...");
  for (const auto* option : search::searched_options()) {
    options->list_flags[option->key] =
        command
            ->add_option(option->flag + plural_alias(option->key), options->lists[option->key],
                         std::string(option->searched_when_listed
                                         ? "values to try, e.g. a,b,c, or all (every value; the default: the job's "
                                           "own): "
                                         : "values to try, e.g. a,b,c, or all (the default: every valid value): ") +
                             option->help + "; job-file key " + option->key + " pins one value")
            ->expected(0, CLI::detail::expected_max_vector_size)
            ->type_name(option->type == distsim::options::ValueType::positive_integer ? "N,..." : "TEXT,...");
  }
  options->memory_headroom_flag =
      command->add_option("--memory-headroom", options->memory_headroom,
                          "a candidate fits when its peak memory leaves this share of the GPU's memory free, e.g. 10%");
  options->max_memory_flag = command->add_option("--max-memory-gib", options->max_memory_gib,
                                                 "a candidate fits when its peak memory is at most this many GiB");
  command
      ->add_option("--objectives", options->objectives,
                   "what to minimize: time (iteration time), cost (GPU-hours), memory (peak per GPU) or "
                   "time-to-train (expected, with failures and checkpoints; needs --tokens); the first ranks, the "
                   "Pareto front trades it against the second")
      ->capture_default_str();
  command
      ->add_option("--front-within", options->front_within,
                   "how far the Pareto front reaches: candidates at most this many times the best of the first "
                   "objective, or all; slower candidates are pruned by their lower bound")
      ->capture_default_str();
  command
      ->add_option("--top", options->top,
                   "rows of the ranking to print; the search finds these exactly and prunes candidates whose lower "
                   "bound loses to them")
      ->capture_default_str();
  command->add_option("--csv", options->csv, "write every candidate to this CSV file");
  command->add_option("--report", options->report, "write a self-contained HTML report to this file");
  options->profile.add_to(*command);
  command->add_flag("--json", options->json, "print one JSON object instead of the text table");
  options->threads.add_to(*command, "simulation threads");
  options->progress.add_to(*command);
  options->task_limit.add_to(*command);
  command->add_flag("--simulate-oom", options->simulate_out_of_memory,
                    "simulate candidates that do not fit in memory too (they stay marked)");
  command->callback([options, command] {
    refuse_outputs_onto_inputs(*command, {"--csv", "--report"});
    run_search(*options);
  });
}

}  // namespace distsim::cli
