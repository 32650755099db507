#include <gtest/gtest.h>

#include "built_rank_work.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "events/job_events.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::events {

namespace {

using strategy::ParallelDim;
using strategy::RankCoord;

//! GPT-2 345M, data parallel 8 and two stages, on four 4-GPU hosts that are `hosts_per_domain` to
//! a scale-up domain.
strategy::JobSpec data_parallel_job(int hosts_per_domain) {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.cluster = catalog::find_cluster("dgx-b200");
  job.cluster.num_hosts = 4;
  job.cluster.gpus_per_host = 4;
  job.cluster.hosts_per_domain = hosts_per_domain;
  job.strategy.data_parallel = 8;
  job.strategy.pipeline_parallel = 2;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 8;
  return job;
}

std::string gradient_key(const Built& built) {
  return built.table.at(built.work.chunks.front().gradient_buckets.front().reduction.value()).key();
}

}  // namespace

// Ranks 0-7 hold stage 0 (rank = dp + 8·pp): the data-parallel group is ranks 0-7, four on each
// 4-GPU host. Where one domain spans both hosts (an NVL72-like rack) it reduces over NVLink; where
// each host is its own domain it crosses the network with four members per host.
TEST(TopologyEvents, PricesAGroupByItsDomainNotItsHost) {
  const Built rack = build(data_parallel_job(18), RankCoord{});
  const Built hosts = build(data_parallel_job(1), RankCoord{});
  EXPECT_TRUE(gradient_key(rack).ends_with(" group=8 intra")) << gradient_key(rack);
  EXPECT_TRUE(gradient_key(hosts).ends_with(" group=8 inter per_node=4")) << gradient_key(hosts);
}

// Stage 0's rank 0 sends to stage 1's rank 8, on the third host: in a domain of two hosts that is
// the network, in a domain of 18 hosts it is NVLink.
TEST(TopologyEvents, PricesAPipelineLinkByItsDomain) {
  auto job = data_parallel_job(2);
  const Built two_hosts = build(job, RankCoord{});
  job.cluster.hosts_per_domain = 18;
  const Built rack = build(job, RankCoord{});
  EXPECT_FALSE(two_hosts.table.at(*two_hosts.work.chunks.front().send_activation).within_domain);
  EXPECT_TRUE(rack.table.at(*rack.work.chunks.front().send_activation).within_domain);
}

}  // namespace distsim::events
