#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "catalog/builtin_clusters.hpp"
#include "cost/fixed_cost_model.hpp"
#include "engine/engine.hpp"
#include "program/job_program.hpp"
#include "program/pipeline_passes.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::program {

using events::StreamKind;
using events::TaskTemplate;
using schedule::Overlap;
using schedule::Step;
using schedule::StepKind;

namespace {

TaskTemplate compute(int waits_for = -1) {
  TaskTemplate step;
  step.waits_for = waits_for;
  return step;
}

TaskTemplate communication(StreamKind stream) {
  TaskTemplate step;
  step.stream = stream;
  return step;
}

//! One stage: F0, F1, then B0 (a full backward), overlapping F1 as `overlap` says, then B1.
class PairSchedule : public schedule::PipelineSchedule {
 public:
  explicit PairSchedule(Overlap overlap) : overlap_(overlap) {}
  using PipelineSchedule::steps;
  std::string_view name() const override { return "pair"; }
  std::string_view description() const override { return "F0 F1&B0 B1"; }
  std::vector<Step> steps(int /*stage*/, int /*num_stages*/, int /*num_microbatches*/,
                          int /*num_chunks*/) const override {
    return {
        {StepKind::forward, 0}, {StepKind::forward, 1}, {StepKind::backward, 0, 0, overlap_}, {StepKind::backward, 1}};
  }
  double microbatches_in_flight(int /*stage*/, int /*num_stages*/, int /*num_microbatches*/,
                                int /*num_chunks*/) const override {
    return 2;
  }

 private:
  Overlap overlap_;
};

//! One layer (h 256, 8 heads, FFN 1024, vocabulary 1024, s 128) on one stage of two
//! tensor-parallel ranks, two micro-batches.
strategy::JobSpec one_layer_on_two_tensor_ranks() {
  strategy::JobSpec job;
  job.model.name = "one-layer";
  job.model.num_layers = 1;
  job.model.hidden_size = 256;
  job.model.num_attention_heads = 8;
  job.model.num_kv_heads = 8;
  job.model.ffn_hidden_size = 1024;
  job.model.vocab_size = 1024;
  job.model.seq_length = 128;
  job.cluster = catalog::find_cluster("pcie-a40");
  job.cluster.gpus_per_host = 2;
  job.cluster.num_hosts = 1;
  job.strategy.tensor_parallel = 2;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 2;
  job.strategy.schedule = "pair";
  return job;
}

}  // namespace

// A layer's forward under tensor and expert parallelism, by hand: QKV (0), attention output (1),
// the tensor all-reduce (2), the router (3) waiting for it, the dispatch all-to-all (4), the
// experts (5) waiting for it, the combine (6), the unpermute (7) waiting for it, the residual
// add (8). Segments end before 3, 5 and 7, and at the end: {3, 5, 7, 9}. The parameters'
// all-gather (sharding zero3) splits it as well: a compute waiting for one starts a segment.
TEST(OverlappedPasses, SegmentsEndBeforeEachWaitOnCommunication) {
  const std::vector<TaskTemplate> layer{compute(),
                                        compute(),
                                        communication(StreamKind::tp_comm),
                                        compute(2),
                                        communication(StreamKind::ep_comm),
                                        compute(4),
                                        communication(StreamKind::ep_comm),
                                        compute(6),
                                        compute()};
  EXPECT_EQ(segment_ends(layer, Overlap::communication), (std::vector<size_t>{3, 5, 7, 9}));
  std::vector<TaskTemplate> gathered{communication(StreamKind::dp_comm), compute(), compute()};
  gathered[1].waits_for_parameters = 0;
  EXPECT_EQ(segment_ends(gathered, Overlap::communication), (std::vector<size_t>{1, 3}));
  // A compute waiting for another compute does not split.
  EXPECT_EQ(segment_ends({compute(), compute(0)}, Overlap::communication), (std::vector<size_t>{2}));
  EXPECT_TRUE(segment_ends({}, Overlap::communication).empty());
  // Combined 1F1B hides the expert exchanges only: the router waits for the tensor all-reduce
  // inside its segment. A pass that is not overlapped is one segment.
  EXPECT_EQ(segment_ends(layer, Overlap::expert_exchange), (std::vector<size_t>{5, 7, 9}));
  EXPECT_EQ(segment_ends(layer, Overlap::none), (std::vector<size_t>{9}));
}

// F with segments ending at 3, 5, 9; B at 4, 8; W at 2: F's first, then the backward side's
// (B's, then W's) in turn: F 3, B 4, F 5, B 8, F 9, W 2.
TEST(OverlappedPasses, AlternatesTheForwardWithTheFullBackward) {
  using Order = std::vector<std::pair<size_t, size_t>>;
  EXPECT_EQ(overlapped_order({{3, 5, 9}, {4, 8}, {2}}, Overlap::communication),
            (Order{{0, 3}, {1, 4}, {0, 5}, {1, 8}, {0, 9}, {2, 2}}));
  // One segment each: F, then B, then W, as if run one after another.
  EXPECT_EQ(overlapped_order({{6}, {7}, {3}}, Overlap::communication), (Order{{0, 6}, {1, 7}, {2, 3}}));
  // Combined 1F1B's pair starts with the backward's segment: B 4, F 3, B 8, F 5, F 9.
  EXPECT_EQ(overlapped_order({{3, 5, 9}, {4, 8}}, Overlap::expert_exchange),
            (Order{{1, 4}, {0, 3}, {1, 8}, {0, 5}, {0, 9}}));
}

// Only the attention (1 ms forward, 1 ms backward) and every tensor all-reduce (1 ms, in order
// on the tensor stream) cost time. The pass templates (docs/events.md, tensor parallelism without
// sequence parallelism) are, forward: embedding, AR (1), norm waiting for it, QKV, attention,
// output, AR (6), add waiting for it, norm, fc1, GELU, fc2, AR (12), add waiting for it, final
// norm, LM head, loss, and the loss's three ARs (17-19); backward: loss, LM head dgrad, AR (2),
// LM head wgrad, final norm waiting for 2, add, fc2 dgrad and wgrad, GELU, fc1 dgrad, AR (10), fc1
// wgrad, norm waiting for 10, add, output dgrad and wgrad, attention, QKV dgrad, AR (18), QKV
// wgrad, norm waiting for 18, embedding.
// Alone, F takes 7 ms (AR, attention, AR, AR, then the loss's three) and a backward 4 ms (AR,
// AR, attention, AR): F0 F1 B0 B1 in a row take 7 + 7 + 4 + 4 = 22 ms.
// F1&B0 from 7 ms, by hand (segments F[0,2) B[0,4) F[2,7) B[4,12) F[7,13) B[12,20) F[13,20)
// B[20,22)): F's AR 7-8; B's AR 8-9 (the stream is busy); F's attention 8-9, its AR 9-10; B's AR
// 10-11; F's AR 11-12; B's attention 11-12 and AR 12-13; F's loss ARs 13-16; B's last segment at
// 13, its last task waiting for F's at 16. B1 then runs 16-20: 20 ms, 2 ms less, as each side's
// all-reduces ran under the other side's computation or its own.
// Overlapped as combined 1F1B's pairs are, hiding only expert exchanges, each side is one segment:
// F1 7-14, B0's first all-reduce waits for F1's last on the tensor stream, B0 14-18, B1 18-22:
// 22 ms, as in a row.
TEST(OverlappedPasses, AForwardAndABackwardHideEachOthersCommunication) {
  const cost::FixedCostModel costs(
      std::map<std::string, SimTime>{
          {"flash_attention_fwd", 1'000'000}, {"flash_attention_bwd", 1'000'000}, {"all_reduce", 1'000'000}},
      0, 0);
  for (const auto all_ranks :
       {SimulatedRanks::one_per_stage, SimulatedRanks::every_rank_by_class, SimulatedRanks::every_rank_alone}) {
    for (const bool aggregate : {false, true}) {
      const auto makespan = [&](Overlap overlap) {
        const auto built =
            build_job_program(one_layer_on_two_tensor_ranks(), PairSchedule(overlap), costs, all_ranks, aggregate);
        return engine::run(built.program).makespan;
      };
      EXPECT_EQ(makespan(Overlap::none), 22'000'000) << static_cast<int>(all_ranks) << aggregate;
      EXPECT_EQ(makespan(Overlap::communication), 20'000'000) << static_cast<int>(all_ranks) << aggregate;
      EXPECT_EQ(makespan(Overlap::expert_exchange), 22'000'000) << static_cast<int>(all_ranks) << aggregate;
    }
  }
}

}  // namespace distsim::program
