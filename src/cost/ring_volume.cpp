#include "cost/ring_volume.hpp"

namespace distsim::cost {

double ring_volume(events::Collective collective, int group_size) {
  const double n = group_size;
  const double per_rank = (n - 1) / n;
  return collective == events::Collective::all_reduce ? 2 * per_rank : per_rank;
}

}  // namespace distsim::cost
