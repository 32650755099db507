#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/find_by_name.hpp"
#include "cluster/gpu_spec.hpp"

namespace distsim::catalog {

//! Every built-in GPU type. Figures come from data/hardware.csv and the measurements summarised
//! in docs/reference/hardware.md; each entry's `source` names the row and sections used.
const std::vector<cluster::GpuSpec>& builtin_gpus();

//! Every alias of a built-in GPU, in the order `distsim list` shows them.
const std::vector<CatalogAlias>& gpu_aliases();

//! The built-in GPU called `name` or an alias of it (by the one name rule, core/name_match.hpp;
//! never a name that merely contains `name`); throws InputError suggesting the closest one when
//! none is.
const cluster::GpuSpec& find_gpu(std::string_view name);

//! The names of the built-in GPUs, in catalog order.
std::vector<std::string> gpu_names();

}  // namespace distsim::catalog
