#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "core/sim_time.hpp"
#include "cost/cost_model.hpp"
#include "events/job_events.hpp"

namespace distsim::program {

//! A pass's templates grouped so that a run of local work (computation, and communication that no
//! task outside the pass contends with) becomes one task lasting as long as the run takes alone,
//! while the templates between runs (ZeRO-3's parameter gathers and gradient reductions, traffic
//! through the NICs) stay tasks of their own. A search simulates a ZeRO-3 pass this way: its
//! gathers overlap the computation across passes, so the whole pass cannot be one task, but
//! between two gathers nothing else touches the compute and tensor-parallel streams.
struct LocalRuns {
  struct Run {
    std::size_t first = 0;  //!< its first template
    std::size_t end = 0;    //!< one past its last template
    SimTime duration = 0;   //!< from its start to the end of its last task, run alone
  };
  std::vector<Run> runs;
  std::vector<int> run_of;  //!< per template: its run, or -1 for a template that stays a task
};

//! The runs of `templates`, priced by `costs`, when each behaves as one task inside the pipeline:
//! a run starts at the pass's first computation or after a template that stays a task, its
//! templates other than the first wait for nothing outside it, and every template that something
//! outside the run waits for (a later template that stays a task, the computation after it, or one
//! of `awaited`: what the pass's successor and transfers wait for) ends with the run, as does its
//! last computation. None when some run cannot be one task; the pass then keeps a task per
//! template. `local[i]`: whether template i can belong to a run (computation, or communication on a
//! stream and a link only the pass uses).
std::optional<LocalRuns> local_runs(const std::vector<events::TaskTemplate>& templates, const std::vector<bool>& local,
                                    const std::vector<cost::Cost>& costs, std::span<const std::size_t> awaited);

}  // namespace distsim::program
