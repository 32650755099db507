#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "strategy/job_spec.hpp"

namespace distsim::search {

//! What a strategy search may vary. The base job fixes the model, the cluster (its GPU count is
//! what every candidate must use), the global batch, the precision and every strategy option the
//! search does not vary; the lists give the values it tries.
struct SearchSpace {
  strategy::JobSpec base;
  std::vector<int> micro_batch_sizes{1};
  std::vector<std::string> schedules{"1f1b"};  //!< by name; kAllSchedules stands for every registered one
  std::vector<strategy::Recompute> recompute{strategy::Recompute::none};
};

//! The job settings (option-table keys) a search varies itself: a search's job leaves them out.
const std::vector<std::string>& searched_keys();

//! In SearchSpace::schedules: every schedule distsim knows (schedule::all_schedules), in its order.
inline constexpr std::string_view kAllSchedules = "all";

//! The schedule names a search tries: SearchSpace::schedules with kAllSchedules replaced by every
//! registered schedule's name, each name once, in the order first given.
std::vector<std::string> schedules_to_try(const SearchSpace& space);

//! Checks the lists themselves (not the candidates): none empty, schedules known, micro-batch
//! sizes positive and dividing the global batch. Throws InputError naming the flag and value.
void check_search_space(const SearchSpace& space);

//! Every (tensor, pipeline, data) size triple whose product is `gpus`, tensor size first, in
//! ascending lexicographic order.
std::vector<strategy::Strategy> parallel_size_triples(int gpus);

//! The expert parallel sizes a search tries for `base`'s model on the tensor x data parallel split
//! `sizes`: for an MoE model every size that divides the routed experts and, times the expert
//! tensor parallel size, the ranks of a pipeline stage (tp x cp x dp), ascending; for a dense model
//! only the base job's own size.
std::vector<int> expert_parallel_sizes(const strategy::JobSpec& base, const strategy::Strategy& sizes);

}  // namespace distsim::search
