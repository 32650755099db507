#include "search/search_setup.hpp"

#include "core/input_error.hpp"
#include "options/job_assembly.hpp"
#include "options/job_option.hpp"

namespace distsim::search {

namespace {

//! The node counts of a `--nodes` list, each parsed by the option table's rule.
std::vector<int> node_counts(const std::vector<std::string>& items) {
  if (items.empty()) throw InputError("empty search space: --nodes lists no values");
  std::vector<int> counts;
  for (const auto& item : items) {
    const auto parsed = options::parse_value(options::option("nodes"), item);
    if (!parsed.ok()) throw InputError("--nodes: " + parsed.problem);
    counts.push_back(std::get<int>(parsed.value));
  }
  return counts;
}

//! A setting a search varies only when several values are listed (JobOption::searched_when_listed):
//! listed, or one value given as a setting of the job, as simulate takes it. A setting it
//! excludes (--fp8 for --precision) cannot come with a list.
void list_setting(SearchSpace& space, options::JobSettings& settings, const options::JobOption& option,
                  const std::vector<std::string>& items) {
  if (items.size() == 1 && items.front() != kAllValues) {
    const auto parsed = options::parse_value(option, items.front());
    if (!parsed.ok()) throw InputError(option.flag + ": " + parsed.problem);
    settings.set(option.key, parsed.value, option.flag);
    return;
  }
  for (const auto& excluded : option.excludes) {
    if (const auto* setting = settings.find(excluded)) {
      throw InputError(setting->origin + " and " + option.flag + " with several values cannot go together; list " +
                       "the values with " + option.flag + " alone");
    }
  }
  list_values(space, option.key, items, option.flag);
  settings.erase(option.key);
}

//! A setting the option table says a search refuses (JobOption::search_refusal).
void refuse_simulate_only_settings(const options::JobSettings& settings) {
  for (const auto& option : options::job_options()) {
    if (option.search_refusal.empty()) continue;
    if (const auto* setting = settings.find(option.key)) {
      throw InputError(setting->origin + ": a search ranks candidates by the iteration of healthy, identical GPUs; " +
                       option.search_refusal);
    }
  }
}

}  // namespace

SearchSpace make_search_space(options::JobSettings settings,
                              const std::map<std::string, std::vector<std::string>>& lists,
                              const options::SpecResolvers& resolve) {
  if (const auto* setting = settings.find("strategy")) {
    throw InputError(setting->origin +
                     ": search varies the parallel sizes itself; pin them with the keys tp, pp, dp and cp");
  }
  refuse_simulate_only_settings(settings);
  SearchSpace space;
  if (const auto nodes = lists.find("nodes"); nodes != lists.end()) {
    const std::vector<int> counts = node_counts(nodes->second);
    settings.set("nodes", counts.front(), "--nodes");
    if (counts.size() > 1) space.node_counts = counts;
  }
  for (const auto* option : searched_options()) {
    const auto listed = lists.find(option->key);
    if (option->searched_when_listed) {
      if (listed != lists.end()) list_setting(space, settings, *option, listed->second);
      continue;
    }
    if (listed != lists.end()) {
      list_values(space, option->key, listed->second, option->flag);
    } else if (const auto* setting = settings.find(option->key)) {
      space.listed[option->key] = {setting->value};
    }
    settings.erase(option->key);
  }
  settings.erase("strategy");
  options::JobSettings searched;
  searched.set("strategy", std::string("1M1P1D"), "search");
  searched.set("micro_batch_size", 1, "search");
  const options::JobSettings merged = searched.over(settings);
  space.base = options::assemble_job(merged, resolve);
  strategy::validate_precision(space.base, merged.names());
  return space;
}

}  // namespace distsim::search
