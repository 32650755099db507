#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cluster/cluster_spec.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace distsim::strategy {

//! Everything that defines one training job: what is trained, on what, and how.
struct JobSpec {
  model::ModelSpec model;
  cluster::ClusterSpec cluster;
  Strategy strategy;
};

//! Appends one sentence per rule of the job's pipeline schedule that the job breaks. The schedule
//! owns these rules (schedule::PipelineSchedule::check).
using ScheduleRules = std::function<void(const JobSpec& job, std::vector<std::string>& problems)>;

//! Checks every rule a job must satisfy before it is simulated, gathers all violations, those
//! of `schedule_rules` among them, and throws one InputError listing them. Callers use
//! schedule::validate_job, which passes the rules of the job's schedule.
void validate_job(const JobSpec& job, const ScheduleRules& schedule_rules);

}  // namespace distsim::strategy
