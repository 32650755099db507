#include <string>

#include <pybind11/pybind11.h>

#include "io/output/whatif_writer.hpp"
#include "io/trace/step_timeline_reader.hpp"
#include "python/bindings.hpp"
#include "whatif/straggler_analysis.hpp"

namespace py = pybind11;

namespace distsim::python {

namespace {

//! A finished what-if replay and the trace it read, for the CLI's writers.
struct WhatIfOutcome {
  whatif::StragglerAnalysis analysis;
  std::string path;
};

//! What `distsim whatif TRACE` computes; called without the GIL.
WhatIfOutcome whatif_replay(const std::string& trace) {
  return {whatif::analyze_stragglers(io::read_step_timeline(trace)), trace};
}

}  // namespace

void bind_whatif(py::module_& module) {
  py::class_<WhatIfOutcome>(module, "WhatIfOutcome", "A finished what-if replay (wrapped by distsim.WhatIf).")
      .def(
          "to_json", [](const WhatIfOutcome& o) { return io::whatif_json(o.analysis, o.path).dump(2) + "\n"; },
          "What `distsim whatif --json` prints, byte for byte.")
      .def(
          "to_text", [](const WhatIfOutcome& o) { return io::whatif_text(o.analysis, o.path); },
          "What `distsim whatif` prints, byte for byte.");
  module.def("whatif", &whatif_replay, py::arg("trace"), py::call_guard<py::gil_scoped_release>());
}

}  // namespace distsim::python
