#include "search/objective.hpp"

#include <gtest/gtest.h>

#include "catalog/builtin_clusters.hpp"
#include "core/input_error.hpp"

namespace distsim::search {

namespace {

//! 2 nodes x 8 GPUs, sequence 4096, 32 samples per second at 2 s per iteration (global batch 64).
Candidate simulated_candidate() {
  strategy::JobSpec job;
  job.cluster = catalog::find_cluster("dgx-h100");
  job.cluster.num_hosts = 2;
  job.model.seq_length = 4096;
  Candidate candidate = candidate_for(job);
  candidate.simulated = true;
  candidate.iteration_time_s = 2.0;
  candidate.samples_per_s = 32.0;
  candidate.peak_memory_bytes = 5e10;
  candidate.lower_bound_s = 1.5;
  return candidate;
}

TEST(Objective, TrainingFiguresByHand) {
  const Candidate candidate = simulated_candidate();
  // 32 samples/s x 4096 tokens = 131,072 tokens/s.
  EXPECT_DOUBLE_EQ(tokens_per_s(candidate), 131072.0);
  // 2 s x 16 GPUs = 32 GPU-seconds = 32/3600 GPU-hours.
  EXPECT_DOUBLE_EQ(gpu_hours_per_iteration(candidate), 32.0 / 3600.0);
  // 1e9 tokens / 131,072 tokens/s = 7629.39453125 s; x 16 GPUs / 3600 = 33.908420138... GPU-hours.
  EXPECT_DOUBLE_EQ(time_to_train_s(candidate, 1e9), 7629.39453125);
  EXPECT_DOUBLE_EQ(gpu_hours_to_train(candidate, 1e9), 7629.39453125 * 16.0 / 3600.0);
}

// An encoder-decoder model's sample counts its decoder's tokens, as simulate's summary does: 32
// samples/s x 512 decoder tokens, whatever the encoder's 4096.
TEST(Objective, AnEncoderDecoderSampleIsItsDecodersTokens) {
  strategy::JobSpec job = simulated_candidate().job();
  job.model.architecture = model::Architecture::encoder_decoder;
  job.model.decoder_seq_length = 512;
  Candidate encoder_decoder = candidate_for(job);
  encoder_decoder.samples_per_s = 32.0;
  EXPECT_DOUBLE_EQ(tokens_per_s(encoder_decoder), 32.0 * 512);
}

TEST(Objective, ValuesAndBoundsPerObjective) {
  const Candidate candidate = simulated_candidate();
  EXPECT_DOUBLE_EQ(objective_value(candidate, Objective::time), 2.0);
  EXPECT_DOUBLE_EQ(objective_value(candidate, Objective::cost), 32.0 / 3600.0);
  EXPECT_DOUBLE_EQ(objective_value(candidate, Objective::memory), 5e10);
  // The bound scales the iteration time's lower bound the same way: 1.5 s x 16 GPUs / 3600.
  EXPECT_DOUBLE_EQ(objective_bound(candidate, Objective::time), 1.5);
  EXPECT_DOUBLE_EQ(objective_bound(candidate, Objective::cost), 24.0 / 3600.0);
  EXPECT_DOUBLE_EQ(objective_bound(candidate, Objective::memory), 5e10);
}

TEST(Objective, ParsesOneOrTwoNames) {
  const Objectives cost = parse_objectives({"cost"}, "--objectives");
  EXPECT_EQ(cost.rank, Objective::cost);
  EXPECT_EQ(cost.trade_off, Objective::memory);
  const Objectives memory = parse_objectives({"memory"}, "--objectives");
  EXPECT_EQ(memory.trade_off, Objective::time);
  const Objectives pair = parse_objectives({"time", "cost"}, "--objectives");
  EXPECT_EQ(pair.rank, Objective::time);
  EXPECT_EQ(pair.trade_off, Objective::cost);
}

std::string parse_error(const std::vector<std::string>& names) {
  try {
    parse_objectives(names, "--objectives");
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST(Objective, RefusesUnknownRepeatedAndTooMany) {
  EXPECT_EQ(parse_error({"tme"}),
            "--objectives: unknown objective 'tme'; did you mean 'time'? (known: time, cost, memory, time-to-train)");
  EXPECT_EQ(parse_error({"cost", "cost"}),
            "--objectives: 'cost' given twice; the Pareto front needs two different objectives");
  EXPECT_EQ(parse_error({"time", "cost", "memory"}), "--objectives: expected one or two of time, cost, memory, "
                                                     "time-to-train (the first ranks, the Pareto front trades it "
                                                     "against the second), got 3");
}

}  // namespace

}  // namespace distsim::search
