#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cluster/cluster_spec.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"
#include "strategy/training_run.hpp"
#include "strategy/variability.hpp"

namespace distsim::strategy {

//! Everything that defines one training job: what is trained, on what, and how.
struct JobSpec {
  model::ModelSpec model;
  cluster::ClusterSpec cluster;
  Strategy strategy;
  TrainingRun run;          //!< the run around the iterations, for the goodput estimate; no iteration reads it
  Variability variability;  //!< slow GPUs and kernel jitter (docs/variability.md)
};

//! How the user named each job setting, by its job-file key: "--fp8" or "job file 'a.yaml': key
//! fp8". A rule about one setting starts its message with that name; a setting not in the map is
//! named by its key.
using SettingNames = std::map<std::string, std::string, std::less<>>;
//! How the user named the setting with job-file key `key`, or the key when `names` lacks it.
std::string name_of(const SettingNames& names, const std::string& key);

//! Appends one sentence per rule of the job's pipeline schedule that the job breaks. The schedule
//! owns these rules (schedule::PipelineSchedule::check).
using ScheduleRules = std::function<void(const JobSpec& job, std::vector<std::string>& problems)>;

//! Checks every rule a job must satisfy before it is simulated, gathers all violations, those
//! of `schedule_rules` among them, and throws one InputError listing them. Callers use
//! schedule::validate_job, which passes the rules of the job's schedule.
void validate_job(const JobSpec& job, const ScheduleRules& schedule_rules, const SettingNames& names = {});
//! The message validate_job throws, or an empty string for a valid job: for callers that try
//! many jobs, without the cost of an exception for each invalid one.
std::string job_problems_message(const JobSpec& job, const ScheduleRules& schedule_rules,
                                 const SettingNames& names = {});

//! The rules about precision alone (fp8 GEMMs need bf16 and fp8 tensor cores), which hold for
//! every parallel split of a job: what breaks them, one message each, or nothing.
std::vector<std::string> precision_problems(const JobSpec& job, const SettingNames& names = {});

//! Megatron-Core's rules for combined 1F1B and for shared-expert overlap that `job` breaks, whether
//! or not it asks for them: what breaks them, one message each, or nothing. A search tries each
//! where nothing does.
std::vector<std::string> combined_1f1b_problems(const JobSpec& job, const SettingNames& names = {});
std::vector<std::string> shared_expert_overlap_problems(const JobSpec& job, const SettingNames& names = {});

//! The parts of `model` that the events do not produce work for (multi-token prediction after an
//! encoder): one sentence saying so, or nothing. A job whose model has any is refused rather than
//! simulated as the model it is not.
std::vector<std::string> unsimulated_features(const model::ModelSpec& model);

//! The parts of `job`'s model that sharding by `stage` is not modelled for (the experts' gradients
//! and parameters, multi-token prediction modules outside any FSDP unit): one message each, or
//! nothing. A memory remedy offers the deepest stage where nothing is.
std::vector<std::string> sharding_model_problems(const JobSpec& job, Sharding stage, const SettingNames& names = {});

//! Throws precision_problems as one InputError: a search checks them once before it tries any split.
void validate_precision(const JobSpec& job, const SettingNames& names = {});

}  // namespace distsim::strategy
