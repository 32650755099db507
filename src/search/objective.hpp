#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "search/candidate.hpp"

namespace distsim::search {

//! A quantity the search minimizes. Time and cost differ only when candidates use different
//! numbers of GPUs (a search over several cluster sizes): the same global batch then takes each
//! candidate `iteration_time_s` but costs it `iteration_time_s` x its GPUs.
enum class Objective {
  time,    //!< iteration time (for a fixed global batch, also the time to train on any number of tokens)
  cost,    //!< GPU-hours per iteration (times a GPU-hour price, the money per iteration)
  memory,  //!< peak memory per GPU
  //! the expected wall time to train the goal's tokens, failures, checkpoints and restarts included
  //! (goodput::estimate_goodput with the job's run): more GPUs train faster but fail more often
  time_to_train,
};

//! "time", "cost", "memory", "time-to-train": the names `--objectives` takes.
const std::vector<std::string>& objective_names();
std::string_view to_string(Objective objective);
//! What an objective is called in headings: "iteration time", "expected time to train".
std::string_view objective_title(Objective objective);
//! The objective of that name; nullopt for an unknown name.
std::optional<Objective> parse_objective(std::string_view name);

//! How far the Pareto front reaches by default: candidates at most twice the best of the ranked
//! objective. The leanest candidates of a large space can be hundreds of times slower than the best
//! and are the costliest to simulate (ZeRO-3 with context parallelism across nodes), so a front of
//! every candidate would spend most of the search on points nobody picks to save memory.
inline constexpr double kDefaultFrontWithin = 2.0;

//! What the search ranks by (`rank`), the second objective of its Pareto front, and how far the
//! front reaches: candidates whose ranked objective is at most `front_within` times the best
//! (infinity: every candidate).
struct Objectives {
  Objective rank = Objective::time;
  Objective trade_off = Objective::memory;
  double front_within = kDefaultFrontWithin;
  bool front_is_limited() const;
};

//! The objectives of `--objectives A[,B]`: A ranks, the front trades A against B (memory when
//! only A is given, or time when A is memory). Throws InputError naming `flag`: an unknown name
//! (with the closest), more than two, or the same one twice.
Objectives parse_objectives(const std::vector<std::string>& names, const std::string& flag);

//! The reach of the front from `--front-within`: a factor of at least 1 (2, 1.5) or "all" for
//! every candidate (infinity). Throws InputError naming `flag` otherwise.
double parse_front_within(const std::string& text, const std::string& flag);

//! A simulated candidate's value of the objective (seconds, GPU-hours, bytes).
double objective_value(const Candidate& candidate, Objective objective);

//! A value no simulation of the candidate can come in under: the iteration time's lower bound
//! (Candidate::lower_bound_s) for time and cost; memory is known exactly before simulating.
double objective_bound(const Candidate& candidate, Objective objective);

//! What the user plans to train, for each candidate's time to train and money: both optional.
struct TrainingGoal {
  std::optional<double> tokens;          //!< tokens to train on (`--tokens`)
  std::optional<double> gpu_hour_price;  //!< money per GPU-hour (`--gpu-hour-price`), any currency
  //! The whole run: its failure rates, checkpoints and restarts, for the expected time to train.
  strategy::TrainingRun run;
};

//! The tokens, the price and the rest of a job's run (the goodput options).
TrainingGoal training_goal(const strategy::TrainingRun& run);

//! Tokens per second of a simulated candidate: its samples per second times the sequence length.
double tokens_per_s(const Candidate& candidate);
//! GPU-hours per iteration: its iteration time times its GPUs.
double gpu_hours_per_iteration(const Candidate& candidate);
//! Seconds to train on `tokens` tokens, and the GPU-hours that takes.
double time_to_train_s(const Candidate& candidate, double tokens);
double gpu_hours_to_train(const Candidate& candidate, double tokens);

}  // namespace distsim::search
