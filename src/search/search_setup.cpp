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

}  // namespace

SearchSpace make_search_space(options::JobSettings settings,
                              const std::map<std::string, std::vector<std::string>>& lists,
                              const options::SpecResolvers& resolve) {
  if (const auto* setting = settings.find("strategy")) {
    throw InputError(setting->origin +
                     ": search varies the parallel sizes itself; pin them with the keys tp, pp, dp and cp");
  }
  SearchSpace space;
  if (const auto nodes = lists.find("nodes"); nodes != lists.end()) {
    const std::vector<int> counts = node_counts(nodes->second);
    settings.set("nodes", counts.front(), "--nodes");
    if (counts.size() > 1) space.node_counts = counts;
  }
  for (const auto* option : searched_options()) {
    if (const auto listed = lists.find(option->key); listed != lists.end()) {
      list_values(space, option->key, listed->second, option->flag);
    } else if (const auto* setting = settings.find(option->key)) {
      space.listed[option->key] = {setting->value};
    }
  }
  for (const auto& key : searched_keys()) settings.erase(key);
  options::JobSettings searched;
  searched.set("strategy", std::string("1M1P1D"), "search");
  searched.set("micro_batch_size", 1, "search");
  const options::JobSettings merged = searched.over(settings);
  space.base = options::assemble_job(merged, resolve);
  strategy::validate_precision(space.base, merged.names());
  return space;
}

}  // namespace distsim::search
