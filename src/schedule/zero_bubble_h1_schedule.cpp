#include "schedule/zero_bubble_h1_schedule.hpp"

namespace distsim::schedule {

std::string_view ZeroBubbleH1Schedule::description() const {
  return "zero bubble H1: 1F1B with backward split into B and W, W deferred to fill the cool-down; "
         "bubble (p-1)(F+B-W), 1F1B's peak memory (Qi et al. ICLR'24)";
}

}  // namespace distsim::schedule
