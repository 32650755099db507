#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include "api/simulation.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
#include "cli/profile_options.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "io/job_file_reader.hpp"
#include "io/output/events_writer.hpp"
#include "schedule/pipeline_schedule.hpp"
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
  JobOptions job;
  bool json = false;
  bool skip_profiled = false;
  ProfileOptions profile;
  std::vector<std::string> job_files;
  bool search = false;
  std::vector<int> micro_batch_sizes{1};
  std::vector<std::string> schedules{"1f1b"};
  search::ProfilingCostOptions cost;
  int threads = 0;
  GivenFlags given;
};

//! The jobs of a census with their labels.
struct JobSet {
  std::vector<strategy::JobSpec> jobs;
  std::vector<std::string> labels;
};

std::vector<strategy::Recompute> parse_recompute_list(const std::string& text) {
  std::vector<strategy::Recompute> values;
  std::istringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    values.push_back(strategy::parse_recompute(item, "--recompute"));
  }
  return values;
}

void check_flag_combinations(const EventsOptions& options) {
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

//! A job file's keys over the job flags: a key the file leaves out keeps the flag's value.
JobOptions apply_job_file(JobOptions options, const io::JobFile& file) {
  const auto set = [](auto& field, const auto& value) {
    if (value) field = *value;
  };
  set(options.model, file.model);
  set(options.gpu, file.gpu);
  set(options.cluster, file.cluster);
  set(options.nodes, file.nodes);
  set(options.gpus_per_node, file.gpus_per_node);
  set(options.strategy, file.strategy);
  set(options.tp, file.tp);
  set(options.pp, file.pp);
  set(options.dp, file.dp);
  set(options.cp, file.cp);
  set(options.micro_batch_size, file.micro_batch_size);
  set(options.global_batch_size, file.global_batch_size);
  set(options.seq_length, file.seq_length);
  set(options.schedule, file.schedule);
  set(options.dtype, file.dtype);
  set(options.sequence_parallel, file.sequence_parallel);
  set(options.recompute, file.recompute);
  set(options.distributed_optimizer, file.distributed_optimizer);
  set(options.overlap_grad_reduce, file.overlap_grad_reduce);
  set(options.p2p_scatter_gather, file.p2p_scatter_gather);
  set(options.virtual_stages, file.virtual_stages);
  set(options.fp8, file.fp8);
  if (file.fp8) options.fp8_origin = "key fp8";
  if (file.strategy) options.tp = options.pp = options.dp = 0;
  if (file.tp || file.pp || file.dp) options.strategy.clear();
  return options;
}

JobSet jobs_from_files(const EventsOptions& options) {
  JobSet set;
  for (const auto& path : options.job_files) {
    try {
      set.jobs.push_back(apply_job_file(options.job, io::read_job_file(path)).to_job());
      schedule::validate_job(set.jobs.back());
    } catch (const InputError& e) {
      const std::string message = e.what();
      // The reader's messages start with the file already; the flag-level ones need it.
      throw InputError(message.rfind(path, 0) == 0 ? message : "job file '" + path + "': " + message);
    }
    set.labels.push_back(path);
  }
  return set;
}

JobSet jobs_from_search(const EventsOptions& options) {
  JobOptions base = options.job;
  base.strategy = "1M1P1D";
  base.tp = base.pp = base.dp = 0;
  base.micro_batch_size = 1;
  base.recompute = "none";
  search::SearchSpace space;
  space.base = base.to_job();
  space.micro_batch_sizes = options.micro_batch_sizes;
  space.schedules = options.schedules;
  space.recompute = parse_recompute_list(options.job.recompute);
  JobSet set;
  for (const auto& candidate : search::census_candidates(space)) {
    set.jobs.push_back(candidate.job);
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
  const auto cores = static_cast<int>(std::thread::hardware_concurrency());
  census_options.threads = options.threads > 0 ? options.threads : std::max(cores, 1);
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
  const strategy::JobSpec job = options.job.to_job();
  api::SimulationOptions simulation_options;
  simulation_options.preferred_costs = options.profile.cost_model(job.cluster.gpu.name);
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
  command.add_option("--jobs", options.job_files,
                     "job files (YAML/JSON, keys as the job flags with underscores); merges their events")
      ->expected(1, -1);
  command.add_flag("--search", options.search,
                   "merge the events of every valid strategy of the cluster that fits in memory");
  options.given.micro_batch_sizes =
      command.add_option("--micro-batch-sizes", options.micro_batch_sizes, "with --search: sizes to try, e.g. 1,2,4")
          ->delimiter(',');
  options.given.schedules =
      command.add_option("--schedules", options.schedules, "with --search: schedules to try, e.g. gpipe,1f1b")
          ->delimiter(',');
  auto& cost = options.cost;
  options.given.cost = {
      command.add_option("--warmup", cost.warmup, "profiler warm-up runs per event")
          ->check(CLI::NonNegativeNumber)->capture_default_str(),
      command.add_option("--repeats", cost.repeats, "profiler timed runs per event")
          ->check(CLI::PositiveNumber)->capture_default_str(),
      command.add_option("--direct-iterations", cost.direct_iterations,
                         "iterations of each job run directly (default: warm-up + repeats)")
          ->check(CLI::PositiveNumber),
      command.add_option("--profile-nodes", cost.max_nodes, "nodes the profiler has; bigger groups are extrapolated")
          ->check(CLI::PositiveNumber)->capture_default_str()};
  command.add_option("--threads", options.threads, "simulation threads for --jobs/--search (default: all cores)");
}

}  // namespace

void add_events_command(CLI::App& app) {
  auto options = std::make_shared<EventsOptions>();
  auto* command = app.add_subcommand(
      "events", "list the unique events of a job, or of several jobs merged, with their costs and instance counts");
  options->job.add_to(*command);
  for (const char* name : {"--strategy", "--tp", "--pp", "--dp", "--micro-batch-size", "--schedule"}) {
    options->given.strategy.push_back(command->get_option(name));
  }
  add_census_flags(*command, *options);
  command->add_flag("--json", options->json, "print JSON (the profiler's work list)");
  command->add_flag("--skip-profiled", options->skip_profiled, "leave out events already in the profile database");
  options->profile.add_to(*command);
  command->callback([options] { run_events(*options); });
}

}  // namespace distsim::cli
