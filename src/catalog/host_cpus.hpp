#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/find_by_name.hpp"
#include "cluster/cluster_spec.hpp"
#include "cluster/host_cpu.hpp"

namespace distsim::catalog {

//! Every built-in host CPU, with its measured host time per eager operation and its source.
const std::vector<cluster::HostCpu>& builtin_host_cpus();

//! The built-in host CPU called `name` (by the one name rule); throws InputError suggesting the
//! closest one when none is.
const cluster::HostCpu& find_host_cpu(std::string_view name);

//! The CPU that issues `cluster`'s kernels: its own, or a DGX H100's when it names none.
const cluster::HostCpu& host_cpu_of(const cluster::ClusterSpec& cluster);

//! What host_cpu_of takes for granted when the cluster names no host CPU, said as an assumption;
//! "" when the cluster names one.
std::string host_cpu_assumption(const cluster::ClusterSpec& cluster);

}  // namespace distsim::catalog
