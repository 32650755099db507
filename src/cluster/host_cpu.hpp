#pragma once

#include <string>

namespace distsim::cluster {

//! The CPU a host's training processes run on, as far as issuing kernels costs it
//! (docs/host_time.md): one eager PyTorch operation with its kernel's launch, and a
//! TransformerEngine module call in such operations. The built-in ones are in catalog/host_cpus.hpp.
struct HostCpu {
  std::string name;
  double eager_operation_us = 0;
  double module_operations = 0;
  std::string source;
  bool operator==(const HostCpu&) const = default;
};

}  // namespace distsim::cluster
