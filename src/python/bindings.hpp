#pragma once

#include <pybind11/pybind11.h>

namespace distsim::python {

// Each adds one part of the compiled module `distsim._distsim`, which the Python package wraps
// (python/distsim). Every function takes and returns plain values (text, numbers, JSON text), so
// that the package's classes are thin and the numbers are the ones the CLI's writers print.

//! Job settings from keyword arguments, the option table, model specs.
void bind_job(pybind11::module_& module);
//! simulate() and the simulation's read-outs (JSON, timeline, trace, report).
void bind_simulation(pybind11::module_& module);
//! search() and its outputs.
void bind_search(pybind11::module_& module);
//! validate() and its outputs.
void bind_validation(pybind11::module_& module);
//! whatif() and its outputs.
void bind_whatif(pybind11::module_& module);
//! The built-in catalogs.
void bind_catalog(pybind11::module_& module);

}  // namespace distsim::python
