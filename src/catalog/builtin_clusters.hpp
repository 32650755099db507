#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_spec.hpp"

namespace distsim::catalog {

//! Every built-in host design: one host (`num_hosts` = 1) with its GPU filled in from
//! builtin_gpus(). The caller sets the host count. Link figures come from data/collectives.csv
//! and docs/reference/hardware.md §2 and §4; each entry's `source` says which.
const std::vector<cluster::ClusterSpec>& builtin_clusters();

//! The built-in node design called `name`; throws InputError naming the closest one when none is.
const cluster::ClusterSpec& find_cluster(std::string_view name);

//! The names of the built-in node designs, in catalog order.
std::vector<std::string> cluster_names();

}  // namespace distsim::catalog
