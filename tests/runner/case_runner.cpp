// Registers one GoogleTest per tests/cases/**/*.case file and runs it. See tests/cases/README.md
// for the directives.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "api/simulation.hpp"
#include "case_file.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "cost/fixed_cost_model.hpp"
#include "io/spec/spec_resolver.hpp"
#include "options/job_option.hpp"

namespace distsim::testing {

namespace {

SimTime parse_duration(const std::string& text) {
  const auto unit_at = text.find_first_not_of("0123456789.");
  const double value = std::stod(text.substr(0, unit_at));
  const std::string unit = unit_at == std::string::npos ? "ns" : text.substr(unit_at);
  const double scale = unit == "s" ? 1e9 : unit == "ms" ? 1e6 : unit == "us" ? 1e3 : 1.0;
  return static_cast<SimTime>(std::llround(value * scale));
}

int as_int(const std::string& text) { return std::stoi(text); }

void apply_model_line(const CaseLine& line, model::ModelSpec& model) {
  if (!line.words.empty()) {
    model = io::resolve_model(line.words[0]);
  }
  const std::map<std::string, int*> fields{{"num_layers", &model.num_layers},
                                           {"hidden_size", &model.hidden_size},
                                           {"num_attention_heads", &model.num_attention_heads},
                                           {"num_kv_heads", &model.num_kv_heads},
                                           {"ffn_hidden_size", &model.ffn_hidden_size},
                                           {"vocab_size", &model.vocab_size},
                                           {"seq_length", &model.seq_length},
                                           {"decoder_num_layers", &model.decoder_num_layers},
                                           {"shared_experts", &model.moe.shared_experts},
                                           {"shared_expert_ffn_hidden_size", &model.moe.shared_expert_ffn_hidden_size}};
  for (const auto& [key, value] : line.pairs) {
    *fields.at(key) = as_int(value);
  }
  if (model.name.empty()) {
    model.name = "case-model";
  }
}

//! One job setting by its option-table key, parsed and applied as a job file's key would be.
//! `text` with each DISTSIM_FIXTURES replaced by the folder of the test fixtures.
std::string with_fixtures(std::string text) {
  const std::string fixtures_marker = "DISTSIM_FIXTURES";
  for (auto at = text.find(fixtures_marker); at != std::string::npos; at = text.find(fixtures_marker)) {
    text.replace(at, fixtures_marker.size(), std::string(DISTSIM_SOURCE_DIR) + "/tests/fixtures");
  }
  return text;
}

void apply_setting(const std::string& directive, const std::string& key, const std::string& text,
                   strategy::JobSpec& job) {
  const options::JobOption* option = options::find_option(key);
  if (option == nullptr) {
    throw std::runtime_error(directive + ": unknown key '" + key + "'; did you mean '" +
                             closest_name(key, options::option_keys()) + "'?");
  }
  const options::ParsedValue parsed = options::parse_value(*option, text);
  if (!parsed.ok()) {
    throw std::runtime_error(directive + " key " + key + ": " + parsed.problem);
  }
  option->apply(parsed.value, job, io::spec_resolvers());
}

void apply_cluster_line(const CaseLine& line, strategy::JobSpec& job) {
  apply_setting(line.directive, "cluster", with_fixtures(line.words.at(0)), job);
  for (const auto& [key, value] : line.pairs) {
    apply_setting(line.directive, key, value, job);
  }
}

//! The strategy line's keys are the option table's (tp=, micro_batch_size=, sequence_parallel=true, ...).
void apply_strategy_line(const CaseLine& line, strategy::JobSpec& job) {
  for (const auto& [key, value] : line.pairs) {
    apply_setting(line.directive, key, value, job);
  }
}

//! The events of one GPU type of a cluster of several (`costs gpu=N ...`) priced by their own
//! model, the others by the rest.
class GpuTypeCosts : public cost::CostModel {
 public:
  GpuTypeCosts(std::shared_ptr<const cost::CostModel> rest, int gpu_type, std::shared_ptr<const cost::CostModel> own)
      : rest_(std::move(rest)), gpu_type_(gpu_type), own_(std::move(own)) {}

  std::optional<cost::Cost> try_cost(const events::Event& event) const override {
    if (!event.is_communication() && event.gpu_type == gpu_type_) return own_->try_cost(event);
    return rest_ ? rest_->try_cost(event) : std::nullopt;
  }

 private:
  std::shared_ptr<const cost::CostModel> rest_;
  int gpu_type_;
  std::shared_ptr<const cost::CostModel> own_;
};

//! `costs ...`: fixed durations for every event; `costs gpu=N ...`: for GPU type N's compute, the
//! rest priced as before.
std::shared_ptr<const cost::CostModel> fixed_costs(const CaseLine& line,
                                                   std::shared_ptr<const cost::CostModel> before) {
  std::map<std::string, SimTime> by_op;
  SimTime compute = 0;
  SimTime communication = 0;
  SimTime host = 0;
  std::optional<int> gpu_type;
  for (const auto& [key, value] : line.pairs) {
    if (key == "gpu")
      gpu_type = std::stoi(value);
    else if (key == "compute")
      compute = parse_duration(value);
    else if (key == "comm")
      communication = parse_duration(value);
    else if (key == "host")
      host = parse_duration(value);
    else
      by_op[key] = parse_duration(value);
  }
  auto fixed = std::make_shared<cost::FixedCostModel>(by_op, compute, communication, host);
  if (!gpu_type) return fixed;
  return std::make_shared<GpuTypeCosts>(std::move(before), *gpu_type, std::move(fixed));
}

//! One event, named by its key, priced apart from the rest (`event_cost DURATION "KEY"`): what
//! a case needs when two events of one operator must cost differently.
class EventKeyCosts : public cost::CostModel {
 public:
  EventKeyCosts(std::shared_ptr<const cost::CostModel> rest, std::string key, SimTime duration)
      : rest_(std::move(rest)), key_(std::move(key)), duration_(duration) {}

  std::optional<cost::Cost> try_cost(const events::Event& event) const override {
    if (event.key() == key_) {
      // The event's host time is the rest's (a `costs host=` line), or none given: 0.
      const auto rest = rest_ ? rest_->try_cost(event) : std::nullopt;
      return cost::Cost{duration_, cost::CostSource::profiled, rest ? rest->host_time() : 0};
    }
    return rest_ ? rest_->try_cost(event) : std::nullopt;
  }

 private:
  std::shared_ptr<const cost::CostModel> rest_;
  std::string key_;
  SimTime duration_;
};

//! Checks the engine's invariants on a simulated timeline: no stream runs two activities at once,
//! every dependency is respected, and the iteration is at least the critical path.
void check_invariants(const api::Simulation& sim) {
  const auto& program = sim.program.program;
  std::vector<std::vector<engine::TaskId>> per_stream(program.num_streams());
  for (engine::TaskId task = 0; task < program.num_tasks(); ++task) {
    for (engine::StreamId stream : program.streams(task)) {
      per_stream[stream].push_back(task);
    }
  }
  std::vector<SimTime> earliest_end(program.num_tasks(), 0);
  std::vector<std::vector<engine::TaskId>> predecessors(program.num_tasks());
  for (const auto& tasks : per_stream) {
    for (size_t i = 1; i < tasks.size(); ++i) {
      ASSERT_LE(sim.times.end[tasks[i - 1]], sim.times.start[tasks[i]]) << "stream overlap";
      predecessors[tasks[i]].push_back(tasks[i - 1]);
    }
  }
  for (const auto& [task, prerequisite] : program.dependencies()) {
    ASSERT_GE(sim.times.start[task], sim.times.end[prerequisite]) << "dependency violated";
    predecessors[task].push_back(prerequisite);
  }
  // Longest path in start-time order: a task's predecessors all start no later than it does.
  std::vector<engine::TaskId> order(program.num_tasks());
  for (engine::TaskId task = 0; task < program.num_tasks(); ++task) order[task] = task;
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return sim.times.start[a] < sim.times.start[b]; });
  SimTime critical_path = 0;
  for (engine::TaskId task : order) {
    SimTime ready = 0;
    for (engine::TaskId before : predecessors[task]) ready = std::max(ready, earliest_end[before]);
    earliest_end[task] = ready + program.duration(task);
    critical_path = std::max(critical_path, earliest_end[task]);
  }
  EXPECT_GE(sim.summary.iteration_time, critical_path);
}

struct CommandResult {
  int exit_code = 0;
  std::string out;
  std::string err;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

CommandResult run_cli(const std::string& given, const std::string& scratch) {
  const std::string arguments = with_fixtures(given);
  const std::string out = scratch + ".out";
  const std::string err = scratch + ".err";
  const std::string command = "cd '" + std::filesystem::path(scratch).parent_path().string() + "' && '" +
                              DISTSIM_BINARY + "' " + arguments + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_all(out), read_all(err)};
}

class CaseTest : public ::testing::Test {
 public:
  explicit CaseTest(std::string path) : path_(std::move(path)) {}

  void TestBody() override {
    const CaseFile file = read_case_file(path_);
    for (const auto& line : file.lines) {
      SCOPED_TRACE(path_ + ":" + std::to_string(line.number));
      run_line(line);
      if (HasFatalFailure()) return;
    }
  }

 private:
  void run_line(const CaseLine& line) {
    if (line.directive == "model")
      apply_model_line(line, job_.model);
    else if (line.directive == "cluster")
      apply_cluster_line(line, job_);
    else if (line.directive == "strategy")
      apply_strategy_line(line, job_);
    else if (line.directive == "costs")
      options_.preferred_costs = fixed_costs(line, options_.preferred_costs);
    else if (line.directive == "event_cost")
      options_.preferred_costs =
          std::make_shared<EventKeyCosts>(options_.preferred_costs, line.quoted, parse_duration(line.words.at(0)));
    else if (line.directive == "all_ranks")
      options_.all_ranks = true;
    else if (line.directive == "run")
      command_ = run_cli(line.quoted, scratch_path());
    else if (line.directive == "save")
      save_output(line);
    else if (line.directive == "expect")
      expect(line);
    else
      FAIL() << "unknown directive '" << line.directive << "'";
  }

  //! Files a case's commands write land in a folder of this case and this process, emptied when
  //! the case starts, so no run sees another run's (or another build's) database or trace.
  std::string scratch_path() {
    const auto dir = std::filesystem::temp_directory_path() / "distsim_cases" / std::to_string(::getpid()) /
                     std::filesystem::path(path_).stem();
    if (!scratch_cleared_) {
      std::filesystem::remove_all(dir);
      scratch_cleared_ = true;
    }
    std::filesystem::create_directories(dir);
    return (dir / "cli").string();
  }

  //! Writes the last run's stdout (or, with key=K, the JSON value under K) to a file of the case's
  //! scratch folder, where later runs find it by its bare name.
  void save_output(const CaseLine& line) {
    std::string text = command_.out;
    if (line.pairs.count("key")) {
      text = nlohmann::json::parse(text).at(line.pairs.at("key")).dump(2) + "\n";
    }
    std::ofstream(std::filesystem::path(scratch_path()).parent_path() / line.words.at(0)) << text;
  }

  const api::Simulation& simulation() {
    if (!simulation_) {
      simulation_ = std::make_unique<api::Simulation>(api::simulate(job_, options_));
      check_invariants(*simulation_);
    }
    return *simulation_;
  }

  void expect_number(const CaseLine& line, double actual) {
    const double expected = std::stod(line.words.at(1));
    const double tolerance = line.pairs.count("tol") ? std::stod(line.pairs.at("tol")) : 0.0;
    EXPECT_NEAR(actual, expected, tolerance) << line.words[0];
  }

  //! Device tasks of the simulated program (not the host thread's launches) whose phase (fwd, bwd,
  //! recompute, optim), device and label (the quoted text) match the line's filters; each task
  //! counts once, whatever its streams.
  std::int64_t count_tasks(const CaseLine& line) {
    const auto& program = simulation().program;
    std::int64_t count = 0;
    for (engine::TaskId task = 0; task < program.program.num_tasks(); ++task) {
      const auto& info = program.tasks[task];
      const auto stream = program.program.streams(task).front();
      if (!events::stream_kind_info(program.streams[stream].kind).on_device) continue;  // a launch
      const auto device = stream / events::kStreamKinds;
      if ((line.pairs.count("phase") && line.pairs.at("phase") != events::phase_name(info.phase)) ||
          (line.pairs.count("device") && static_cast<int>(device) != as_int(line.pairs.at("device"))) ||
          (!line.quoted.empty() && line.quoted != info.label)) {
        continue;
      }
      ++count;
    }
    return count;
  }

  void expect(const CaseLine& line) {
    const std::string& what = line.words.at(0);
    if (what == "error") {
      try {
        api::simulate(job_, options_);
        ADD_FAILURE() << "expected an error containing: " << line.quoted;
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(line.quoted), std::string::npos) << e.what();
      }
    } else if (what == "exit") {
      EXPECT_EQ(command_.exit_code, as_int(line.words.at(1))) << command_.err;
    } else if (what == "stderr" || what == "stdout") {
      const std::string& text = what == "stderr" ? command_.err : command_.out;
      EXPECT_NE(text.find(line.quoted), std::string::npos) << what << " was:\n" << text;
    } else if (what == "same_stdout_as") {
      const auto saved = std::filesystem::path(scratch_path()).parent_path() / line.words.at(1);
      EXPECT_EQ(command_.out, read_all(saved.string()));
    } else if (what == "iteration_time") {
      EXPECT_EQ(simulation().summary.iteration_time, parse_duration(line.words.at(1)));
    } else if (what == "bubble_fraction") {
      expect_number(line, simulation().summary.bubble_fraction);
    } else if (what == "tasks") {
      expect_number(line, static_cast<double>(count_tasks(line)));
    } else if (what == "events_unique") {
      expect_number(line, static_cast<double>(simulation().summary.events.unique));
    } else if (what == "same_as_all_ranks") {
      auto explicit_options = options_;
      explicit_options.all_ranks = true;
      const api::Simulation all = api::simulate(job_, explicit_options);
      check_invariants(all);
      EXPECT_EQ(simulation().summary.iteration_time, all.summary.iteration_time);
      EXPECT_EQ(simulation().summary.bubble_fraction, all.summary.bubble_fraction);
    } else {
      FAIL() << "unknown expectation '" << what << "'";
    }
  }

  std::string path_;
  bool scratch_cleared_ = false;
  strategy::JobSpec job_;
  api::SimulationOptions options_;
  std::unique_ptr<api::Simulation> simulation_;
  CommandResult command_;
};

void register_cases(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() == ".case") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    const std::string suite = file.parent_path().filename().string();
    const std::string name = file.stem().string();
    ::testing::RegisterTest(("Case_" + suite).c_str(), name.c_str(), nullptr, nullptr, file.string().c_str(), 1,
                            [path = file.string()]() -> ::testing::Test* { return new CaseTest(path); });
  }
}

}  // namespace

}  // namespace distsim::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  distsim::testing::register_cases(std::filesystem::path(DISTSIM_SOURCE_DIR) / "tests" / "cases");
  return RUN_ALL_TESTS();
}
