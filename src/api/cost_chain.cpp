#include "api/cost_chain.hpp"

#include "catalog/host_cpus.hpp"
#include "cost/analytical_cost_model.hpp"

namespace distsim::api {

std::shared_ptr<const cost::FallbackCostModel> cost_chain(const strategy::JobSpec& job,
                                                          const SimulationOptions& options) {
  auto chain = std::make_shared<cost::FallbackCostModel>();
  if (options.preferred_costs) {
    chain->add(options.preferred_costs);
  }
  const auto host = job.strategy.host_time == strategy::HostTime::modelled
                        ? cost::HostCostModel::eager(catalog::host_cpu_of(job.cluster), job.strategy.moe_router_fusion)
                        : cost::HostCostModel();
  chain->add(std::make_shared<cost::AnalyticalCostModel>(job.cluster, job.strategy.attention_kernel, host));
  return chain;
}

}  // namespace distsim::api
