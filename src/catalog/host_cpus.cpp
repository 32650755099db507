#include "catalog/host_cpus.hpp"

namespace distsim::catalog {

namespace {

// TransformerEngine issue #2053 (2025-08-11): one Linear forward, BF16, hidden 2048, 8192 tokens,
// host time ("CPU runtime") through torch and through TE. A torch Linear is one eager operation with
// its kernel's launch; TE's module took 99.66 / 37.08 = 2.69 of them on the GB200 host. The issue
// publishes no TE row for the DGX H100, so the Xeon takes the ratio measured on Grace.
constexpr double kGraceTorchUs = 37.08;
constexpr double kGraceTeUs = 99.66;
constexpr double kXeonTorchUs = 13.48;
constexpr double kModuleOperations = kGraceTeUs / kGraceTorchUs;

}  // namespace

const std::vector<cluster::HostCpu>& builtin_host_cpus() {
  static const std::vector<cluster::HostCpu> cpus{
      {"xeon-platinum-8480c", kXeonTorchUs, kModuleOperations,
       "a DGX H100's Intel Xeon Platinum 8480C: torch Linear forward 13.48 us of host time (TransformerEngine "
       "#2053); a TE module as on Grace (2.69 operations), the issue has no TE row for it"},
      {"grace", kGraceTorchUs, kModuleOperations,
       "NVIDIA Grace of a GB200 superchip: torch Linear forward 37.08 us, TransformerEngine's 99.66 us of host time "
       "(TransformerEngine #2053)"},
  };
  return cpus;
}

const cluster::HostCpu& find_host_cpu(std::string_view name) {
  return detail::find_by_name(builtin_host_cpus(), name, "host cpu");
}

namespace {

constexpr std::string_view kDefaultHostCpu = "xeon-platinum-8480c";

}  // namespace

const cluster::HostCpu& host_cpu_of(const cluster::ClusterSpec& cluster) {
  return cluster.host_cpu.name.empty() ? find_host_cpu(kDefaultHostCpu) : cluster.host_cpu;
}

std::string host_cpu_assumption(const cluster::ClusterSpec& cluster) {
  if (!cluster.host_cpu.name.empty()) return "";
  return "host CPU " + std::string(kDefaultHostCpu) + " (cluster '" + cluster.name +
         "' names none; its kernel launches are priced on a DGX H100's CPU; set host_cpu in a cluster file, "
         "docs/host_time.md)";
}

}  // namespace distsim::catalog
