#include "search/search_space.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::search {

std::vector<int> SearchSpace::cluster_node_counts() const {
  return node_counts.empty() ? std::vector<int>{base.cluster.num_hosts} : node_counts;
}

std::vector<const options::JobOption*> searched_options() {
  std::vector<const options::JobOption*> searched;
  for (const auto& option : options::job_options()) {
    if (option.search_values) searched.push_back(&option);
  }
  return searched;
}

namespace {

bool is_listed(const SearchSpace& space, const std::string& key) { return space.listed.count(key) > 0; }

//! Whether `option` is listed with a value other than its default.
bool listed_beyond_default(const SearchSpace& space, const options::JobOption& option) {
  const auto listed = space.listed.find(option.key);
  if (listed == space.listed.end()) return false;
  return std::any_of(listed->second.begin(), listed->second.end(),
                     [&](const options::Value& value) { return options::value_text(value) != option.default_value; });
}

//! Whether the job sets `option`, searched only when listed, to a value other than its default:
//! --sharding zero3 given once is every candidate's stage.
bool set_beyond_default(const SearchSpace& space, const options::JobOption& option) {
  return option.searched_when_listed && !is_listed(space, option.key) &&
         options::value_text(option.read(space.base)) != option.default_value;
}

//! Whether the job takes `option` other than by default: listed beyond its default, or set so.
bool given_beyond_default(const SearchSpace& space, const options::JobOption& option) {
  return listed_beyond_default(space, option) || set_beyond_default(space, option);
}

//! Whether a listed option that `option` excludes takes its place: --sharding listed with ZeRO
//! stages replaces --distributed-optimizer, and the other way round; the one listed beyond its
//! default wins (check_search_space refuses both given beyond their defaults). A stage the job
//! sets needs no rule here: --distributed-optimizer applies only without one.
bool gives_way(const SearchSpace& space, const options::JobOption& option) {
  return std::any_of(option.excludes.begin(), option.excludes.end(), [&](const std::string& excluded) {
    return is_listed(space, excluded) &&
           (listed_beyond_default(space, options::option(excluded)) || !listed_beyond_default(space, option));
  });
}

//! Whether `option` applies to the base job once one listed value of another setting is set: the
//! all-to-all group size once a2a+p2p is among the listed exchanges.
bool applies_with_a_listed_value(const SearchSpace& space, const options::JobOption& option) {
  return std::any_of(space.listed.begin(), space.listed.end(), [&](const auto& listed) {
    const options::JobOption& other = options::option(listed.first);
    return std::any_of(listed.second.begin(), listed.second.end(), [&](const options::Value& value) {
      strategy::JobSpec job = space.base;
      other.apply(value, job, {});
      return option.applies(job);
    });
  });
}

//! Whether `option` applies to the base job once set to one of its own values: sharding, which a
//! job names only as a ZeRO stage.
bool applies_with_an_own_value(const SearchSpace& space, const options::JobOption& option) {
  return std::any_of(option.allowed.begin(), option.allowed.end(), [&](const std::string& name) {
    strategy::JobSpec job = space.base;
    option.apply(options::Value(name), job, {});
    return option.applies(job);
  });
}

}  // namespace

std::vector<const options::JobOption*> varied_options(const SearchSpace& space) {
  std::vector<const options::JobOption*> varied;
  for (const auto* option : searched_options()) {
    if (gives_way(space, *option)) continue;
    if (option->searched_when_listed && !is_listed(space, option->key) && space.freed.count(option->key) == 0) continue;
    if (!option->applies || option->applies(space.base) || space.listed.count(option->key) > 0 ||
        space.freed.count(option->key) > 0 || applies_with_a_listed_value(space, *option) ||
        applies_with_an_own_value(space, *option)) {
      varied.push_back(option);
    }
  }
  return varied;
}

std::vector<std::string> searched_keys() {
  std::vector<std::string> keys{"strategy"};
  for (const auto* option : searched_options()) keys.push_back(option->key);
  return keys;
}

void list_values(SearchSpace& space, const std::string& key, const std::vector<std::string>& items,
                 const std::string& flag) {
  const options::JobOption& option = options::option(key);
  if (items.size() == 1 && items.front() == kAllValues) {
    // A choice searched only when listed lists every value it allows; other options, and an
    // integer searched only when listed (the shard group), try each candidate's valid values.
    if (option.searched_when_listed && !option.allowed.empty()) {
      list_values(space, key, option.allowed, flag);
    } else {
      space.listed.erase(key);
      space.freed.insert(key);
    }
    return;
  }
  std::vector<options::Value> values;
  for (const auto& item : items) {
    const options::ParsedValue parsed = options::parse_value(option, item);
    if (!parsed.ok()) throw InputError(flag + ": " + parsed.problem);
    if (std::find(values.begin(), values.end(), parsed.value) == values.end()) values.push_back(parsed.value);
  }
  if (values.empty()) throw InputError("empty search space: " + flag + " lists no values");
  space.listed[key] = values;
}

void check_search_space(const SearchSpace& space) {
  const int global_batch = space.base.strategy.global_batch_size;
  if (global_batch <= 0) {
    throw InputError("--global-batch-size must be positive, got " + std::to_string(global_batch));
  }
  for (const auto& [key, values] : space.listed) {
    if (values.empty()) throw InputError("empty search space: " + options::option(key).flag + " lists no values");
  }
  for (const auto* option : searched_options()) {
    for (const auto& excluded : option->excludes) {
      const options::JobOption& rival = options::option(excluded);
      if (given_beyond_default(space, *option) && given_beyond_default(space, rival)) {
        throw InputError(option->flag + " and " + rival.flag +
                         " are both given, but a job takes one or the other; give the values with one of them");
      }
    }
  }
  if (const auto sizes = space.listed.find("micro_batch_size"); sizes != space.listed.end()) {
    for (const auto& value : sizes->second) {
      const int size = std::get<int>(value);
      if (global_batch % size != 0) {
        throw InputError("--micro-batch-size: " + std::to_string(size) + " does not divide the global batch size " +
                         std::to_string(global_batch) + "; use divisors of it");
      }
    }
  }
  // Every candidate would be refused for the same reason: say it once, before enumerating them.
  if (const auto problems = strategy::unsimulated_features(space.base.model); !problems.empty()) {
    throw InputError(problems.front());
  }
  for (std::size_t i = 0; i < space.node_counts.size(); ++i) {
    const int count = space.node_counts[i];
    if (count <= 0) throw InputError("--nodes: expected positive node counts, got " + std::to_string(count));
    if (std::find(space.node_counts.begin(), space.node_counts.begin() + static_cast<std::ptrdiff_t>(i), count) !=
        space.node_counts.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw InputError("--nodes: " + std::to_string(count) + " is listed twice");
    }
  }
  if (space.base.cluster.total_gpus() <= 0) {
    throw InputError("the cluster has no GPUs: nodes " + std::to_string(space.base.cluster.num_hosts) +
                     " x GPUs per node " + std::to_string(space.base.cluster.gpus_per_host));
  }
}

}  // namespace distsim::search
