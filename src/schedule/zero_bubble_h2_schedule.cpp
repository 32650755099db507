#include "schedule/zero_bubble_h2_schedule.hpp"

namespace distsim::schedule {

std::string_view ZeroBubbleH2Schedule::description() const {
  return "zero bubble H2: backward split into B and W, 2(p-s)-1 warm-up forwards, W deferred by 2s; "
         "bubble (p-1)(F+B-2W), 2p-1 micro-batches in flight (Qi et al. ICLR'24)";
}

}  // namespace distsim::schedule
