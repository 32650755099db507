#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "cli/commands.hpp"
#include "cli/file_output.hpp"
#include "cli/job_flags.hpp"
#include "cli/profile_options.hpp"
#include "cli/progress.hpp"
#include "cli/threads_flag.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "io/output/search_writer.hpp"
#include "io/report/html_report.hpp"
#include "io/report/search_report_builder.hpp"
#include "io/spec/spec_resolver.hpp"
#include "options/job_assembly.hpp"
#include "search/strategy_search.hpp"

namespace distsim::cli {

namespace {

struct SearchCommandOptions {
  JobFlags job;
  //! Per searched option key: the values listed on the command line, and its flag.
  std::map<std::string, std::vector<std::string>> lists;
  std::map<std::string, CLI::Option*> list_flags;
  std::size_t top = 10;
  std::string csv;
  std::string report;
  ProfileOptions profile;
  bool json = false;
  ThreadsFlag threads;
  ProgressFlag progress;
  bool simulate_out_of_memory = false;
  std::string memory_headroom;
  double max_memory_gib = 0;
  CLI::Option* memory_headroom_flag = nullptr;
  CLI::Option* max_memory_flag = nullptr;
};

//! The spellings of earlier versions, which named the lists in the plural.
std::string plural_alias(const std::string& key) {
  if (key == "micro_batch_size") return ",--micro-batch-sizes";
  if (key == "schedule") return ",--schedules";
  return "";
}

void check_search_flags(const SearchCommandOptions& options, const distsim::options::JobSettings& file) {
  options.threads.count();  // refuses a bad --threads before any work
  if (const auto* setting = file.find("strategy")) {
    throw InputError(setting->origin +
                     ": search varies the parallel sizes itself; pin them with the keys tp, pp, dp and cp");
  }
  if (options.memory_headroom_flag->count() > 0 && options.max_memory_flag->count() > 0) {
    throw InputError("--memory-headroom and --max-memory-gib both given; use one or the other");
  }
}

//! The listed values of every searched setting: the flag's list, else the job file's one value.
void list_searched_values(const SearchCommandOptions& options, const distsim::options::JobSettings& file,
                          search::SearchSpace& space) {
  for (const auto* option : search::searched_options()) {
    const CLI::Option* flag = options.list_flags.at(option->key);
    if (flag->count() > 0) {
      const auto& items = options.lists.at(option->key);
      // A yes/no flag given alone (CLI11 then holds one empty value) means yes, as simulate's does.
      const bool alone = items.empty() || (items.size() == 1 && items.front().empty());
      const bool yes = alone && option->type == distsim::options::ValueType::boolean;
      search::list_values(space, option->key, yes ? std::vector<std::string>{"true"} : items, option->flag);
    } else if (const auto* setting = file.find(option->key)) {
      space.listed[option->key] = {setting->value};
    }
  }
}

search::SearchSpace make_space(const SearchCommandOptions& options) {
  distsim::options::JobSettings file = options.job.file_settings();
  check_search_flags(options, file);
  search::SearchSpace space;
  list_searched_values(options, file, space);
  for (const auto& key : search::searched_keys()) file.erase(key);
  distsim::options::JobSettings searched;
  searched.set("strategy", std::string("1M1P1D"), "search");
  searched.set("micro_batch_size", 1, "search");
  const distsim::options::JobSettings settings = searched.over(options.job.flag_settings().over(file));
  space.base = distsim::options::assemble_job(settings, io::spec_resolvers());
  strategy::validate_precision(space.base, settings.names());
  return space;
}

//! What counts as fitting: --max-memory-gib, or the GPU's memory less --memory-headroom.
std::optional<double> memory_limit(const SearchCommandOptions& options, const search::SearchSpace& space) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  if (options.max_memory_flag->count() > 0) {
    if (!(options.max_memory_gib > 0)) {
      throw InputError("--max-memory-gib: expected a positive number of GiB, got " +
                       std::to_string(options.max_memory_gib));
    }
    return options.max_memory_gib * kGiB;
  }
  if (options.memory_headroom_flag->count() == 0) return std::nullopt;
  std::string text = options.memory_headroom;
  if (!text.empty() && text.back() == '%') text.pop_back();
  double percent = -1;
  std::size_t used = 0;
  try {
    percent = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || percent < 0 || percent >= 100) {
    throw InputError("--memory-headroom: expected a percentage from 0 to below 100, e.g. 10 or 10%, got '" +
                     options.memory_headroom + "'");
  }
  const auto capacity = static_cast<double>(std::llround(space.base.cluster.gpu.memory_gb * kGiB));
  return capacity * (1.0 - percent / 100.0);
}

void run_search(const SearchCommandOptions& options) {
  const search::SearchSpace space = make_space(options);
  search::SearchOptions search_options;
  search_options.threads = options.threads.count();
  search_options.simulate_out_of_memory = options.simulate_out_of_memory;
  search_options.memory_limit_bytes = memory_limit(options, space);
  search_options.keep = options.top;
  search_options.progress = options.progress.reporter("search", "candidates");
  search_options.simulation.preferred_costs = options.profile.cost_model(space.base.cluster.gpu.name);
  const search::SearchResult result = search::run_search(space, search_options);
  if (!options.csv.empty()) {
    write_output_file("--csv", options.csv, [&](std::ostream& out) { io::write_search_csv(out, result); });
  }
  if (!options.report.empty()) {
    const io::SearchReport report = io::make_search_report(space, result, options.top);
    write_output_file("--report", options.report, [&](std::ostream& out) { io::write_search_report(out, report); });
  }
  if (options.json) {
    std::cout << io::search_json(space, result, options.top).dump(2) << "\n";
  } else {
    std::cout << io::search_text(space, result, options.top);
  }
}

}  // namespace

void add_search_command(CLI::App& app) {
  auto options = std::make_shared<SearchCommandOptions>();
  auto* command = app.add_subcommand(
      "search",
      "simulate every combination of the searchable job settings (the list flags below) and rank them by throughput");
  options->job.add_to(*command, search::searched_keys());  // the search varies these itself
  for (const auto* option : search::searched_options()) {
    options->list_flags[option->key] =
        command
            ->add_option(option->flag + plural_alias(option->key), options->lists[option->key],
                         "values to try, e.g. a,b,c, or all (the default: every valid value): " + option->help +
                             "; job-file key " + option->key + " pins one value")
            ->delimiter(',')
            ->expected(0, CLI::detail::expected_max_vector_size)
            ->type_name(option->type == distsim::options::ValueType::positive_integer ? "N,..." : "TEXT,...");
  }
  options->memory_headroom_flag =
      command->add_option("--memory-headroom", options->memory_headroom,
                          "a candidate fits when its peak memory leaves this share of the GPU's memory free, e.g. 10%");
  options->max_memory_flag = command->add_option("--max-memory-gib", options->max_memory_gib,
                                                 "a candidate fits when its peak memory is at most this many GiB");
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
  command->add_flag("--simulate-oom", options->simulate_out_of_memory,
                    "simulate candidates that do not fit in memory too (they stay marked)");
  command->callback([options] { run_search(*options); });
}

}  // namespace distsim::cli
