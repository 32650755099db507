#include <pybind11/stl.h>

#include <optional>

#include "core/input_error.hpp"
#include "core/parallel_for.hpp"
#include "io/calibration/calibration_reader.hpp"
#include "io/document/text_file.hpp"
#include "io/output/validation_writer.hpp"
#include "io/spec/spec_resolver.hpp"
#include "python/bindings.hpp"
#include "python/job_arguments.hpp"
#include "validation/validation_report.hpp"

namespace py = pybind11;

namespace distsim::python {

namespace {

// The names `distsim validate` gives the built-in set, so that the JSON is the CLI's.
constexpr const char* kBuiltinName = "the built-in calibration set (data/published_calibration.csv)";
constexpr const char* kBuiltinFile = "data/published_calibration.csv";

struct ValidationOutcome {
  validation::ValidationReport report;
  std::string file_name;
};

//! What `distsim validate [--csv PATH] [--threads N] [--gpu SPEC ...]` computes; called without the GIL.
ValidationOutcome validate(const std::optional<std::string>& csv, std::optional<long long> threads,
                           const std::vector<std::string>& gpu_specs) {
  int count = hardware_threads();
  if (threads) {
    check_positive("--threads", *threads);
    count = static_cast<int>(*threads);
  }
  std::string text;
  if (csv) {
    try {
      text = io::read_text_file(*csv, "calibration file");
    } catch (const InputError& e) {
      throw InputError(std::string("--csv: ") + e.what());
    }
  } else {
    text = std::string(io::builtin_calibration_csv());
  }
  std::vector<cluster::GpuSpec> gpus;
  gpus.reserve(gpu_specs.size());
  for (const auto& gpu : gpu_specs) gpus.push_back(io::resolve_gpu(gpu));
  auto runs = io::read_calibration_runs(text, csv ? *csv : kBuiltinFile, gpus);
  return {validation::validate(std::move(runs), count), csv ? *csv : kBuiltinName};
}

}  // namespace

void bind_validation(py::module_& module) {
  py::class_<ValidationOutcome>(module, "ValidationOutcome", "A finished validation (wrapped by distsim.Validation).")
      .def(
          "to_json",
          [](const ValidationOutcome& o) { return io::validation_json(o.report, o.file_name).dump(2) + "\n"; },
          "What `distsim validate --json` prints, byte for byte.")
      .def(
          "to_text",
          [](const ValidationOutcome& o, bool per_row) { return io::validation_text(o.report, o.file_name, per_row); },
          py::arg("per_row"));
  module.def("validate", &validate, py::arg("csv"), py::arg("threads"), py::arg("gpus"),
             py::call_guard<py::gil_scoped_release>());
}

}  // namespace distsim::python
