#pragma once

#include <memory>
#include <string>

#include "strategy/job_spec.hpp"

namespace distsim::search {

enum class CandidateStatus {
  ok,             //!< simulated
  out_of_memory,  //!< valid but its peak memory exceeds the GPU's; not simulated unless asked
  invalid,        //!< breaks a rule of the model or the strategy; never simulated
  //! valid and fits, not simulated: its lower bound on iteration time already loses to the k-th
  //! best and to a simulated candidate that needs no more memory, so it can be neither in the
  //! top k nor on the Pareto front
  pruned,
};

const char* to_string(CandidateStatus status);

//! What the candidates of one cluster size share: a search varies the strategy only, so each
//! candidate points to one copy of these instead of holding its own (a search of a million
//! candidates would otherwise hold a million copies of the model's and GPU's descriptions).
struct ModelOnCluster {
  model::ModelSpec model;
  cluster::ClusterSpec cluster;
};

//! One point of the search space and what the search learned about it.
struct Candidate {
  std::shared_ptr<const ModelOnCluster> setting;
  strategy::Strategy strategy;
  CandidateStatus status = CandidateStatus::ok;
  //! Why it is invalid, out of memory or pruned; none otherwise. Candidates with one reason share
  //! its text (a search of a million candidates may give hundreds of thousands the same one).
  std::shared_ptr<const std::string> reason_text;
  bool simulated = false;
  double iteration_time_s = 0;
  double samples_per_s = 0;
  double mfu = 0;
  double bubble_fraction = 0;
  double peak_memory_bytes = 0;
  double lower_bound_s = 0;  //!< bound::iteration_lower_bound, for valid candidates that fit
  //! With the goal's tokens: the expected time to train them, failures and checkpoints included
  //! (Objective::time_to_train), once simulated; and the time at the lower bound without any, which
  //! no simulation comes in under.
  double time_to_train_s = 0;
  double time_to_train_bound_s = 0;
  bool pareto = false;  //!< on the front of iteration time versus peak memory

  //! reason_text, or an empty text when there is none.
  const std::string& reason() const;
  const model::ModelSpec& model() const { return setting->model; }
  const cluster::ClusterSpec& cluster() const { return setting->cluster; }
  //! The whole job: a copy of the shared model and cluster with the candidate's strategy (the
  //! run around it, which no candidate differs in, is the search's TrainingGoal).
  strategy::JobSpec job() const { return {setting->model, setting->cluster, strategy, {}, {}}; }
  double iterations_per_s() const { return iteration_time_s > 0 ? 1.0 / iteration_time_s : 0.0; }
  //! "2M8P1D mbs 1 1f1b" (with the expert parallel size for an MoE model: "2M8P1D ep 2 mbs 1
  //! 1f1b"), plus the virtual stages, recomputation, sequence parallelism and distributed
  //! optimizer when they are on: "4M2C4P8D mbs 1 interleaved v5 sp distopt".
  std::string label() const;
};

//! A candidate for `job` (not yet evaluated) with a setting of its own.
Candidate candidate_for(const strategy::JobSpec& job);

}  // namespace distsim::search
