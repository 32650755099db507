#include <pybind11/pybind11.h>

#include "core/input_error.hpp"
#include "python/bindings.hpp"

PYBIND11_MODULE(_distsim, module) {
  module.doc() = "distsim's simulator core; use the `distsim` package, which wraps it";
  // A ValueError, so that code catching bad values in general catches it too.
  pybind11::register_exception<distsim::InputError>(module, "InputError", PyExc_ValueError);
  distsim::python::bind_job(module);
  distsim::python::bind_simulation(module);
  distsim::python::bind_search(module);
  distsim::python::bind_validation(module);
  distsim::python::bind_whatif(module);
  distsim::python::bind_catalog(module);
}
