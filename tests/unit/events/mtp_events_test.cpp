#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "built_rank_work.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "events/job_events.hpp"
#include "model/parameter_count.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::events {

namespace {

// DeepSeek-V3's shape cut to one decoder layer and its one MTP module, whose layer (numbered 1,
// one of the first three) is a dense one: latent attention and a SwiGLU MLP of 18432. One
// 4096-token sequence per micro-batch, bf16, one rank.
strategy::JobSpec mtp_job() {
  strategy::JobSpec job;
  job.model = catalog::find_model("deepseek-v3");
  job.model.num_layers = 1;
  job.model.seq_length = 4096;
  job.cluster = catalog::find_cluster("dgx-h100");
  job.cluster.num_hosts = 1;
  job.cluster.gpus_per_host = 1;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 1;
  return job;
}

}  // namespace

// After the main head: the shifted tokens' embedding, the two norms, eh_proj, the module's layer,
// and the shared head and loss once more.
TEST(MtpEvents, ModuleRunsAfterTheHeadInMegatronsOrder) {
  const Built built = build(mtp_job());
  std::vector<std::string> labels;
  bool after_head = false;
  for (const auto& step : built.chunk().forward) {
    after_head = after_head || step.label == "loss";
    if (after_head && step.layer == 1 && step.label.rfind("mtp", 0) == 0) labels.emplace_back(step.label);
  }
  const std::vector<std::string> expected = {"mtp embedding",  "mtp enorm",   "mtp hnorm", "mtp eh proj",
                                             "mtp final norm", "mtp lm head", "mtp loss"};
  EXPECT_EQ(labels, expected);
}

// The module's forward FLOPs, T = 4096 tokens:
//   eh_proj  2·4096·7168·14336                        =   841813590016
//   latent attention projections 2·4096·187105280     =  1532766453760
//   attention core (causal) 2·128·4096²·0.5·(192+128) =   687194767360
//   SwiGLU MLP 2·4096·(7168·36864 + 18432·7168)       =  3246995275776
//   LM head 2·4096·129280·7168 (129280 = 1010·128)    =  7591354695680
//   sum                                                = 13900124782592
// = 2·4096·(102760448 + 187105280 + 396361728 + 926679040) + 687194767360, the module's GEMM
// weights (eh_proj 2h·h, attention, MLP, head) twice per token plus the core.
TEST(MtpEvents, ForwardFlopsOfOneModuleByHand) {
  const Built built = build(mtp_job());
  double flops = 0;
  for (const auto& step : built.chunk().forward) {
    if (step.layer == 1) flops += built.table.at(step.event).flops;
  }
  EXPECT_DOUBLE_EQ(flops, 13900124782592.0);
  for (const auto& step : built.chunk().forward) {
    if (step.label == "mtp eh proj") {
      EXPECT_EQ(built.table.at(step.event).key(), "gemm m=4096 n=7168 k=14336 bf16");
    }
  }
}

// Backward runs both gradients of each of the module's GEMMs (eh_proj, five attention
// projections, FC1, FC2, the head): twice the forward's GEMM FLOPs, 2·(13900124782592 −
// 687194767360) = 26425860030464, plus the core's 2147483648·832 = 1786706395136.
TEST(MtpEvents, BackwardFlopsOfOneModule) {
  const Built built = build(mtp_job());
  double flops = 0;
  for (const auto& step : built.chunk().backward) {
    if (step.layer == 1) flops += built.table.at(step.event).flops;
  }
  EXPECT_DOUBLE_EQ(flops, 26425860030464.0 + 1786706395136.0);
}

// One rank holds the whole model, so its parameters are the model's count with the MTP module.
TEST(MtpEvents, TheModulesParametersAreTheRanks) {
  const auto job = mtp_job();
  const Built built = build(job);
  EXPECT_EQ(built.work.parameters, model::total_parameters(job.model));
}

}  // namespace distsim::events
