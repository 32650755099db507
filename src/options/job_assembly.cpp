#include "options/job_assembly.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/input_error.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::options {

namespace {

constexpr const char* kDefaultGpu = "a40";
constexpr const char* kDefaultStrategy = "2M2P4D";

bool any_size_given(const JobSettings& settings) {
  return settings.has("tp") || settings.has("pp") || settings.has("dp");
}

//! The value with its origin, as conflict messages show it: "--strategy 2M2P4D".
std::string shown(const Setting& setting) { return setting.origin + " " + value_text(setting.value); }

//! --fp8 is a synonym of --precision fp8; one of them names the format.
void check_precision_synonym(const JobSettings& settings) {
  const Setting* fp8 = settings.find("fp8");
  const Setting* precision = settings.find("precision");
  if (fp8 != nullptr && precision != nullptr) {
    throw InputError(shown(*fp8) + " and " + shown(*precision) + " both given; " + fp8->origin +
                     " means precision fp8, use one or the other");
  }
}

void check_conflicts(const JobSettings& settings) {
  check_precision_synonym(settings);
  const Setting* notation = settings.find("strategy");
  if (notation == nullptr) {
    return;
  }
  for (const char* size : {"tp", "pp", "dp"}) {
    if (const Setting* given = settings.find(size)) {
      throw InputError(shown(*notation) + " and " + given->origin + " both given; use one or the other");
    }
  }
  const Setting* cp = settings.find("cp");
  const int notation_cp = strategy::parse_strategy_notation(value_text(notation->value)).context_parallel;
  if (cp != nullptr && notation_cp > 1) {
    throw InputError(shown(*cp) + " and " + shown(*notation) + " (context parallel " + std::to_string(notation_cp) +
                     ") both given; use one or the other");
  }
}

void apply(const JobOption& option, const Value& value, strategy::JobSpec& job, const SpecResolvers& resolve) {
  option.apply(value, job, resolve);
}

//! Without a cluster setting, the GPU's own default cluster, with that GPU in it.
void place_on_default_cluster(const JobSettings& settings, strategy::JobSpec& job, const SpecResolvers& resolve) {
  const Setting* gpu_setting = settings.find("gpu");
  const std::string gpu_name = gpu_setting ? value_text(gpu_setting->value) : kDefaultGpu;
  const cluster::GpuSpec gpu = resolve.gpu(gpu_name);
  if (gpu.default_cluster.empty()) {
    throw InputError((gpu_setting ? gpu_setting->origin : "gpu") + " '" + gpu_name +
                     "' names no default_cluster; give a cluster as well (--cluster or key cluster)");
  }
  job.cluster = resolve.cluster(gpu.default_cluster);
  job.cluster.gpu = gpu;
}

//! As many nodes as the parallel sizes fill; a world that does not fill whole nodes is refused
//! here, since any node count would be one the user never gave.
void default_nodes(strategy::JobSpec& job) {
  if (job.cluster.mixed()) return;  // its host groups give its hosts
  const int per_node = job.cluster.gpus_per_host;
  const std::optional<int> checked_world = job.strategy.checked_world_size();
  if (per_node <= 0 || !checked_world) {  // validate_job reports both
    return;
  }
  const int world = *checked_world;
  if (world > per_node && world % per_node != 0) {
    throw InputError("strategy " + job.strategy.notation() + " uses " + std::to_string(world) +
                     " GPUs, which do not fill whole nodes of " + std::to_string(per_node) +
                     " GPUs; give nodes (--nodes or key nodes), gpus_per_node or other parallel sizes");
  }
  job.cluster.num_hosts = std::max(1, world / per_node);
}

//! Options whose absence is decided by a rule rather than a default value.
bool apply_rule_for_absent(const JobOption& option, const JobSettings& settings, strategy::JobSpec& job,
                           const SpecResolvers& resolve) {
  if (option.key == "cluster") {
    place_on_default_cluster(settings, job, resolve);
  } else if (option.key == "strategy") {
    if (!any_size_given(settings)) apply(option, std::string(kDefaultStrategy), job, resolve);
  } else if (option.key == "nodes") {
    default_nodes(job);
  } else {
    return false;
  }
  return true;
}

//! `resolve`, each name resolved at most once: a spec named by a pipe (`--gpu <(...)`) can be
//! read only once, and the default cluster's rule and the GPU's own setting both need the GPU.
template <typename Spec>
std::function<Spec(const std::string&)> once_per_name(std::function<Spec(const std::string&)> resolve) {
  auto resolved = std::make_shared<std::map<std::string, Spec>>();
  return [resolve = std::move(resolve), resolved](const std::string& name) {
    if (const auto found = resolved->find(name); found != resolved->end()) return found->second;
    return resolved->emplace(name, resolve(name)).first->second;
  };
}

}  // namespace

strategy::JobSpec assemble_job(const JobSettings& settings, const SpecResolvers& resolvers) {
  check_conflicts(settings);
  const SpecResolvers resolve{once_per_name(resolvers.model), once_per_name(resolvers.gpu),
                              once_per_name(resolvers.cluster)};
  strategy::JobSpec job;
  for (const auto& option : job_options()) {
    if (const Setting* given = settings.find(option.key)) {
      apply(option, given->value, job, resolve);
    } else if (!apply_rule_for_absent(option, settings, job, resolve) && !option.default_value.empty()) {
      apply(option, parse_value(option, option.default_value).value, job, resolve);
    }
  }
  return job;
}

strategy::JobSpec assemble_valid_job(const JobSettings& settings, const SpecResolvers& resolve) {
  strategy::JobSpec job = assemble_job(settings, resolve);
  schedule::validate_job(job, settings.names());
  return job;
}

std::vector<std::pair<std::string, Value>> describe_job(const strategy::JobSpec& job) {
  std::vector<std::pair<std::string, Value>> settings;
  for (const auto& option : job_options()) {
    if (option.key == "strategy" || (option.applies && !option.applies(job))) continue;
    Value value = option.read(job);
    // An empty text is a setting left unset (a layout or a stage placement not given).
    if (const auto* text = std::get_if<std::string>(&value); text != nullptr && text->empty()) continue;
    settings.emplace_back(option.key, std::move(value));
  }
  return settings;
}

}  // namespace distsim::options
