#include "events/layer_memo.hpp"

#include <gtest/gtest.h>

#include <string>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "core/input_error.hpp"
#include "events/job_events.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::events {

namespace {

using strategy::JobSpec;

//! Strategies that reach every property a layer's work varies with: sequence parallelism, full
//! and selective recomputation, fp8 GEMMs with bf16 layers at both ends, each context-parallel
//! communication type, expert parallelism, ZeRO-3's parameter gathers, interleaved chunks.
std::vector<JobSpec> variants(const model::ModelSpec& model) {
  std::vector<JobSpec> jobs;
  const auto add = [&](auto&& set) {
    JobSpec job;
    job.model = model;
    job.cluster = catalog::find_cluster("dgx-h100");
    job.cluster.num_hosts = 64;
    job.strategy.micro_batch_size = 1;
    job.strategy.pipeline_parallel = 2;
    set(job.strategy);
    job.strategy.data_parallel =
        512 / (job.strategy.tensor_parallel * job.strategy.pipeline_parallel * job.strategy.context_parallel);
    job.strategy.global_batch_size = job.strategy.data_parallel * 8;
    if (schedule::job_problems_message(job).empty()) jobs.push_back(job);
  };
  // Experts spread over 8 ranks where the model has them; MoE layers with tensor parallelism need
  // sequence parallelism, and ZeRO-3 is modelled for dense models.
  const int experts = model.moe.num_experts > 0 ? 8 : 1;
  add([&](strategy::Strategy& s) {
    s.tensor_parallel = 2;
    s.sequence_parallel = true;
    s.expert_parallel = experts;
    s.recompute = strategy::Recompute::full;
    s.gemm_format = strategy::GemmFormat::fp8;
    s.bf16_layers_at_start = 1;
    s.bf16_layers_at_end = 1;
  });
  for (const auto type : {strategy::CpCommType::p2p, strategy::CpCommType::a2a, strategy::CpCommType::allgather,
                          strategy::CpCommType::a2a_p2p}) {
    add([&](strategy::Strategy& s) {
      s.tensor_parallel = 2;
      s.sequence_parallel = true;
      s.context_parallel = 4;
      s.cp_comm_type = type;
      s.cp_a2a_size = type == strategy::CpCommType::a2a_p2p ? 2 : 1;
      s.expert_parallel = experts;
      s.recompute = strategy::Recompute::selective;
    });
  }
  add([&](strategy::Strategy& s) {
    s.tensor_parallel = 1;
    s.pipeline_parallel = 4;
    s.expert_parallel = experts;
    s.sharding = experts > 1 ? strategy::Sharding::optimizer : strategy::Sharding::full;
  });
  add([&](strategy::Strategy& s) {
    s.tensor_parallel = 4;
    s.sequence_parallel = true;
    s.expert_parallel = experts;
    s.schedule = "interleaved";
    s.virtual_stages = 2;
  });
  return jobs;
}

//! Every stage's work in one table, built with a memo shared by the stages or without one.
std::vector<RankWork> every_stage(const JobSpec& job, EventTable& table, LayerMemo* memo) {
  const strategy::RankLayout layout(job.strategy, job.cluster);
  const auto placements =
      schedule::find_schedule(job.strategy.schedule).all_stage_chunk_placements(job.model, job.strategy);
  std::vector<RankWork> work;
  for (int stage = 0; stage < job.strategy.pipeline_parallel; ++stage) {
    const strategy::RankCoord coord{{strategy::ParallelDim::pp, stage}};
    work.push_back(build_rank_work(job, layout, coord, placements[static_cast<size_t>(stage)], table, memo));
  }
  return work;
}

}  // namespace

// The memo's premise, checked on every built-in model: a layer's templates depend on the layer
// only through its LayerShape. Built with and without the memo, every stage's passes are equal
// template by template, and the tables hold the same events under the same ids.
TEST(LayerMemo, CopiedLayersEqualBuiltOnesOnEveryModel) {
  int jobs = 0;
  for (const auto& model : catalog::builtin_models()) {
    const auto model_jobs = variants(model);
    EXPECT_FALSE(model_jobs.empty()) << model.name;
    for (const JobSpec& job : model_jobs) {
      ++jobs;
      EventTable built_table;
      EventTable copied_table;
      LayerMemo memo(copied_table);
      const auto built = every_stage(job, built_table, nullptr);
      const auto copied = every_stage(job, copied_table, &memo);
      const std::string what = model.name + " " + job.strategy.notation() + " cp " +
                               std::to_string(job.strategy.context_parallel) + " " + job.strategy.schedule;
      ASSERT_EQ(built_table.size(), copied_table.size()) << what;
      for (EventId id = 0; id < built_table.size(); ++id) {
        ASSERT_EQ(built_table.at(id).key(), copied_table.at(id).key()) << what;
      }
      for (size_t stage = 0; stage < built.size(); ++stage) {
        ASSERT_EQ(built[stage].chunks.size(), copied[stage].chunks.size()) << what;
        for (size_t chunk = 0; chunk < built[stage].chunks.size(); ++chunk) {
          const ChunkWork& a = built[stage].chunks[chunk];
          const ChunkWork& b = copied[stage].chunks[chunk];
          EXPECT_EQ(a.forward, b.forward) << what << " stage " << stage << " chunk " << chunk;
          EXPECT_EQ(a.backward, b.backward) << what << " stage " << stage << " chunk " << chunk;
          EXPECT_EQ(a.backward_input, b.backward_input) << what << " stage " << stage << " chunk " << chunk;
          EXPECT_EQ(a.backward_weight, b.backward_weight) << what << " stage " << stage << " chunk " << chunk;
        }
      }
    }
  }
  // 26 models x 7 variants, 133 of which are valid: left out are the ones a model cannot run
  // (context parallelism on T5, latent or sliding-window attention or Mamba layers, four chunks of
  // 61, 94 or 126 layers, interleaving T5 or a hybrid model).
  EXPECT_EQ(jobs, 133);
}

// Under ZeRO-3 every layer's first compute step waits for its unit's parameter gather. The memo
// still copies them: gpt2-345m's 24 layers on one stage, without tensor parallelism, record one
// forward layer (the embedding leaves no communication pending: tp 1) and one backward layer; the
// other 23 of each pass are copies. The copies equal built layers (the test above, ZeRO-3 variant).
TEST(LayerMemo, CopiesLayersThatWaitForAParameterGather) {
  JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.cluster = catalog::find_cluster("dgx-a100");
  job.strategy.data_parallel = 8;
  job.strategy.global_batch_size = 8;
  job.strategy.sharding = strategy::Sharding::full;
  EventTable table;
  LayerMemo memo(table);
  every_stage(job, table, &memo);
  EXPECT_EQ(memo.size(), 2U);
}

TEST(LayerMemo, ServesOnlyItsOwnTable) {
  JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.cluster = catalog::find_cluster("dgx-a100");
  EventTable table;
  EventTable other;
  LayerMemo memo(other);
  try {
    PassBuilder builder(job, LayerGroups{}, table, &memo);
    FAIL();
  } catch (const InternalError& e) {
    EXPECT_STREQ(e.what(), "a layer memo serves the event table its event ids belong to");
  }
}

}  // namespace distsim::events
