#pragma once

#include <map>
#include <string>
#include <vector>

#include "options/job_settings.hpp"
#include "search/search_space.hpp"

namespace distsim::search {

//! The search space of a job's settings and the values listed per searched option key: a listed
//! option tries its values (parsed by the table, messages naming the option's flag), a searched
//! option the settings give is pinned to that value, and the rest are free. The base job is the
//! settings without the searched ones (the parallel sizes 1M1P1D and micro-batch size 1 stand in
//! until each candidate sets its own). `lists` may hold "nodes": the node counts to search over
//! (the first sets the base job's; several fill SearchSpace::node_counts). Throws InputError for a strategy notation in
//! the settings (a search varies the sizes itself), a bad listed value or a bad base job.
SearchSpace make_search_space(options::JobSettings settings,
                              const std::map<std::string, std::vector<std::string>>& lists,
                              const options::SpecResolvers& resolve);

}  // namespace distsim::search
