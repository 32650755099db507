#pragma once

#include "api/simulation.hpp"
#include "core/sim_time.hpp"
#include "strategy/job_spec.hpp"

// A time no schedule can beat for a job, from its stages' priced events without building or
// running its task program; the search prunes candidates with it.
namespace distsim::bound {

//! The three terms of iteration_lower_bound.
struct LowerBound {
  SimTime busiest_stream = 0;  //!< the busiest stream (or NICs) of the busiest stage
  //! The pipeline's fill and drain around the time a stage holds its compute stream, and its
  //! data-parallel tail; 0 for DualPipe's two directions.
  SimTime pipeline = 0;
  //! The time a stage holds its compute stream, then the data-parallel work that waits for it.
  SimTime compute_then_data_parallel = 0;
};

//! Which stages iteration_lower_bound_terms prices: every one, or only the stage that holds the LM
//! head, whose busiest stream and whose compute stream held then its data-parallel tail bound the
//! iteration too (the pipeline's term left 0). That costs one stage's pricing, is never above the
//! whole bound, and equals it with one stage: a search prunes most candidates with it alone.
enum class BoundStages { all, head };

//! A time no schedule can beat for this job, the largest of three terms. (1) The busiest stream, or
//! under ZeRO-3 the busiest NICs, of its busiest pipeline stage. Its compute stream runs the forward and backward
//! passes of every micro-batch that the schedule runs through each of the stage's chunks, and the optimizer step; with
//! ZeRO-3 its data-parallel streams run each unit's parameter gathers and gradient reductions in every pass, and its
//! share of the NICs carries those and every other collective through them. Each stream runs one task at a time, and
//! tasks that share a link progress at most at its full speed together. (2) and (3) count the time a stage holds its
//! compute stream: a pass holds it from its first computation to its last, through the collectives its computations
//! wait for in between (tensor-parallel ones that do not overlap), since nothing else runs on it meanwhile; passes a
//! schedule overlaps (DualPipe's F&B, combined 1F1B) hold it for their compute added up, or the longest of them if
//! that is more. (2) Where every micro-batch crosses every chunk
//! in the order of their virtual stages, a stage computes nothing before one micro-batch has crossed the chunks of
//! other stages ahead of its first chunk (the time their forwards hold the stream), then holds its stream, and the
//! gradient of its last backward crosses those chunks back (their backward, or input-gradient, passes); transfers
//! count as free. (3) A stage's compute stream held, then the data-parallel work that waits for all of its compute but
//! the optimizer step (the gradient buckets' reductions unless they overlap the backward passes, the expert gradients'
//! and the tied embedding's) and the parameter gathers that wait for the step, one at a time on the data-parallel
//! stream; (2) adds this tail too. Stages of one shape (the micro-batches, ends, and layers' parameters and attention
//! windows of each chunk) are priced once, by the first: the shape says what a stage computes (a test checks it on
//! stages of different layers). Prices the events as simulate does, without building the task program. Throws
//! InputError for an invalid job.
SimTime iteration_lower_bound(const strategy::JobSpec& job, const api::SimulationOptions& options = {},
                              BoundStages stages = BoundStages::all);
LowerBound iteration_lower_bound_terms(const strategy::JobSpec& job, const api::SimulationOptions& options = {},
                                       BoundStages stages = BoundStages::all);

}  // namespace distsim::bound
