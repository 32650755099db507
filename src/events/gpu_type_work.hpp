#pragma once

#include "events/event_table.hpp"
#include "events/job_events.hpp"

namespace distsim::events {

//! Moves a rank's compute onto GPU type `gpu_type` of a cluster of several
//! (strategy::GpuPlacement): every compute event of its templates and its optimizer step becomes
//! the same event with that Event::gpu_type, interned into `table`, so that it is priced on that
//! GPU. Communication stays as it is: the links are the cluster's, whatever GPU sends. Type 0
//! leaves the work as built.
void run_on_gpu_type(RankWork& work, EventTable& table, int gpu_type);

}  // namespace distsim::events
