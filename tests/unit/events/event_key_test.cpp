#include "events/event_key.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "api/simulation.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "core/input_error.hpp"

namespace distsim::events {

namespace {

std::string error_of(std::string_view key) {
  try {
    parse_event_key(key);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

strategy::JobSpec job_on_two_nodes(const std::string& model, strategy::Strategy strategy,
                                   const std::string& cluster = "dgx-a100") {
  strategy::JobSpec job;
  job.model = catalog::find_model(model);
  job.cluster = catalog::find_cluster(cluster);
  job.cluster.num_hosts = 2;
  job.strategy = strategy;
  return job;
}

}  // namespace

TEST(ParseEventKey, ReadsAGemm) {
  const Event event = parse_event_key("gemm m=4096 n=3072 k=1024 bf16");
  EXPECT_EQ(event.event_class, EventClass::gemm);
  EXPECT_EQ(event.op, Operator::gemm);
  EXPECT_EQ(event.dim("m"), 4096);
  EXPECT_EQ(event.dim("n"), 3072);
  EXPECT_EQ(event.dim("k"), 1024);
  EXPECT_EQ(event.dtype, Dtype::bf16);
}

TEST(ParseEventKey, ReadsAnInterNodeCollective) {
  const Event event = parse_event_key("all_reduce bytes=8388608 group=16 inter per_node=8");
  EXPECT_EQ(event.event_class, EventClass::collective);
  EXPECT_EQ(event.collective, Collective::all_reduce);
  EXPECT_EQ(event.bytes, 8388608);
  EXPECT_EQ(event.group_size, 16);
  EXPECT_FALSE(event.within_domain);
  EXPECT_EQ(event.ranks_per_domain, 8);
}

TEST(ParseEventKey, ReadsAPointToPointTransfer) {
  const Event event = parse_event_key("send_recv bytes=1024 group=2 intra");
  EXPECT_EQ(event.event_class, EventClass::point_to_point);
  EXPECT_EQ(event.collective, Collective::send_recv);
  EXPECT_TRUE(event.within_domain);
}

// Context parallelism's ring step: 4 ranks, 2 per node over 2 nodes.
TEST(ParseEventKey, ReadsARingExchange) {
  const Event event = parse_event_key("ring_exchange bytes=4194304 group=4 inter per_node=2");
  EXPECT_EQ(event.event_class, EventClass::point_to_point);
  EXPECT_EQ(event.collective, Collective::ring_exchange);
  EXPECT_EQ(event.group_size, 4);
  EXPECT_FALSE(event.within_domain);
  EXPECT_EQ(event.ranks_per_domain, 2);
}

TEST(ParseEventKey, SuggestsTheClosestOperator) {
  EXPECT_NE(error_of("gemn m=1 n=2 k=3 bf16").find("unknown operator 'gemn'; did you mean 'gemm'?"), std::string::npos);
}

TEST(ParseEventKey, NamesTheFieldsAnOperatorTakes) {
  EXPECT_EQ(error_of("gemm m=1 n=2 bf16"), "operator 'gemm' takes m= n= k= and a dtype (4 fields), got 3");
  EXPECT_EQ(error_of("gemm m=1 x=2 k=3 bf16"), "operator 'gemm' takes m= n= k= and a dtype, got 'x=2'");
  EXPECT_EQ(error_of("gemm m=1 n=2 k=3 bf17"),
            "unknown dtype 'bf17'; did you mean 'bf16'? (known: fp32, bf16, fp16, fp8, mxfp8, nvfp4)");
  EXPECT_EQ(error_of("all_reduce bytes=8 group=2"),
            "operator 'all_reduce' takes bytes= group= and intra, or inter per_node=, got 'bytes=8 group=2'");
  EXPECT_EQ(error_of("gemm m=-1 n=2 k=3 bf16"), "'m=-1': m must be a whole number, got '-1'");
}

TEST(ParseEventKey, ChecksFlagsAndMinimums) {
  EXPECT_EQ(error_of("flash_attention_fwd b=1 heads=2 kv_heads=2 sq=8 skv=8 d=4 causal=2 bf16"),
            "'causal=2': causal must be 0 or 1");
  EXPECT_EQ(error_of("all_reduce bytes=8 group=1 intra"), "'group=1': operator 'all_reduce' needs group >= 2");
  EXPECT_EQ(error_of("send_recv bytes=0 group=2 intra"), "'bytes=0': operator 'send_recv' needs bytes >= 1");
  EXPECT_EQ(error_of("all_gather bytes=8 group=4 inter per_node=0"),
            "'per_node=0': operator 'all_gather' needs per_node >= 1");
}

TEST(ParseEventKey, RefusesWordsAfterTheLastField) {
  EXPECT_EQ(error_of("all_reduce bytes=8 group=2 intra per_node=2"),
            "operator 'all_reduce' takes bytes= group= and intra, or inter per_node=, got 'bytes=8 group=2 intra "
            "per_node=2'");
  EXPECT_EQ(error_of("all_reduce bytes=8 group=2 across"),
            "operator 'all_reduce' takes bytes= group= and intra, or inter per_node=, got 'bytes=8 group=2 across'");
  EXPECT_EQ(error_of("gelu rows=1 cols=2 bf16 bf16"),
            "operator 'gelu' takes rows= cols= and a dtype (3 fields), got 4");
}

TEST(ParseEventKey, RefusesKeysDistsimWouldWriteDifferently) {
  EXPECT_EQ(error_of("gemm m=01 n=2 k=3 bf16"),
            "the key is not written the way distsim writes it; expected 'gemm m=1 n=2 k=3 bf16'");
  EXPECT_EQ(error_of(""), "the event key is empty or starts with a space");
}

// Every event the generator emits must read back to the same key, or `db import` would refuse
// real profiles; and every operator the parser knows must be one the generator emits. The jobs
// cover GELU and SwiGLU MLPs, LayerNorm and RMSNorm, RoPE, an encoder-decoder, TP all-reduces,
// and with sequence parallelism and the distributed optimizer all-gathers and reduce-scatters,
// pipeline transfers, DP buckets and the optimizer step; the sharded jobs also run the unfused
// attention core; the fp8 jobs, on H100s, add TransformerEngine's quantization kernels; the
// context-parallel jobs add ring attention's K/V exchanges; the MoE models add the router,
// permutations and grouped GEMMs, and with expert parallelism the all-to-alls.
TEST(ParseEventKey, ReadsBackEveryEventOfBuiltInJobs) {
  strategy::Strategy plain;
  plain.tensor_parallel = 2;
  plain.pipeline_parallel = 2;
  plain.data_parallel = 4;
  plain.micro_batch_size = 1;
  plain.global_batch_size = 8;
  strategy::Strategy sharded = plain;
  sharded.sequence_parallel = true;
  sharded.distributed_optimizer = true;
  sharded.attention = strategy::Attention::unfused;  // batched GEMMs, softmax and dropout
  strategy::Strategy fp8 = plain;
  fp8.gemm_format = distsim::strategy::GemmFormat::fp8;
  strategy::Strategy mxfp8 = sharded;  // quantized sequence-parallel gathers
  mxfp8.gemm_format = distsim::strategy::GemmFormat::mxfp8;
  strategy::Strategy nvfp4 = sharded;
  nvfp4.gemm_format = distsim::strategy::GemmFormat::nvfp4;
  strategy::Strategy context = plain;  // 2M2C2P2D, the same 16 GPUs
  context.context_parallel = 2;
  context.data_parallel = 2;
  strategy::Strategy experts = sharded;  // MoE models only: dense ones refuse ep
  experts.expert_parallel = 2;
  strategy::Strategy latent = experts;  // latent attention runs only as fused attention
  latent.attention = strategy::Attention::flash;
  std::set<Operator> seen;
  const auto read_back = [&seen](const program::JobProgram& program) {
    for (events::EventId id = 0; id < program.events.size(); ++id) {
      const std::string key = program.events.at(id).key();
      EXPECT_EQ(parse_event_key(key).key(), key);
      EXPECT_EQ(parse_event_key(key).event_class, program.events.at(id).event_class) << key;
      seen.insert(program.events.at(id).op);
    }
  };
  int jobs = 0;
  for (const auto& model : catalog::model_names()) {
    for (const auto& split : {plain, sharded, fp8, mxfp8, nvfp4, context, experts, latent}) {
      SCOPED_TRACE(model);
      const char* cluster = split.gemm_format == distsim::strategy::GemmFormat::none  ? "dgx-a100"
                            : split.gemm_format == distsim::strategy::GemmFormat::fp8 ? "dgx-h100"
                                                                                      : "dgx-b200";
      strategy::JobSpec job = job_on_two_nodes(model, split, cluster);
      job.model.num_layers = std::min(job.model.num_layers, 4);
      if (!job.model.hybrid_pattern.empty()) {  // a hybrid pattern names every layer
        job.model.hybrid_pattern.resize(static_cast<std::size_t>(job.model.num_layers));
      }
      job.model.decoder_num_layers = std::min(job.model.decoder_num_layers, 4);
      program::JobProgram program;
      try {
        program = api::job_events(job);
      } catch (const InputError&) {
        continue;  // a model this split does not fit (heads not divisible by 2, say)
      }
      ++jobs;
      read_back(program);
    }
  }
  for (const auto& activation : model::kFfnTypes) {  // the MLP activations no built-in model has
    strategy::JobSpec job = job_on_two_nodes("gpt2-345m", plain, "dgx-a100");
    job.model.num_layers = 4;
    job.model.ffn_type = activation.type;
    read_back(api::job_events(job));
  }
  EXPECT_GE(jobs, 6);
  for (const auto& spec : operator_table()) {
    EXPECT_TRUE(seen.count(spec.op)) << spec.name << " is never generated";
  }
}

}  // namespace distsim::events

namespace distsim::events {

// A compute event on a cluster's second GPU type is another event than the same shape on the
// first: its key ends with gpu=N, its identity differs, and the key reads back into it.
TEST(EventKeyGpuType, WritesReadsAndTellsApartTheGpuType) {
  Event event = parse_event_key("gemm m=4096 n=3072 k=1024 bf16");
  const EventIdentity first_type = event_identity(event);
  event.gpu_type = 2;
  EXPECT_EQ(event.key(), "gemm m=4096 n=3072 k=1024 bf16 gpu=2");
  EXPECT_FALSE(event_identity(event) == first_type);
  const Event read = parse_event_key("gemm m=4096 n=3072 k=1024 bf16 gpu=2");
  EXPECT_EQ(read.gpu_type, 2);
  EXPECT_TRUE(event_identity(read) == event_identity(event));
}

TEST(EventKeyGpuType, RefusesTypeZeroWrittenOut) {
  EXPECT_NE(error_of("gemm m=1 n=1 k=1 bf16 gpu=0").find("gpu must be a whole number of at least 1"),
            std::string::npos);
}

}  // namespace distsim::events
