#include "strategy/training_run.hpp"

#include <algorithm>

namespace distsim::strategy {

// Table 5 of Dubey et al. 2024 lists the root causes of the 419 unexpected interruptions, each with
// a category (GPU, Host, Network, Dependency, Unplanned Maintenance, Unknown). The components follow
// the categories, HBM3 apart from the rest of the GPU; the host's unplanned maintenance goes with the
// host, and the NCCL watchdog timeouts (category Unknown) with the software they surface in.
const std::array<FailureComponentInfo, 5>& failure_components() {
  static const std::array<FailureComponentInfo, 5> components{{
      {FailureComponent::gpu, "gpu", FailureUnit::gpu, 148 + 19 + 17 + 6 + 6,
       "faulty GPU 148, GPU SRAM memory 19, GPU system processor 17, silent data corruption 6, GPU thermal "
       "interface and sensor 6"},
      {FailureComponent::hbm, "hbm", FailureUnit::gpu, 72, "GPU HBM3 memory 72"},
      {FailureComponent::host, "host", FailureUnit::host, 32 + 7 + 3 + 3 + 2 + 2 + 2 + 2,
       "host maintenance 32, NIC 7, SSD 3, power supply 3, server chassis 2, IO expansion board 2, CPU 2, system "
       "memory 2"},
      {FailureComponent::network, "network", FailureUnit::gpu, 35, "network switch and cable 35"},
      {FailureComponent::software, "software", FailureUnit::gpu, 54 + 7 + 2,
       "software bug 54, NCCL watchdog timeouts 7, dependency 2"},
  }};
  return components;
}

double default_failure_rate_per_hour(const FailureComponentInfo& info) {
  const double units = info.unit == FailureUnit::host ? kLlama3Hosts : kLlama3Gpus;
  return info.llama3_interruptions / (units * kLlama3SnapshotHours);
}

bool TrainingRun::given() const {
  const bool any_rate =
      std::any_of(failure_rates.begin(), failure_rates.end(), [](const auto& r) { return r.has_value(); });
  return tokens || gpu_hour_price || any_rate || checkpoint_interval || checkpoint_save || storage_bandwidth_gbps ||
         staging_bandwidth_gbps || restart_s;
}

}  // namespace distsim::strategy
