#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster/gpu_spec.hpp"

namespace distsim::catalog {

//! Every built-in GPU type. Figures come from data/hardware.csv and the measurements summarised
//! in docs/reference/hardware.md; each entry's `source` names the row and sections used.
const std::vector<cluster::GpuSpec>& builtin_gpus();

//! Another spelling of a built-in GPU's name.
struct GpuAlias {
  std::string alias;
  std::string name;
};

//! Every alias, in the order `distsim list` shows them.
const std::vector<GpuAlias>& gpu_aliases();

//! The built-in GPU called `name` or an alias of it (exactly, ignoring case; never a name that
//! merely contains `name`); throws InputError suggesting the closest one when none is.
const cluster::GpuSpec& find_gpu(std::string_view name);

//! The names of the built-in GPUs, in catalog order.
std::vector<std::string> gpu_names();

}  // namespace distsim::catalog
