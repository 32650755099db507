#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "api/simulation.hpp"
#include "core/sim_time.hpp"
#include "engine/program.hpp"
#include "events/phase.hpp"

namespace distsim::io {

//! What a block of the report's timeline is coloured by.
enum class ActivityCategory {
  forward,
  backward,
  recompute,
  tp_comm,
  pipeline_p2p,
  dp_comm,
  optimizer,
  cp_comm,
  weight_gradient,
  ep_comm,
  host
};

inline constexpr int kActivityCategories = 11;

//! "forward", "backward", "recomputation", "TP comm", "pipeline p2p", "DP comm", "optimizer",
//! "CP comm", "weight gradient", "EP comm".
std::string_view category_label(ActivityCategory category);

//! The style sheet class that colours the category ("fwd", "bwd", ...).
std::string_view category_css_class(ActivityCategory category);

//! A communication stream gives the category of its kind whatever the phase (a TP all-reduce in
//! backward is TP comm); on the compute stream the task's phase decides.
ActivityCategory categorize(events::Phase phase, events::StreamKind stream);

//! One activity, or several neighbours of one category on one stream, drawn as one rectangle.
struct TimelineBlock {
  SimTime start = 0;
  SimTime end = 0;
  ActivityCategory category = ActivityCategory::forward;
  engine::TaskId first_task = 0;
  engine::TaskId last_task = 0;
  int tasks = 1;
  SimTime busy = 0;           //!< the summed durations of its tasks: end - start unless merged over gaps
  int first_microbatch = -1;  //!< smallest micro-batch of its tasks; -1 when none has one
  int last_microbatch = -1;   //!< largest
};

//! Appends `block` (later than every block already there) to `blocks`, merged into the last one
//! when both have the same category and the gap between them is shorter than `merge_gap_ns`:
//! closer than a pixel, the two could not be told apart on screen anyway.
void add_block(std::vector<TimelineBlock>& blocks, const TimelineBlock& block, double merge_gap_ns);

//! One stream of a device, with its blocks in time order.
struct TimelineRow {
  events::StreamKind stream = events::StreamKind::compute;
  std::vector<TimelineBlock> blocks;
};

//! One simulated device: the shown ranks whose timeline it is (in symmetric mode the tensor
//! ranks of a stage share one), and a row for each stream the device uses.
struct TimelineBand {
  std::size_t device = 0;
  strategy::RankCoord coord;  //!< of the simulated device
  std::vector<int> ranks;
  std::vector<TimelineRow> rows;
};

//! The timeline of data-parallel replica 0, the ranks a replica Chrome trace shows, on the same
//! streams: one band per simulated device in the order of its first rank. Activities of zero
//! length are left out (there is nothing to draw), neighbours closer than `merge_gap_ns` merged.
std::vector<TimelineBand> build_timeline(const api::Simulation& simulation, double merge_gap_ns);

}  // namespace distsim::io
