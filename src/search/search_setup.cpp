#include "search/search_setup.hpp"

#include "core/input_error.hpp"
#include "options/job_assembly.hpp"

namespace distsim::search {

SearchSpace make_search_space(options::JobSettings settings,
                              const std::map<std::string, std::vector<std::string>>& lists,
                              const options::SpecResolvers& resolve) {
  if (const auto* setting = settings.find("strategy")) {
    throw InputError(setting->origin +
                     ": search varies the parallel sizes itself; pin them with the keys tp, pp, dp and cp");
  }
  SearchSpace space;
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
