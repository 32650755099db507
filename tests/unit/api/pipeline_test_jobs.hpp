#pragma once

#include <string>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::api {

//! A built-in model on `nodes` hosts of a built-in cluster, split tp × pp × dp, with micro-batch
//! size 1 and `microbatches` micro-batches per iteration under `schedule`.
inline strategy::JobSpec make_job(const std::string& model, const std::string& cluster, int nodes, int tp, int pp,
                                  int dp, int microbatches, const std::string& schedule) {
  strategy::JobSpec job;
  job.model = catalog::find_model(model);
  job.cluster = catalog::find_cluster(cluster);
  job.cluster.num_hosts = nodes;
  job.strategy.tensor_parallel = tp;
  job.strategy.pipeline_parallel = pp;
  job.strategy.data_parallel = dp;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = microbatches * dp;
  job.strategy.schedule = schedule;
  return job;
}

}  // namespace distsim::api
