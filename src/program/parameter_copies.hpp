#pragma once

#include <optional>
#include <vector>

#include "events/event_table.hpp"
#include "events/job_events.hpp"
#include "strategy/job_spec.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::program {

//! The sum of the gradients of a rank's parameter copies with the rank on `stage` that holds the
//! same layers: DualPipe runs every stage's layers in both directions, on ranks r and n − 1 − r,
//! and the two copies must step with the same gradient (deepseek-ai/DualPipe,
//! examples/example_dualpipe.py adds each rank's gradients to its mirror's before checking them).
struct CopyReduction {
  int stage = 0;
  events::EventId event = 0;
};

//! The reduction of the chunks of `coord`'s stage whose layers a chunk on another stage also holds
//! (`placements` by stage, as the schedule places them), over that pair of ranks: an all-reduce of
//! their gradients, of the rank's shard of them under a sharded optimizer. None when no layer of
//! the stage has a copy elsewhere, as with every schedule that runs each layer once.
std::optional<CopyReduction> copy_reduction(const strategy::JobSpec& job, const strategy::RankLayout& layout,
                                            const strategy::RankCoord& coord,
                                            const std::vector<std::vector<events::ChunkPlacement>>& placements,
                                            const events::RankWork& work, events::EventTable& table);

}  // namespace distsim::program
