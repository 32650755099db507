#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/commands.hpp"
#include "cli/file_output.hpp"
#include "cli/job_flags.hpp"
#include "cli/profile_options.hpp"
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
  std::vector<std::string> micro_batch_sizes{"1"};
  std::string micro_batch_size;
  std::vector<std::string> schedules{"1f1b"};
  std::vector<std::string> recompute{"none"};
  CLI::Option* micro_batch_sizes_flag = nullptr;
  CLI::Option* micro_batch_size_flag = nullptr;
  CLI::Option* schedules_flag = nullptr;
  CLI::Option* recompute_flag = nullptr;
  std::size_t top = 10;
  std::string csv;
  std::string report;
  ProfileOptions profile;
  bool json = false;
  ThreadsFlag threads;
  bool simulate_out_of_memory = false;
};

//! Each item parsed by the option table's rule for `key`, named by `flag`.
std::vector<distsim::options::Value> parse_items(const std::vector<std::string>& items, const std::string& key,
                                                 const std::string& flag) {
  std::vector<distsim::options::Value> values;
  for (const auto& item : items) {
    const distsim::options::ParsedValue parsed = distsim::options::parse_value(distsim::options::option(key), item);
    if (!parsed.ok()) {
      throw InputError(flag + ": " + parsed.problem);
    }
    values.push_back(parsed.value);
  }
  return values;
}

//! A list flag's items when given; else the job file's one value of the key; else the default.
std::vector<std::string> items_of(const CLI::Option* flag, const std::vector<std::string>& items,
                                  const distsim::options::JobSettings& file, const std::string& key) {
  if (flag->count() == 0) {
    if (const auto* setting = file.find(key)) return {distsim::options::value_text(setting->value)};
  }
  return items;
}

void check_search_flags(const SearchCommandOptions& options, const distsim::options::JobSettings& file) {
  if (options.micro_batch_size_flag->count() > 0 && options.micro_batch_sizes_flag->count() > 0) {
    throw InputError("--micro-batch-size and --micro-batch-sizes both given; use one or the other");
  }
  options.threads.count();  // refuses a bad --threads before any work
  for (const char* key : {"strategy", "tp", "pp", "dp", "cp"}) {
    if (const auto* setting = file.find(key)) {
      throw InputError(setting->origin + ": search tries every split of the cluster; leave the key out");
    }
  }
}

search::SearchSpace make_space(const SearchCommandOptions& options) {
  const distsim::options::JobSettings file = options.job.file_settings();
  check_search_flags(options, file);
  distsim::options::JobSettings searched;
  searched.set("strategy", std::string("1M1P1D"), "search");
  searched.set("micro_batch_size", 1, "search");
  const distsim::options::JobSettings settings = searched.over(options.job.flag_settings().over(file));
  search::SearchSpace space;
  space.base = distsim::options::assemble_job(settings, io::spec_resolvers());
  strategy::validate_precision(space.base, settings.names());
  const bool one_size = options.micro_batch_size_flag->count() > 0;
  const auto sizes =
      one_size ? std::vector<std::string>{options.micro_batch_size}
               : items_of(options.micro_batch_sizes_flag, options.micro_batch_sizes, file, "micro_batch_size");
  space.micro_batch_sizes.clear();
  for (const auto& size :
       parse_items(sizes, "micro_batch_size", one_size ? "--micro-batch-size" : "--micro-batch-sizes")) {
    space.micro_batch_sizes.push_back(std::get<int>(size));
  }
  space.schedules.clear();
  for (const auto& item : items_of(options.schedules_flag, options.schedules, file, "schedule")) {
    if (item == search::kAllSchedules) {
      space.schedules.push_back(item);
      continue;
    }
    space.schedules.push_back(std::get<std::string>(parse_items({item}, "schedule", "--schedules").front()));
  }
  space.recompute.clear();
  for (const auto& text : items_of(options.recompute_flag, options.recompute, file, "recompute")) {
    space.recompute.push_back(strategy::parse_recompute(text, "--recompute"));
  }
  return space;
}

//! Redraws one stderr line, only on a terminal and only once the search has run half a second.
class ProgressBar {
 public:
  void operator()(std::size_t done, std::size_t total) {
    using namespace std::chrono;
    if (!isatty(STDERR_FILENO) || steady_clock::now() - start_ < milliseconds(500)) return;
    constexpr std::size_t kWidth = 40;
    const std::size_t filled = total == 0 ? kWidth : done * kWidth / total;
    std::fprintf(stderr, "\rsimulating [%s%s] %zu/%zu", std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, ' ').c_str(), done, total);
    if (done == total) std::fprintf(stderr, "\n");
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

void run_search(const SearchCommandOptions& options) {
  const search::SearchSpace space = make_space(options);
  search::SearchOptions search_options;
  search_options.threads = options.threads.count();
  search_options.simulate_out_of_memory = options.simulate_out_of_memory;
  search_options.progress = ProgressBar{};
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
      "search", "simulate every tensor x pipeline x data parallel split of the cluster and rank them by throughput");
  options->job.add_to(*command, search::searched_keys());  // the search varies these itself
  options->micro_batch_sizes_flag =
      command->add_option("--micro-batch-sizes", options->micro_batch_sizes, "micro-batch sizes to try, e.g. 1,2,4")
          ->delimiter(',')
          ->capture_default_str();
  options->micro_batch_size_flag = command->add_option("--micro-batch-size", options->micro_batch_size,
                                                       "one micro-batch size to try (--micro-batch-sizes with one)");
  options->schedules_flag =
      command
          ->add_option("--schedules", options->schedules,
                       "pipeline schedules to try, e.g. gpipe,1f1b, or all (every one of `distsim list schedules`)")
          ->delimiter(',')
          ->capture_default_str();
  options->recompute_flag =
      command->add_option("--recompute", options->recompute, "recomputation settings to try: none,selective,full")
          ->delimiter(',')
          ->capture_default_str();
  command->add_option("--top", options->top, "rows of the ranking to print")->capture_default_str();
  command->add_option("--csv", options->csv, "write every candidate to this CSV file");
  command->add_option("--report", options->report, "write a self-contained HTML report to this file");
  options->profile.add_to(*command);
  command->add_flag("--json", options->json, "print one JSON object instead of the text table");
  options->threads.add_to(*command, "simulation threads");
  command->add_flag("--simulate-oom", options->simulate_out_of_memory,
                    "simulate candidates that do not fit in memory too (they stay marked)");
  command->callback([options] { run_search(*options); });
}

}  // namespace distsim::cli
