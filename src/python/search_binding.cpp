#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>
#include <sstream>

#include "cli/file_output.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "core/parallel_for.hpp"
#include "io/output/search_writer.hpp"
#include "io/report/html_report.hpp"
#include "io/report/search_report_builder.hpp"
#include "io/spec/spec_resolver.hpp"
#include "python/bindings.hpp"
#include "python/job_arguments.hpp"
#include "search/memory_limit.hpp"
#include "search/search_setup.hpp"
#include "search/strategy_search.hpp"

namespace py = pybind11;

namespace distsim::python {

namespace {

//! A finished search with the space it searched and the number of ranked rows it was asked for.
struct SearchOutcome {
  search::SearchSpace space;
  search::SearchResult result;
  std::size_t top = 0;
};

struct SearchArguments {
  SettingList settings;
  std::map<std::string, std::vector<std::string>> lists;
  std::optional<long long> threads;
  long long top = 0;
  bool simulate_out_of_memory = false;
  std::optional<std::string> memory_headroom;
  std::optional<double> max_memory_gib;
  std::optional<std::string> profile_db;
  std::optional<std::string> front_within;
};

//! Calls the Python callback from the search's worker threads (one call at a time), holding the
//! GIL; the first exception it raises is kept, later calls are skipped, and the search raises it
//! when it ends.
class ProgressCallback {
 public:
  explicit ProgressCallback(py::function callback) : callback_(std::move(callback)) {}

  void operator()(std::size_t done, std::size_t total) {
    py::gil_scoped_acquire gil;
    if (error_) return;
    try {
      callback_(done, total);
    } catch (py::error_already_set& e) {
      error_ = std::make_shared<py::error_already_set>(std::move(e));
    }
  }
  void rethrow() const {
    if (error_) throw *error_;
  }

 private:
  py::function callback_;
  std::shared_ptr<py::error_already_set> error_;
};

SearchOutcome run(const SearchArguments& arguments, const std::function<void(std::size_t, std::size_t)>& progress) {
  search::SearchOptions options;
  options.threads = hardware_threads();
  if (arguments.threads) {
    check_positive("--threads", *arguments.threads);
    options.threads = static_cast<int>(*arguments.threads);
  }
  check_positive("--top", arguments.top);
  SearchOutcome outcome;
  outcome.top = static_cast<std::size_t>(arguments.top);
  outcome.space = search::make_search_space(job_settings(arguments.settings), arguments.lists, io::spec_resolvers());
  options.simulate_out_of_memory = arguments.simulate_out_of_memory;
  options.memory_limit_bytes =
      search::memory_limit_bytes(outcome.space.base, arguments.memory_headroom, arguments.max_memory_gib);
  options.keep = outcome.top;
  options.goal = search::training_goal(outcome.space.base.run);
  if (arguments.front_within) {
    options.objectives.front_within = search::parse_front_within(*arguments.front_within, "front_within");
  }
  options.progress = progress;
  options.simulation.preferred_costs = profile_costs(arguments.profile_db, outcome.space.base.cluster.gpu.name);
  outcome.result = search::run_search(outcome.space, options);
  return outcome;
}

SearchOutcome search_job(const SearchArguments& arguments, std::optional<py::function> progress) {
  std::optional<ProgressCallback> callback;
  if (progress) callback.emplace(std::move(*progress));
  std::function<void(std::size_t, std::size_t)> report;
  if (callback) report = std::ref(*callback);
  SearchOutcome outcome;
  {
    py::gil_scoped_release released;
    outcome = run(arguments, report);
  }
  if (callback) callback->rethrow();
  return outcome;
}

//! The searched option keys, and the plural spellings the CLI also takes for two of them.
std::string searched_key(const std::string& name) {
  if (name == "micro_batch_sizes") return "micro_batch_size";
  if (name == "schedules") return "schedule";
  for (const auto& key : search::searched_keys()) {
    if (key == name && key != "strategy") return key;
  }
  std::vector<std::string> known;
  for (const auto* option : search::searched_options()) known.push_back(option->key);
  throw InputError("search: " + unknown_name_message("searched setting", name, known));
}

std::map<std::string, std::vector<std::string>> searched_lists(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& lists) {
  std::map<std::string, std::vector<std::string>> by_key;
  for (const auto& [name, items] : lists) by_key[searched_key(name)] = items;
  return by_key;
}

}  // namespace

void bind_search(py::module_& module) {
  py::class_<SearchOutcome>(module, "SearchOutcome", "A finished search (wrapped by distsim.SearchResult).")
      .def(
          "to_json",
          [](const SearchOutcome& o) {
            std::ostringstream out;
            io::write_search_json(out, o.space, o.result, o.top);
            return out.str();
          },
          "What `distsim search --json` prints, byte for byte.")
      .def("to_text", [](const SearchOutcome& o) { return io::search_text(o.space, o.result, o.top); })
      .def(
          "write_csv",
          [](const SearchOutcome& o, const std::string& path) {
            cli::write_output_file("--csv", path, [&](std::ostream& out) { io::write_search_csv(out, o.result); });
          },
          py::arg("path"), py::call_guard<py::gil_scoped_release>())
      .def(
          "write_report",
          [](const SearchOutcome& o, const std::string& path) {
            const io::SearchReport report = io::make_search_report(o.space, o.result, o.top);
            cli::write_output_file("--report", path, [&](std::ostream& out) { io::write_search_report(out, report); });
          },
          py::arg("path"), py::call_guard<py::gil_scoped_release>());
  module.def(
      "search",
      [](const SettingList& settings, const std::vector<std::pair<std::string, std::vector<std::string>>>& lists,
         std::optional<long long> threads, long long top, bool simulate_oom, std::optional<std::string> memory_headroom,
         std::optional<double> max_memory_gib, std::optional<std::string> profile_db,
         std::optional<std::string> front_within, std::optional<py::function> progress) {
        SearchArguments arguments{settings,
                                  searched_lists(lists),
                                  threads,
                                  top,
                                  simulate_oom,
                                  std::move(memory_headroom),
                                  max_memory_gib,
                                  std::move(profile_db),
                                  std::move(front_within)};
        return search_job(arguments, std::move(progress));
      },
      py::arg("settings"), py::arg("lists"), py::arg("threads"), py::arg("top"), py::arg("simulate_oom"),
      py::arg("memory_headroom"), py::arg("max_memory_gib"), py::arg("profile_db"), py::arg("front_within"),
      py::arg("progress"));
}

}  // namespace distsim::python
