#pragma once

#include "events/event.hpp"

namespace distsim::cost {

//! The ring algorithm's bytes per rank relative to the message: 2(N-1)/N for all-reduce,
//! (N-1)/N for all-gather and reduce-scatter (Patarasuk & Yuan 2009; NCCL's bus-bandwidth
//! factors in nccl-tests' PERFORMANCE.md).
double ring_volume(events::Collective collective, int group_size);

}  // namespace distsim::cost
