#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "strategy/job_spec.hpp"

namespace distsim::strategy {

//! Which GPU type (cluster::ClusterSpec::gpu_type_of_group) each rank of a job runs on. Ranks fill
//! the hosts in Megatron's order of the parallel dims (tensor fastest, pipeline slowest), a host's
//! GPUs one after another. The hosts are the host groups' in the cluster's order, or, when the job
//! names a GPU for each pipeline stage (Strategy::stage_gpus), each stage's hosts taken in turn
//! from the groups of its GPU: hosts of one GPU are alike, so only the GPU of each stage matters.
//! A one-type cluster places every rank on type 0.
class GpuPlacement {
 public:
  //! Expects a job without gpu_placement_problems.
  explicit GpuPlacement(const JobSpec& job);

  int type_of_rank(int rank) const;
  //! The type every rank of pipeline stage `stage` runs on, or -1 when its ranks run on several.
  int type_of_stage(int stage) const;
  //! The types the ranks of pipeline stage `stage` run on, each once, in rank order.
  std::vector<int> types_of_stage(int stage) const;
  //! Whether every stage runs on one type, so that one rank can stand for its stage.
  bool stages_uniform() const;
  //! Whether the ranks run on more than one type's hosts (a cluster with host groups).
  bool mixed() const { return !host_types_.empty(); }

 private:
  std::vector<int> host_types_;  //!< per host in rank order; empty for a one-type cluster
  int gpus_per_host_ = 1;
  int stage_ranks_ = 1;
  int stages_ = 1;
};

//! The stage GPU names of Strategy::stage_gpus, split at commas and trimmed.
std::vector<std::string> stage_gpu_names(const std::string& text);

//! The GPU types of Strategy::stage_gpus, one per stage, or the problems with it appended to
//! `problems` (an unknown name, with the closest of the cluster's).
std::vector<int> stage_gpu_types(const JobSpec& job, std::vector<std::string>& problems);

//! The most assignments stage_gpu_assignments lists one by one.
inline constexpr std::size_t kMaxStageGpuAssignments = 64;

//! What a search tries for Strategy::stage_gpus on a cluster of several GPU types: every way to put
//! each pipeline stage on one GPU type that uses each type's GPUs whole, as stage_gpus texts; when
//! there are more than kMaxStageGpuAssignments, only those that keep each type's stages together
//! (one per order of the types). None on a one-type cluster, or where stages do not fill whole
//! scale-up domains or the types' GPUs are no whole number of stages.
std::vector<std::string> stage_gpu_assignments(const JobSpec& job);

//! The rules of a job on a cluster of several GPU types: a tensor- and context-parallel group runs
//! on one GPU type; stage_gpus names one of the cluster's GPUs per stage, takes whole scale-up
//! domains per stage and as many of each GPU as the cluster has; stage_gpus needs host groups.
void check_gpu_placement(const JobSpec& job, std::vector<std::string>& problems);

}  // namespace distsim::strategy
