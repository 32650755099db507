#pragma once

#include <string>
#include <utility>
#include <vector>

#include "options/job_settings.hpp"

namespace distsim::options {

//! Builds the job the settings describe. Every option of the table is applied in table order
//! with its given value or its default, and these rules decide what has no default:
//! - without a cluster, the GPU (default a40) brings its default cluster;
//! - without strategy, tp, pp and dp, the strategy is 2M2P4D; given tp, pp or dp, the others are 1;
//! - without nodes, there are as many nodes as the parallel sizes need.
//! Throws InputError naming the setting's origin for values that conflict or cannot be resolved.
//! The job is not validated here (validate_job), so that a search can assemble a partial job.
strategy::JobSpec assemble_job(const JobSettings& settings, const SpecResolvers& resolve);

//! assemble_job, then validate_job with the settings' names, so that a rule about a setting names
//! the flag or key the user gave.
strategy::JobSpec assemble_valid_job(const JobSettings& settings, const SpecResolvers& resolve);

//! The job as settings, in table order: the value of every option that applies to the job, read
//! back from it, the parallel sizes one by one instead of the strategy notation. Assembling them
//! gives the same job when its model, GPU and cluster are the built-in entries they name.
std::vector<std::pair<std::string, Value>> describe_job(const strategy::JobSpec& job);

}  // namespace distsim::options
