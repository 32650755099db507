#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "options/job_option.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::search {

//! What a strategy search may vary: every option of the job option table that has
//! JobOption::search_values (searched_options). The base job fixes the model, the cluster (its
//! GPU count is what every candidate must use), the global batch, the precision and every
//! setting no search varies. A searched setting is pinned or listed (`listed` holds its values)
//! or free (absent from `listed`: the search tries the option's search_values).
//! The cluster size is not a job option a search varies by default (it is what the user has),
//! but `node_counts` may list several: each candidate then uses every GPU of one of them.
struct SearchSpace {
  strategy::JobSpec base;
  std::map<std::string, std::vector<options::Value>> listed;
  //! Options given kAllValues: varied even where they do not apply to the base job (every
  //! all-to-all group size once a listed exchange is a2a+p2p).
  std::set<std::string> freed;
  std::vector<int> node_counts;  //!< empty: the base cluster's

  //! The node counts the candidates use: `node_counts`, or the base cluster's alone.
  std::vector<int> cluster_node_counts() const;
};

//! The options a search varies, in table order (the order candidates are built in).
std::vector<const options::JobOption*> searched_options();

//! The options `space` varies, in table order: the searched options that mean something for the
//! base job (JobOption::applies, which for a searched option depends only on settings no search
//! varies: the expert parallel size on an MoE model), or to it with one listed value of another
//! setting (the all-to-all group size with a listed a2a+p2p), and any whose values are listed or
//! given as kAllValues; of two that exclude each other, a listed one in place of the other (when
//! both are, the one listed beyond its default).
std::vector<const options::JobOption*> varied_options(const SearchSpace& space);

//! The job settings a search varies itself: every searched option's key and the strategy
//! notation that sets the parallel sizes together. A search's job echo leaves them out.
std::vector<std::string> searched_keys();

//! Written alone in a list of values, it leaves the setting free: `--schedule all`.
inline constexpr std::string_view kAllValues = "all";

//! Lists `items` as the values to try for the searched setting `key`, each parsed by the option
//! table's rule; kAllValues alone makes the setting free again (and for a setting searched only
//! when listed, lists every value it allows). Throws InputError naming `flag`.
void list_values(SearchSpace& space, const std::string& key, const std::vector<std::string>& items,
                 const std::string& flag);

//! Checks the lists themselves (not the candidates): none empty, micro-batch sizes dividing the
//! global batch, a model distsim can simulate, a cluster with GPUs. Throws InputError naming the
//! flag and the value.
void check_search_space(const SearchSpace& space);

}  // namespace distsim::search
