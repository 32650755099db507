#pragma once

#include <memory>

#include "api/simulation.hpp"
#include "cost/fallback_cost_model.hpp"

namespace distsim::api {

//! The costs simulate and the lower bound price a job's events with: the options' preferred costs
//! (a profile database) first, then the analytical model with the job's host time (the eager host
//! of the cluster's CPU, or none with --host-time none).
std::shared_ptr<const cost::FallbackCostModel> cost_chain(const strategy::JobSpec& job,
                                                          const SimulationOptions& options);

}  // namespace distsim::api
