#pragma once

#include "program/job_program.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::program {

//! Stretches every computation of each simulated device whose rank the job names slow
//! (strategy::Variability::factor of its rank, stage and host) by that factor, to the nearest
//! nanosecond. Communication keeps its time: a slow GPU computes slower, its links do not. The
//! caller simulates every rank alone when a slow rank or host breaks the ranks' symmetry.
void slow_down_gpus(const strategy::JobSpec& job, JobProgram& program);

}  // namespace distsim::program
