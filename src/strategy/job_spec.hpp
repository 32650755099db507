#pragma once

#include "cluster/cluster_spec.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace distsim::strategy {

//! Everything that defines one training job: what is trained, on what, and how.
struct JobSpec {
  model::ModelSpec model;
  cluster::ClusterSpec cluster;
  Strategy strategy;
};

//! Checks every rule a job must satisfy before it is simulated, gathers all violations and
//! throws one InputError listing them. Schedule names are checked by the schedule registry.
void validate_job(const JobSpec& job);

}  // namespace distsim::strategy
