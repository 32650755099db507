#include <cstdint>
#include <limits>
#include <string>

#include "options/option_builders.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::options::table {

namespace {

//! Virtual stages left free: for a schedule with a fixed number of chunks per stage (one, or the
//! two of a V schedule), that number; for one that takes any number (interleaved), every count of
//! at least two that splits each stage's layers into equal chunks.
std::vector<Value> free_virtual_stages(const JobSpec& job) {
  const auto& schedule = schedule::find_schedule(job.strategy.schedule);
  if (schedule.chunks_per_stage(3) != 3) return {schedule.chunks_per_stage(1)};
  const int stages = job.strategy.pipeline_parallel;
  std::vector<Value> counts;
  for (int chunks = 2; chunks * stages <= job.model.num_layers; ++chunks) {
    if (job.model.num_layers % (chunks * stages) == 0) counts.emplace_back(chunks);
  }
  return counts;
}

//! Sharding left free: none, and where there is a data-parallel group to shard over and the
//! candidate has no distributed optimizer (ZeRO-1, which that setting already tries), ZeRO-2 and
//! ZeRO-3 where they are modelled for the model and the schedule (their per-layer reductions need
//! the weight gradients in the backward step).
std::vector<Value> free_sharding_stages(const JobSpec& job) {
  using strategy::Sharding;
  std::vector<Value> stages{std::string("none")};
  if (job.strategy.distributed_optimizer || job.strategy.gradient_group_size() <= 1 ||
      schedule::defers_weight_gradients(schedule::find_schedule(job.strategy.schedule))) {
    return stages;
  }
  for (const Sharding stage : {Sharding::gradients, Sharding::full}) {
    if (strategy::sharding_model_problems(job, stage).empty()) {
      stages.emplace_back(std::string(strategy::to_string(stage)));
    }
  }
  return stages;
}

//! ZeRO-1 in Megatron's words. A job with --sharding zero2 or zero3 echoes that instead, so
//! that the echo names one stage once.
JobOption distributed_optimizer_option() {
  JobOption option =
      strategy_boolean("distributed_optimizer", "--distributed-optimizer", &Strategy::distributed_optimizer,
                       "ZeRO-1 as Megatron's distributed optimizer: reduce-scatter gradients, update 1/dp "
                       "of the parameters, all-gather them (the same as --sharding zero1)");
  option.applies = [](const JobSpec& job) { return job.strategy.sharding == strategy::Sharding::none; };
  option.excludes = {"sharding"};
  option.search_values = both_when([](const JobSpec& job) { return job.strategy.data_parallel > 1; });
  return option;
}

JobOption sharding_option() {
  using strategy::Sharding;
  JobOption option = strategy_choice<Sharding>(
      "sharding", "--sharding", "sharding", &Strategy::sharding,
      {{"none", Sharding::none},
       {"zero1", Sharding::optimizer},
       {"zero2", Sharding::gradients},
       {"zero3", Sharding::full}},
      "sharded data parallelism by ZeRO stage: zero1 optimizer states (Megatron --use-distributed-optimizer, "
      "DeepSpeed stage 1), zero2 also gradients (DeepSpeed stage 2, Megatron-FSDP optim_grads), zero3 also "
      "parameters, gathered layer by layer (PyTorch FSDP2 fully_shard, Megatron-FSDP optim_grads_params, "
      "DeepSpeed stage 3); a search left free tries zero2 and zero3 beside --distributed-optimizer's none and "
      "zero1, and listed stages in place of it (--sharding none,zero1,zero2,zero3)");
  option.applies = [](const JobSpec& job) { return job.strategy.sharding != Sharding::none; };
  // DeepSpeed's stage names, PyTorch FSDP's sharding strategies and fully_shard, Megatron-FSDP's
  // data_parallel_sharding_strategy values.
  option.value_aliases = {
      {"zero stage 0", "none"},   {"no_shard", "none"},           {"zero stage 1", "zero1"}, {"optim", "zero1"},
      {"zero stage 2", "zero2"},  {"shard_grad_op", "zero2"},     {"optim_grads", "zero2"},  {"zero stage 3", "zero3"},
      {"full_shard", "zero3"},    {"fully_shard", "zero3"},       {"fsdp", "zero3"},         {"fsdp2", "zero3"},
      {"megatron-fsdp", "zero3"}, {"optim_grads_params", "zero3"}};
  option.unmodelled_values = {{"zero-infinity", "(parameters and states offloaded to CPU or NVMe) is not modelled"},
                              {"zero-offload", "(optimizer states offloaded to CPU memory) is not modelled"},
                              {"zero++", "(quantized and hierarchical ZeRO collectives) is not modelled"}};
  option.excludes = {"distributed_optimizer"};
  option.search_values = free_sharding_stages;
  return option;
}

JobOption shard_group_option() {
  JobOption option = strategy_integer(
      "shard_group_size", "--shard-group-size", &Strategy::shard_group, "",
      "HSDP with sharding zero3: ranks that shard parameters together, replicated "
      "across groups (FSDP2 dp_shard x cp; default: all dp x cp ranks); a search tries several when they are "
      "listed, or all, every valid group");
  option.read = [](const JobSpec& job) -> Value { return job.strategy.shard_group_size(); };
  option.applies = [](const JobSpec& job) {
    return job.strategy.sharding == strategy::Sharding::full || job.strategy.shard_group > 0;
  };
  // Every shard group of two or more ranks that is whole cp groups times a divisor of dp, for a
  // ZeRO-3 candidate; none (the default) for the others. Each group size multiplies the ZeRO-3
  // candidates, the costliest to simulate: a search tries them when asked.
  option.search_values = [](const JobSpec& job) {
    const Strategy& s = job.strategy;
    std::vector<Value> groups;
    for (int divisor = 1; s.sharding == strategy::Sharding::full && divisor <= s.data_parallel; ++divisor) {
      if (s.data_parallel % divisor == 0 && divisor * s.context_parallel > 1) {
        groups.emplace_back(divisor * s.context_parallel);
      }
    }
    return groups.empty() ? std::vector<Value>{0} : groups;
  };
  option.searched_when_listed = true;
  return option;
}

JobOption host_time_option() {
  using strategy::HostTime;
  return strategy_choice<HostTime>(
      "host_time", "--host-time", "host time", &Strategy::host_time,
      {{"modelled", HostTime::modelled}, {"none", HostTime::none}},
      "the host thread that issues the kernels: modelled (each kernel waits for its launch, priced as PyTorch "
      "eager mode with TransformerEngine modules on a DGX H100 host, and the host waits where the framework reads "
      "a result back; docs/host_time.md) or none (the GPU never waits for the host)");
}

}  // namespace

std::vector<JobOption> feature_options() {
  using strategy::Recompute;
  JobOption bucket = strategy_integer("gradient_bucket_size", "--gradient-bucket-size", &Strategy::dp_bucket_params, "",
                                      "gradient bucket size in parameters (default: Megatron's max(40M, 1M x dp))");
  bucket.read = [](const JobSpec& job) -> Value {
    const std::int64_t size = job.strategy.bucket_params();
    return size <= std::numeric_limits<int>::max() ? Value(static_cast<int>(size)) : Value(std::to_string(size));
  };
  JobOption virtual_stages =
      strategy_integer("virtual_stages", "--virtual-stages", &Strategy::virtual_stages, "1",
                       "model chunks per pipeline stage: V >= 2 for schedule interleaved, 2 for zbv and dualpipev");
  virtual_stages.search_values = free_virtual_stages;
  JobOption sequence_parallel =
      strategy_boolean("sequence_parallel", "--sequence-parallel", &Strategy::sequence_parallel,
                       "Megatron sequence parallelism: norms and dropout on s/t rows, all-gather + reduce-scatter "
                       "instead of all-reduce (no effect with tp 1)");
  sequence_parallel.search_values = both_when([](const JobSpec& job) { return job.strategy.tensor_parallel > 1; });
  JobOption recompute = strategy_choice<Recompute>(
      "recompute", "--recompute", "recomputation", &Strategy::recompute,
      {{"none", Recompute::none},
       {"selective", Recompute::selective},
       {"mla_up_proj", Recompute::mla_up_proj},
       {"full", Recompute::full}},
      "activation recomputation: none, selective (attention core), mla_up_proj (latent attention's "
      "up-projections and RoPE, Megatron-Core's recompute module) or full (every layer's forward rerun before "
      "its backward)");
  recompute.value_aliases = {{"full activation checkpointing", "full"}, {"full recompute", "full"}};
  recompute.unmodelled_values = {{"per-op selective activation checkpointing",
                                  "(torchtitan's per-op policy: every other matmul recomputed) is not modelled"},
                                 {"op", "(torchtitan's per-op selective activation checkpointing) is not modelled"}};
  // A fused attention kernel recomputes its core in the backward pass anyway, so selective
  // recomputation changes nothing there: a search tries it only with unfused attention, and the
  // up-projections' recomputation only where the model has latent attention.
  recompute.search_values = [](const JobSpec& job) {
    std::vector<Value> values{std::string("none")};
    if (job.strategy.attention == strategy::Attention::unfused) values.emplace_back(std::string("selective"));
    if (job.model.mla.enabled()) values.emplace_back(std::string("mla_up_proj"));
    values.emplace_back(std::string("full"));
    return values;
  };
  return {virtual_stages,
          sequence_parallel,
          recompute,
          distributed_optimizer_option(),
          sharding_option(),
          shard_group_option(),
          strategy_boolean("overlap_grad_reduce", "--overlap-grad-reduce", &Strategy::overlap_grad_reduce,
                           "start each data-parallel gradient bucket as soon as the last backward has produced it"),
          strategy_boolean("p2p_scatter_gather", "--p2p-scatter-gather", &Strategy::p2p_scatter_gather,
                           "each tensor-parallel rank sends 1/tp of a pipeline tensor and the receiving stage "
                           "all-gathers it (Megatron-LM's default before Megatron-Core; no effect with sequence "
                           "parallelism or tp 1)"),
          bucket,
          host_time_option()};
}

}  // namespace distsim::options::table
