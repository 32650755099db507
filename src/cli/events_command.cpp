#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include "api/simulation.hpp"
#include "cli/commands.hpp"
#include "cli/job_flags.hpp"
#include "cli/list_items.hpp"
#include "cli/profile_options.hpp"
#include "cli/task_limit_flag.hpp"
#include "cli/threads_flag.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "io/output/events_writer.hpp"
#include "io/spec/job_file_reader.hpp"
#include "io/spec/spec_resolver.hpp"
#include "options/job_assembly.hpp"
#include "search/job_census.hpp"

namespace distsim::cli {

namespace {

//! Flags whose values are only read when they were given.
struct GivenFlags {
  CLI::Option* micro_batch_sizes = nullptr;
  CLI::Option* schedules = nullptr;
  std::vector<CLI::Option*> cost;      //!< --warmup, --repeats, --direct-iterations, --profile-nodes
  std::vector<CLI::Option*> strategy;  //!< what --search varies itself
};

struct EventsOptions {
  JobFlags job;
  //! One recomputation for one job, or a list of them with --search.
  std::string recompute = "none";
  CLI::Option* recompute_flag = nullptr;
  bool json = false;
  bool skip_profiled = false;
  ProfileOptions profile;
  std::vector<std::string> job_files;
  bool search = false;
  std::vector<std::string> micro_batch_sizes{"1"};
  std::vector<std::string> schedules{"1f1b"};
  search::ProfilingCostOptions cost;
  ThreadsFlag threads;
  TaskLimitFlag task_limit;
  GivenFlags given;
};

//! The jobs of a census with their labels.
struct JobSet {
  std::vector<strategy::JobSpec> jobs;
  std::vector<std::string> labels;
};

void check_flag_combinations(const EventsOptions& options) {
  options.threads.count();  // refuses a bad --threads before any work
  if (options.search && !options.job_files.empty()) {
    throw InputError("--jobs and --search both given; list job files or describe a search space, not both");
  }
  if (!options.search) {
    for (const auto* flag : {options.given.micro_batch_sizes, options.given.schedules}) {
      if (flag->count() > 0) {
        throw InputError(flag->get_name() + " describes a search space; add --search");
      }
    }
  }
  if (options.search) {
    for (const auto* flag : options.given.strategy) {
      if (flag->count() > 0) {
        throw InputError("--search tries every split of the cluster; leave out " + flag->get_name() +
                         " (--micro-batch-sizes, --schedules and --recompute choose what it tries)");
      }
    }
  }
  if (!options.search && options.job_files.empty()) {
    for (const auto* flag : options.given.cost) {
      if (flag->count() > 0) {
        throw InputError(flag->get_name() + " prices profiling a set of jobs; add --jobs FILE... or --search");
      }
    }
  }
}

//! The job flags with --recompute, which names one recomputation when one job is listed.
distsim::options::JobSettings one_job_settings(const EventsOptions& options) {
  distsim::options::JobSettings settings = options.job.settings();
  if (options.recompute_flag->count() > 0) {
    settings.set_text("recompute", options.recompute, "--recompute");
  }
  return settings;
}

//! Each job file's keys over the job flags: a key the file leaves out keeps the flag's value.
JobSet jobs_from_files(const EventsOptions& options) {
  JobSet set;
  const distsim::options::JobSettings flags = one_job_settings(options);
  for (const auto& path : options.job_files) {
    try {
      const distsim::options::JobSettings settings = io::read_job_file(path).over(flags);
      set.jobs.push_back(distsim::options::assemble_valid_job(settings, io::spec_resolvers()));
    } catch (const InputError& e) {
      const std::string message = e.what();
      // Messages about the file's keys name it already; the others need it.
      throw InputError(message.find(path) != std::string::npos ? message : "job file '" + path + "': " + message);
    }
    set.labels.push_back(path);
  }
  return set;
}

JobSet jobs_from_search(const EventsOptions& options) {
  distsim::options::JobSettings searched;
  searched.set("strategy", std::string("1M1P1D"), "--search");
  searched.set("micro_batch_size", 1, "--search");
  const distsim::options::JobSettings base = searched.over(options.job.settings());
  search::SearchSpace space;
  space.base = distsim::options::assemble_job(base, io::spec_resolvers());
  strategy::validate_precision(space.base, base.names());
  // The census covers the (tp, pp, dp) splits of the cluster and, for an MoE model, the expert
  // parallel sizes a search tries unless --ep pins one; the listed flags vary their settings, and
  // every other searched setting that means something for the job keeps the job's value.
  const bool experts_free = options.job.settings().find("ep") == nullptr;
  for (const auto* option : search::searched_options()) {
    const bool free =
        option->key == "tp" || option->key == "pp" || option->key == "dp" || (option->key == "ep" && experts_free);
    const bool applies = !option->applies || option->applies(space.base);
    if (!free && applies) space.listed[option->key] = {option->read(space.base)};
  }
  search::list_values(space, "micro_batch_size", list_items("--micro-batch-sizes", options.micro_batch_sizes),
                      "--micro-batch-sizes");
  search::list_values(space, "schedule", list_items("--schedules", options.schedules), "--schedules");
  search::list_values(space, "recompute", list_items("--recompute", {options.recompute}), "--recompute");
  JobSet set;
  for (const auto& candidate : search::census_candidates(space)) {
    set.jobs.push_back(candidate.job());
    set.labels.push_back(candidate.label());
  }
  return set;
}

//! One work list is for one hardware: the profile database keys measurements by GPU name.
void check_one_gpu(const JobSet& set) {
  for (std::size_t i = 1; i < set.jobs.size(); ++i) {
    const auto& first = set.jobs.front().cluster.gpu.name;
    const auto& other = set.jobs[i].cluster.gpu.name;
    if (other != first) {
      throw InputError("--jobs: the jobs run on different GPUs ('" + first + "' in " + set.labels.front() + ", '" +
                       other + "' in " + set.labels[i] + "); list the jobs of one GPU at a time");
    }
  }
}

void run_census(const EventsOptions& options) {
  const JobSet set = options.search ? jobs_from_search(options) : jobs_from_files(options);
  check_one_gpu(set);
  search::CensusOptions census_options;
  census_options.threads = options.threads.count();
  census_options.simulation.preferred_costs = options.profile.cost_model(set.jobs.front().cluster.gpu.name);
  const search::EventCensus census = search::take_census(set.jobs, set.labels, census_options);
  search::ProfilingCostOptions cost = options.cost;
  cost.skip_profiled = options.skip_profiled;
  if (options.json) {
    std::cout << io::census_json(set.jobs, census, cost).dump(2) << "\n";
  } else {
    std::cout << io::census_text(census, cost);
  }
}

void run_one_job(const EventsOptions& options) {
  const strategy::JobSpec job = distsim::options::assemble_valid_job(one_job_settings(options), io::spec_resolvers());
  api::SimulationOptions simulation_options;
  simulation_options.preferred_costs = options.profile.cost_model(job.cluster.gpu.name);
  simulation_options.task_limit = options.task_limit.limit();
  const program::JobProgram program = api::job_events(job, simulation_options);
  if (options.json) {
    std::cout << io::events_json(job, program, options.skip_profiled).dump(2) << "\n";
  } else {
    std::cout << io::events_text(job, program, options.skip_profiled);
  }
}

void run_events(const EventsOptions& options) {
  check_flag_combinations(options);
  if (options.search || !options.job_files.empty()) {
    run_census(options);
  } else {
    run_one_job(options);
  }
}

void add_census_flags(CLI::App& command, EventsOptions& options) {
  command
      .add_option("--jobs", options.job_files,
                  "job files (YAML/JSON, keys as the job flags with underscores); merges their events")
      ->expected(1, -1);
  command.add_flag("--search", options.search,
                   "merge the events of every valid strategy of the cluster that fits in memory");
  options.given.micro_batch_sizes =
      command.add_option("--micro-batch-sizes", options.micro_batch_sizes, "with --search: sizes to try, e.g. 1,2,4");
  options.given.schedules =
      command.add_option("--schedules", options.schedules, "with --search: schedules to try, e.g. gpipe,1f1b");
  auto& cost = options.cost;
  options.given.cost = {
      command.add_option("--warmup", cost.warmup, "profiler warm-up runs per event")
          ->check(CLI::NonNegativeNumber)
          ->capture_default_str(),
      command.add_option("--repeats", cost.repeats, "profiler timed runs per event")
          ->check(CLI::PositiveNumber)
          ->capture_default_str(),
      command
          .add_option("--direct-iterations", cost.direct_iterations,
                      "iterations of each job run directly (default: warm-up + repeats)")
          ->check(CLI::PositiveNumber),
      command.add_option("--profile-nodes", cost.max_nodes, "nodes the profiler has; bigger groups are extrapolated")
          ->check(CLI::PositiveNumber)
          ->capture_default_str()};
  options.threads.add_to(command, "simulation threads for --jobs/--search");
}

}  // namespace

void add_events_command(CLI::App& app) {
  auto options = std::make_shared<EventsOptions>();
  auto* command = app.add_subcommand(
      "events", "list the unique events of a job, or of several jobs merged, with their costs and instance counts");
  options->job.add_to(*command, {"recompute"});
  options->recompute_flag = command->add_option(
      "--recompute", options->recompute,
      "activation recomputation: none, selective or full; with --search a list of those to try, e.g. none,full");
  for (const char* key : {"strategy", "tp", "pp", "dp", "micro_batch_size", "schedule"}) {
    options->given.strategy.push_back(options->job.flag(key));
  }
  add_census_flags(*command, *options);
  command->add_flag("--json", options->json, "print JSON (the profiler's work list)");
  command->add_flag("--skip-profiled", options->skip_profiled, "leave out events already in the profile database");
  options->profile.add_to(*command);
  options->task_limit.add_to(*command);
  command->callback([options] { run_events(*options); });
}

}  // namespace distsim::cli
