#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/commands.hpp"
#include "cli/file_output.hpp"
#include "cli/job_options.hpp"
#include "cli/profile_options.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "io/output/html_report.hpp"
#include "io/output/search_report_builder.hpp"
#include "io/output/search_writer.hpp"
#include "search/strategy_search.hpp"

namespace distsim::cli {

namespace {

struct SearchCommandOptions {
  JobOptions job;  //!< only model, hardware, batch, sequence and precision flags are registered
  std::vector<int> micro_batch_sizes{1};
  std::vector<std::string> schedules{"1f1b"};
  std::vector<std::string> recompute{"none"};
  std::size_t top = 10;
  std::string csv;
  std::string report;
  ProfileOptions profile;
  bool json = false;
  int threads = 0;
  bool simulate_out_of_memory = false;
};

search::SearchSpace make_space(const SearchCommandOptions& options) {
  JobOptions job_options = options.job;
  job_options.strategy = "1M1P1D";
  job_options.micro_batch_size = 1;
  search::SearchSpace space;
  space.base = job_options.to_job();
  space.micro_batch_sizes = options.micro_batch_sizes;
  space.schedules = options.schedules;
  space.recompute.clear();
  for (const auto& text : options.recompute) {
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
  const auto cores = static_cast<int>(std::thread::hardware_concurrency());
  search_options.threads = options.threads > 0 ? options.threads : std::max(cores, 1);
  search_options.simulate_out_of_memory = options.simulate_out_of_memory;
  search_options.progress = ProgressBar{};
  search_options.simulation.preferred_costs = options.profile.cost_model(space.base.cluster.gpu.name);
  const search::SearchResult result = search::run_search(space, search_options);
  if (!options.csv.empty()) {
    write_file_atomically(options.csv, [&](std::ostream& out) { io::write_search_csv(out, result); });
  }
  if (!options.report.empty()) {
    const io::SearchReport report = io::make_search_report(space, result, options.top);
    write_file_atomically(options.report, [&](std::ostream& out) { io::write_search_report(out, report); });
  }
  if (options.json) {
    std::cout << io::search_json(space, result, options.top).dump(2) << "\n";
  } else {
    std::cout << io::search_text(space, result, options.top);
  }
}

void add_job_flags(CLI::App& command, JobOptions& job) {
  command.add_option("--model", job.model, "built-in model name, a YAML/JSON model file, or a Hugging Face config.json")
      ->capture_default_str();
  command.add_option("--gpu", job.gpu, "built-in GPU name or a YAML/JSON GPU file (default: the cluster's GPU, or a40)");
  command.add_option("--cluster", job.cluster, "built-in node design or a YAML/JSON cluster file (default: the GPU's)");
  command.add_option("--nodes", job.nodes, "number of nodes (default 1)");
  command.add_option("--gpus-per-node", job.gpus_per_node, "GPUs per node (default: the cluster's)");
  command.add_option("--global-batch-size", job.global_batch_size, "sequences per iteration")->capture_default_str();
  command.add_option("--seq-length", job.seq_length, "override the model's sequence length");
  command.add_option("--dtype", job.dtype, "training precision: bf16, fp16 or fp32")->capture_default_str();
  command.add_option("--attention", job.attention,
                     "attention core of every candidate: flash (fused kernel) or unfused (Megatron-LM before 2023)")
      ->capture_default_str();
  command.add_flag("--sequence-parallel", job.sequence_parallel, "every candidate uses Megatron sequence parallelism");
  command.add_flag("--fp8", job.fp8,
                   "every candidate runs its transformer layers' linear GEMMs in fp8 (TransformerEngine); needs "
                   "--dtype bf16 and a GPU with fp8 tensor cores");
  command.add_flag("--distributed-optimizer", job.distributed_optimizer,
                   "every candidate uses the distributed optimizer (ZeRO-1)");
  command.add_flag("--overlap-grad-reduce", job.overlap_grad_reduce,
                   "every candidate overlaps gradient buckets with backward");
  command.add_option("--virtual-stages", job.virtual_stages,
                     "model chunks per stage for candidates with the interleaved schedule")
      ->capture_default_str();
}

}  // namespace

void add_search_command(CLI::App& app) {
  auto options = std::make_shared<SearchCommandOptions>();
  auto* command = app.add_subcommand(
      "search", "simulate every tensor x pipeline x data parallel split of the cluster and rank them by throughput");
  add_job_flags(*command, options->job);
  command->add_option("--micro-batch-sizes", options->micro_batch_sizes, "micro-batch sizes to try, e.g. 1,2,4")
      ->delimiter(',')
      ->capture_default_str();
  command->add_option("--schedules", options->schedules, "pipeline schedules to try, e.g. gpipe,1f1b")
      ->delimiter(',')
      ->capture_default_str();
  command->add_option("--recompute", options->recompute, "recomputation settings to try: none,selective,full")
      ->delimiter(',')
      ->capture_default_str();
  command->add_option("--top", options->top, "rows of the ranking to print")->capture_default_str();
  command->add_option("--csv", options->csv, "write every candidate to this CSV file");
  command->add_option("--report", options->report, "write a self-contained HTML report to this file");
  options->profile.add_to(*command);
  command->add_flag("--json", options->json, "print one JSON object instead of the text table");
  command->add_option("--threads", options->threads, "simulation threads (default: all cores)");
  command->add_flag("--simulate-oom", options->simulate_out_of_memory,
                    "simulate candidates that do not fit in memory too (they stay marked)");
  command->callback([options] { run_search(*options); });
}

}  // namespace distsim::cli
