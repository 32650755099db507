#include <pybind11/stl.h>

#include <optional>

#include "api/simulation.hpp"
#include "cli/file_output.hpp"
#include "core/parallel_for.hpp"
#include "io/chakra/chakra_writer.hpp"
#include "io/output/summary_writer.hpp"
#include "io/report/html_report.hpp"
#include "io/spec/spec_resolver.hpp"
#include "io/trace/trace_writer.hpp"
#include "options/job_assembly.hpp"
#include "python/bindings.hpp"
#include "python/job_arguments.hpp"
#include "python/timeline_rows.hpp"

namespace py = pybind11;

namespace distsim::python {

namespace {

constexpr double kNanosecondsPerSecond = 1e9;

//! What `distsim simulate` runs for these settings, with its --all-ranks, --max-tasks and
//! --profile-db; called without the GIL.
api::Simulation simulate(const SettingList& values, bool all_ranks, std::optional<long long> max_tasks,
                         const std::optional<std::string>& profile_db, bool whole_iteration) {
  api::SimulationOptions options;
  options.all_ranks = all_ranks;
  options.steady_state = !whole_iteration;
  options.threads = hardware_threads();  // jitter samples
  if (max_tasks) {
    check_positive("--max-tasks", *max_tasks);
    options.task_limit = *max_tasks;
  }
  const strategy::JobSpec job = options::assemble_valid_job(job_settings(values), io::spec_resolvers());
  options.preferred_costs = profile_costs(profile_db, job.cluster.gpu.name);
  return api::simulate(job, options);
}

py::list timeline(const api::Simulation& simulation, int rank) {
  py::list rows;
  for (const TimelineRow& row : timeline_rows(simulation, rank)) {
    py::dict entry;
    entry["stream"] = row.stream;
    entry["kind"] = row.communication ? "communication" : "compute";
    entry["start_s"] = static_cast<double>(row.start) / kNanosecondsPerSecond;
    entry["end_s"] = static_cast<double>(row.end) / kNanosecondsPerSecond;
    entry["start_ns"] = row.start;
    entry["end_ns"] = row.end;
    entry["micro_batch"] = row.micro_batch >= 0 ? py::object(py::int_(row.micro_batch)) : py::none();
    entry["layer"] = row.layer >= 0 ? py::object(py::int_(row.layer)) : py::none();
    entry["phase"] = row.phase;
    entry["event"] = row.event;
    entry["label"] = row.label;
    rows.append(entry);
  }
  return rows;
}

void write_trace(const api::Simulation& simulation, const std::string& path, const std::string& ranks) {
  const io::TraceRanks shown = io::parse_trace_ranks(ranks);
  cli::write_output_file("--trace", path, [&](std::ostream& out) { io::write_chrome_trace(out, simulation, shown); });
}

void write_chakra(const api::Simulation& simulation, const std::string& prefix, const std::string& ranks) {
  cli::write_output_files("--chakra", io::chakra_files(simulation, io::parse_trace_ranks(ranks), prefix));
}

void write_report(const api::Simulation& simulation, const std::string& path) {
  cli::write_output_file("--report", path, [&](std::ostream& out) { io::write_simulation_report(out, simulation); });
}

}  // namespace

void bind_simulation(py::module_& module) {
  py::class_<api::Simulation>(module, "Simulation", "One simulated iteration (wrapped by distsim.Result).")
      .def(
          "to_json",
          [](const api::Simulation& s, bool every_rank) {
            return io::summary_json(s, every_rank ? io::RankRecords::every_rank : io::RankRecords::stages).dump(2) +
                   "\n";
          },
          py::arg("every_rank") = false,
          "What `distsim simulate --json` prints, byte for byte (with every_rank, `--json --json-ranks`).")
      .def("to_text", &io::summary_text, "What `distsim simulate` prints.")
      .def("timeline", &timeline, py::arg("rank"))
      .def("write_trace", &write_trace, py::arg("path"), py::arg("ranks"), py::call_guard<py::gil_scoped_release>())
      .def("write_report", &write_report, py::arg("path"), py::call_guard<py::gil_scoped_release>())
      .def("write_chakra", &write_chakra, py::arg("prefix"), py::arg("ranks"), py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("whole_iteration", [](const api::Simulation& s) { return !s.repeats.has_value(); })
      .def_property_readonly("world_size", [](const api::Simulation& s) { return s.job.strategy.world_size(); });
  module.def("simulate", &simulate, py::arg("settings"), py::arg("all_ranks"), py::arg("max_tasks"),
             py::arg("profile_db"), py::arg("whole_iteration") = false, py::call_guard<py::gil_scoped_release>());
}

}  // namespace distsim::python
