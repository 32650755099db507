#include "strategy/gpu_placement.hpp"
#include "strategy/rank_compute.hpp"

#include <gtest/gtest.h>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "validation_test_jobs.hpp"

namespace distsim::strategy {

namespace {

//! Four 4-GPU hosts: two of A40s, then two of A100s, and a 16-rank job of 4-rank stages.
JobSpec four_hosts(int pipeline) {
  JobSpec job;
  job.model = gpt2_345m_shape();
  job.cluster = catalog::find_cluster("pcie-a40");
  job.cluster.host_groups = {{catalog::find_gpu("a40"), 2}, {catalog::find_gpu("a100-80gb"), 2}};
  job.cluster.gpu = job.cluster.host_groups.front().gpu;
  job.cluster.num_hosts = 4;
  job.strategy.tensor_parallel = 4;
  job.strategy.pipeline_parallel = pipeline;
  job.strategy.data_parallel = 16 / 4 / pipeline;
  job.strategy.global_batch_size = 16;
  return job;
}

}  // namespace

TEST(GpuPlacement, TypesAreTheFirstGroupOfEachGpu) {
  cluster::ClusterSpec cluster = catalog::find_cluster("pcie-a40");
  cluster.host_groups = {
      {catalog::find_gpu("a40"), 1}, {catalog::find_gpu("a100-80gb"), 1}, {catalog::find_gpu("a40"), 1}};
  EXPECT_EQ(cluster.gpu_type_of_group(0), 0);
  EXPECT_EQ(cluster.gpu_type_of_group(1), 1);
  EXPECT_EQ(cluster.gpu_type_of_group(2), 0);
  EXPECT_EQ(cluster.gpu_types(), (std::vector<int>{0, 1}));
  EXPECT_EQ(cluster.gpu_of_type(1).name, "a100-80gb");
}

// Ranks fill hosts in order: with 4 stages of 4 ranks (one host each) stages 0 and 1 land on the
// A40 hosts, 2 and 3 on the A100 hosts.
TEST(GpuPlacement, RanksFillTheHostsInTheClustersOrder) {
  const GpuPlacement placement(four_hosts(4));
  EXPECT_EQ(placement.type_of_rank(0), 0);
  EXPECT_EQ(placement.type_of_rank(7), 0);
  EXPECT_EQ(placement.type_of_rank(8), 1);
  EXPECT_EQ(placement.type_of_rank(15), 1);
  EXPECT_EQ(placement.type_of_stage(1), 0);
  EXPECT_EQ(placement.type_of_stage(2), 1);
  EXPECT_TRUE(placement.stages_uniform());
}

// stage_gpus puts each stage on hosts of its GPU, in the stages' order.
TEST(GpuPlacement, StageGpusPlaceEachStageOnItsGpu) {
  JobSpec job = four_hosts(4);
  job.strategy.stage_gpus = "a100-80gb, a40, a100, a40";
  EXPECT_EQ(error_of(job), "");
  const GpuPlacement placement(job);
  EXPECT_EQ(placement.type_of_stage(0), 1);
  EXPECT_EQ(placement.type_of_stage(1), 0);
  EXPECT_EQ(placement.type_of_stage(2), 1);
  EXPECT_EQ(placement.type_of_stage(3), 0);
  EXPECT_EQ(placement.type_of_rank(5), 0);
}

// One stage of 16 ranks spans both types: its replicas differ, and no rank stands for the stage.
TEST(GpuPlacement, AStageOverBothTypesIsNotUniform) {
  const GpuPlacement placement(four_hosts(1));
  EXPECT_EQ(placement.type_of_stage(0), -1);
  EXPECT_EQ(placement.types_of_stage(0), (std::vector<int>{0, 1}));
  EXPECT_FALSE(placement.stages_uniform());
}

TEST(GpuPlacement, AOneTypeClusterIsTypeZeroEverywhere) {
  JobSpec job = four_hosts(2);
  job.cluster.host_groups.clear();
  const GpuPlacement placement(job);
  EXPECT_EQ(placement.type_of_rank(15), 0);
  EXPECT_EQ(placement.types_of_stage(1), (std::vector<int>{0}));
}

}  // namespace distsim::strategy

namespace distsim::strategy {

// Four one-host stages, two of each GPU: 4! / (2! 2!) = 6 ways, in lexicographic order of the
// types (A40 type 0 before A100 type 1).
TEST(StageGpuAssignments, ListsEveryWayToPutEachStageOnOneType) {
  const std::vector<std::string> assignments = stage_gpu_assignments(four_hosts(4));
  ASSERT_EQ(assignments.size(), 6U);
  EXPECT_EQ(assignments.front(), "a40,a40,a100-80gb,a100-80gb");
  EXPECT_EQ(assignments[1], "a40,a100-80gb,a40,a100-80gb");
  EXPECT_EQ(assignments.back(), "a100-80gb,a100-80gb,a40,a40");
}

// Sixteen one-GPU stages, eight of each: C(16, 8) = 12,870 ways, more than listed one by one, so
// each type's stages stay together: two orders.
TEST(StageGpuAssignments, KeepsEachTypeTogetherWhenThereAreTooMany) {
  JobSpec job = four_hosts(4);
  job.cluster.gpus_per_host = 1;
  job.cluster.host_groups = {{catalog::find_gpu("a40"), 8}, {catalog::find_gpu("a100-80gb"), 8}};
  job.cluster.num_hosts = 16;
  job.strategy.tensor_parallel = 1;
  job.strategy.pipeline_parallel = 16;
  job.strategy.data_parallel = 1;
  const std::vector<std::string> assignments = stage_gpu_assignments(job);
  ASSERT_EQ(assignments.size(), 2U);
  EXPECT_EQ(assignments[0], "a40,a40,a40,a40,a40,a40,a40,a40,a100-80gb,a100-80gb,a100-80gb,a100-80gb,a100-80gb,"
                            "a100-80gb,a100-80gb,a100-80gb");
  EXPECT_EQ(assignments[1].substr(0, 10), "a100-80gb,");
}

// One stage of both types, or stages of 2 GPUs on 4-GPU hosts: no stage can run on one type.
TEST(StageGpuAssignments, NoneWhereAStageCannotRunOnOneType) {
  EXPECT_TRUE(stage_gpu_assignments(four_hosts(1)).empty());
  JobSpec half_hosts = four_hosts(4);
  half_hosts.strategy.tensor_parallel = 2;
  half_hosts.strategy.pipeline_parallel = 8;
  EXPECT_TRUE(stage_gpu_assignments(half_hosts).empty());
}

}  // namespace distsim::strategy

namespace distsim::strategy {

// Four 4-GPU hosts of A40s, tensor 4 x data 4: rank 5 slowed 1.5 times, host 3 (ranks 12 to 15)
// 1.2 times, and stage 0 (every rank) 2 times. Ranks compute alike unless their rank or host
// factors differ: the stage's factor sets no rank apart.
TEST(RankCompute, RanksOfOneSlowdownAndTypeComputeAlike) {
  JobSpec job;
  job.model = gpt2_345m_shape();
  job.cluster = catalog::find_cluster("pcie-a40");
  job.cluster.num_hosts = 4;
  job.strategy.tensor_parallel = 4;
  job.strategy.data_parallel = 4;
  job.strategy.global_batch_size = 16;
  job.variability.slow = {{SlowScope::stage, 0, 2.0}};
  EXPECT_FALSE(RankCompute(job).varies());
  job.variability.slow.push_back({SlowScope::rank, 5, 1.5});
  job.variability.slow.push_back({SlowScope::host, 3, 1.2});
  const RankCompute compute(job);
  EXPECT_TRUE(compute.varies());
  EXPECT_EQ(compute.kind_of_rank(0), compute.kind_of_rank(4));
  EXPECT_NE(compute.kind_of_rank(5), compute.kind_of_rank(4));
  EXPECT_EQ(compute.kind_of_rank(12), compute.kind_of_rank(15));
  EXPECT_NE(compute.kind_of_rank(12), compute.kind_of_rank(5));
  EXPECT_NE(compute.kind_of_rank(12), compute.kind_of_rank(0));
}

}  // namespace distsim::strategy
