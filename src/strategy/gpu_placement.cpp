#include "strategy/gpu_placement.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "catalog/builtin_gpus.hpp"
#include "catalog/find_by_name.hpp"
#include "core/closest_name.hpp"
#include "core/plain_text.hpp"

namespace distsim::strategy {

namespace {

//! Each host's type with the hosts in the cluster's group order.
std::vector<int> hosts_in_group_order(const cluster::ClusterSpec& cluster) {
  std::vector<int> types;
  for (int group = 0; group < static_cast<int>(cluster.host_groups.size()); ++group) {
    types.insert(types.end(), static_cast<size_t>(cluster.host_groups[static_cast<size_t>(group)].hosts),
                 cluster.gpu_type_of_group(group));
  }
  return types;
}

//! Each host's type with every stage's hosts of its GPU: the stages in order, each taking the next
//! hosts of its type (the groups of a type in the cluster's order).
std::vector<int> hosts_by_stage(const JobSpec& job, const std::vector<int>& stage_types) {
  const int hosts_per_stage = job.strategy.world_size() / job.strategy.pipeline_parallel / job.cluster.gpus_per_host;
  std::vector<int> types;
  for (const int type : stage_types) types.insert(types.end(), static_cast<size_t>(hosts_per_stage), type);
  return types;
}

//! The GPUs of each type the cluster has.
std::map<int, std::int64_t> gpus_by_type(const cluster::ClusterSpec& cluster) {
  std::map<int, std::int64_t> gpus;
  for (int group = 0; group < static_cast<int>(cluster.host_groups.size()); ++group) {
    gpus[cluster.gpu_type_of_group(group)] +=
        std::int64_t{cluster.host_groups[static_cast<size_t>(group)].hosts} * cluster.gpus_per_host;
  }
  return gpus;
}

std::vector<cluster::GpuSpec> type_gpus(const cluster::ClusterSpec& cluster) {
  std::vector<cluster::GpuSpec> gpus;
  for (const int type : cluster.gpu_types()) gpus.push_back(cluster.gpu_of_type(type));
  return gpus;
}

//! The type whose GPU `name` names (its name or a catalog alias of it), or -1.
int named_type(const cluster::ClusterSpec& cluster, const std::string& name) {
  const std::vector<cluster::GpuSpec> gpus = type_gpus(cluster);
  const cluster::GpuSpec* found = catalog::detail::named_entry(gpus, name, catalog::gpu_aliases());
  return found == nullptr ? -1 : cluster.gpu_types()[static_cast<size_t>(found - gpus.data())];
}

void check_stage_gpu_counts(const JobSpec& job, const std::vector<int>& stage_types,
                            std::vector<std::string>& problems) {
  const cluster::ClusterSpec& cluster = job.cluster;
  const std::int64_t stage_gpus = job.strategy.world_size() / job.strategy.pipeline_parallel;
  if (stage_gpus % cluster.gpus_per_domain() != 0) {
    problems.push_back("stage_gpus places each pipeline stage on hosts of its GPU, so a stage's " +
                       std::to_string(stage_gpus) + " GPUs (tp x cp x dp) must fill whole scale-up domains of " +
                       std::to_string(cluster.gpus_per_domain()) + " GPUs");
    return;
  }
  std::map<int, std::int64_t> wanted;
  for (const int type : stage_types) wanted[type] += stage_gpus;
  for (const auto& [type, gpus] : gpus_by_type(cluster)) {
    if (wanted[type] != gpus) {
      problems.push_back("stage_gpus '" + job.strategy.stage_gpus + "' places " + std::to_string(wanted[type]) +
                         " GPUs (" + std::to_string(wanted[type] / stage_gpus) + " stages of " +
                         std::to_string(stage_gpus) + ") on the " + cluster.gpu_of_type(type).name + ", but cluster '" +
                         cluster.name + "' has " + std::to_string(gpus));
    }
  }
}

//! A tensor- and context-parallel group (tp·cp consecutive ranks) must not straddle two types: a
//! layer's shards run in lockstep on one kind of GPU.
void check_model_groups(const JobSpec& job, const std::vector<int>& host_types, std::vector<std::string>& problems) {
  const std::int64_t group = std::int64_t{job.strategy.tensor_parallel} * job.strategy.context_parallel;
  const int per_host = job.cluster.gpus_per_host;
  for (size_t host = 1; host < host_types.size(); ++host) {
    const std::int64_t first_rank = static_cast<std::int64_t>(host) * per_host;
    if (host_types[host] != host_types[host - 1] && first_rank % group != 0) {
      problems.push_back("rank " + std::to_string(first_rank) + " starts the hosts of the " +
                         job.cluster.gpu_of_type(host_types[host]).name +
                         " inside a tensor x context parallel group of " + std::to_string(group) +
                         " ranks, which would run on two GPU types; give sizes whose group "
                         "fits the host groups, or stage_gpus");
      return;
    }
  }
}

void check_domains(const cluster::ClusterSpec& cluster, std::vector<std::string>& problems) {
  for (const auto& group : cluster.host_groups) {
    if (group.hosts % cluster.hosts_per_domain != 0) {
      problems.push_back("cluster '" + cluster.name + "': its host group of " + std::to_string(group.hosts) + " " +
                         group.gpu.name + " hosts does not fill whole scale-up domains of " +
                         std::to_string(cluster.hosts_per_domain) + " hosts");
    }
  }
}

}  // namespace

std::vector<std::string> stage_gpu_names(const std::string& text) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    names.push_back(trimmed(text.substr(start, end - start)));
    start = end + 1;
  }
  return names;
}

std::vector<int> stage_gpu_types(const JobSpec& job, std::vector<std::string>& problems) {
  const std::vector<std::string> names = stage_gpu_names(job.strategy.stage_gpus);
  if (static_cast<int>(names.size()) != job.strategy.pipeline_parallel) {
    problems.push_back("stage_gpus '" + job.strategy.stage_gpus + "' names " + std::to_string(names.size()) +
                       " GPUs; expected one per pipeline stage, " + std::to_string(job.strategy.pipeline_parallel));
    return {};
  }
  std::vector<int> types;
  for (const auto& name : names) {
    const int type = named_type(job.cluster, name);
    if (type < 0) {
      const std::vector<std::string> known = catalog::detail::names_of(type_gpus(job.cluster));
      problems.push_back("stage_gpus '" + job.strategy.stage_gpus + "': cluster '" + job.cluster.name +
                         "' has no GPU '" + name + "'; did you mean '" + closest_completion(name, known) +
                         "'? (its GPUs: " + comma_joined(known) + ")");
      return {};
    }
    types.push_back(type);
  }
  return types;
}

std::vector<std::string> stage_gpu_assignments(const JobSpec& job) {
  const cluster::ClusterSpec& cluster = job.cluster;
  const std::optional<int> world = job.strategy.checked_world_size();
  if (!cluster.mixed() || !world || job.strategy.pipeline_parallel <= 0) return {};
  const std::int64_t stage_gpus = *world / job.strategy.pipeline_parallel;
  if (stage_gpus <= 0 || stage_gpus % cluster.gpus_per_domain() != 0) return {};
  std::vector<int> stages;  // the type of each stage, sorted
  std::vector<int> types;
  for (const auto& [type, gpus] : gpus_by_type(cluster)) {
    if (gpus % stage_gpus != 0) return {};
    stages.insert(stages.end(), static_cast<size_t>(gpus / stage_gpus), type);
    types.push_back(type);
  }
  if (static_cast<int>(stages.size()) != job.strategy.pipeline_parallel) return {};
  const auto text_of = [&](const std::vector<int>& assignment) {
    std::string text;
    for (const int type : assignment) text += (text.empty() ? "" : ",") + cluster.gpu_of_type(type).name;
    return text;
  };
  std::vector<std::string> assignments;
  do {
    assignments.push_back(text_of(stages));
  } while (assignments.size() <= kMaxStageGpuAssignments && std::next_permutation(stages.begin(), stages.end()));
  if (assignments.size() <= kMaxStageGpuAssignments) return assignments;
  // Too many: each type's stages together, the types in every order.
  const std::map<int, std::int64_t> counts = gpus_by_type(cluster);
  assignments.clear();
  do {
    std::vector<int> blocks;
    for (const int type : types) blocks.insert(blocks.end(), static_cast<size_t>(counts.at(type) / stage_gpus), type);
    assignments.push_back(text_of(blocks));
  } while (std::next_permutation(types.begin(), types.end()));
  return assignments;
}

void check_gpu_placement(const JobSpec& job, std::vector<std::string>& problems) {
  const cluster::ClusterSpec& cluster = job.cluster;
  if (!cluster.mixed()) {
    if (!job.strategy.stage_gpus.empty()) {
      problems.push_back("stage_gpus '" + job.strategy.stage_gpus +
                         "' needs a cluster of several GPU types (host_groups "
                         "in a cluster file); cluster '" +
                         cluster.name + "' has only the " + cluster.gpu.name);
    }
    return;
  }
  const std::size_t before = problems.size();
  check_domains(cluster, problems);
  if (problems.size() != before) return;
  if (job.strategy.stage_gpus.empty()) {
    check_model_groups(job, hosts_in_group_order(cluster), problems);
    return;
  }
  const std::vector<int> stage_types = stage_gpu_types(job, problems);
  if (!stage_types.empty()) check_stage_gpu_counts(job, stage_types, problems);
}

GpuPlacement::GpuPlacement(const JobSpec& job)
    : gpus_per_host_(job.cluster.gpus_per_host),
      stage_ranks_(job.strategy.world_size() / job.strategy.pipeline_parallel),
      stages_(job.strategy.pipeline_parallel) {
  if (!job.cluster.mixed()) return;
  if (job.strategy.stage_gpus.empty()) {
    host_types_ = hosts_in_group_order(job.cluster);
    return;
  }
  std::vector<std::string> problems;
  host_types_ = hosts_by_stage(job, stage_gpu_types(job, problems));
}

int GpuPlacement::type_of_rank(int rank) const {
  return host_types_.empty() ? 0 : host_types_.at(static_cast<size_t>(rank / gpus_per_host_));
}

int GpuPlacement::type_of_stage(int stage) const {
  const std::vector<int> types = types_of_stage(stage);
  return types.size() == 1 ? types.front() : -1;
}

std::vector<int> GpuPlacement::types_of_stage(int stage) const {
  if (host_types_.empty()) return {0};
  std::vector<int> types;
  const std::int64_t first = std::int64_t{stage} * stage_ranks_;
  const auto first_host = static_cast<size_t>(first / gpus_per_host_);
  const auto last_host = static_cast<size_t>((first + stage_ranks_ - 1) / gpus_per_host_);
  for (size_t host = first_host; host <= last_host; ++host) {
    const int type = host_types_.at(host);
    if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
  }
  return types;
}

bool GpuPlacement::stages_uniform() const {
  for (int stage = 0; stage < stages_; ++stage) {
    if (type_of_stage(stage) < 0) return false;
  }
  return true;
}

}  // namespace distsim::strategy
