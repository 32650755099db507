#include <algorithm>
#include <sstream>

#include "catalog/attention_kernels.hpp"
#include "core/input_error.hpp"
#include "options/job_option.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/pipeline_layout.hpp"

namespace distsim::options {

namespace {

using strategy::JobSpec;
using strategy::Strategy;

int as_int(const Value& value) { return std::get<int>(value); }
bool as_bool(const Value& value) { return std::get<bool>(value); }
const std::string& as_text(const Value& value) { return std::get<std::string>(value); }

//! An option's name, flag, type, default and help; the caller adds the rest.
JobOption basic(std::string key, std::string flag, ValueType type, std::string default_value, std::string help) {
  JobOption option;
  option.key = std::move(key);
  option.flag = std::move(flag);
  option.type = type;
  option.default_value = std::move(default_value);
  option.help = std::move(help);
  return option;
}

//! The divisors of n, ascending.
std::vector<Value> divisors(int n) {
  std::vector<Value> values;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0) values.emplace_back(d);
  }
  return values;
}

//! A parallel size left free: every size that still divides the GPUs the other sizes leave.
std::vector<Value> free_parallel_sizes(const JobSpec& job, int Strategy::*field) {
  const int others = job.strategy.world_size() / job.strategy.*field;
  const int gpus = job.cluster.total_gpus();
  return gpus % others == 0 ? divisors(gpus / others) : std::vector<Value>{};
}

//! A yes/no setting left free: both, or only off when turning it on changes nothing for the job.
std::function<std::vector<Value>(const JobSpec&)> both_when(std::function<bool(const JobSpec&)> matters) {
  return [matters = std::move(matters)](const JobSpec& job) {
    return matters(job) ? std::vector<Value>{false, true} : std::vector<Value>{false};
  };
}

//! An integer setting that lives in one Strategy field.
JobOption strategy_integer(std::string key, std::string flag, int Strategy::*field, std::string default_value,
                           std::string help) {
  JobOption option =
      basic(std::move(key), std::move(flag), ValueType::positive_integer, std::move(default_value), std::move(help));
  option.apply = [field](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.*field = as_int(value);
  };
  option.read = [field](const JobSpec& job) -> Value { return job.strategy.*field; };
  return option;
}

//! A yes/no setting that lives in one Strategy field; off unless given.
JobOption strategy_boolean(std::string key, std::string flag, bool Strategy::*field, std::string help) {
  JobOption option = basic(std::move(key), std::move(flag), ValueType::boolean, "false", std::move(help));
  option.apply = [field](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.*field = as_bool(value);
  };
  option.read = [field](const JobSpec& job) -> Value { return job.strategy.*field; };
  return option;
}

//! A setting with named values that maps to an enumerator of the strategy.
template <class Enum>
JobOption strategy_choice(std::string key, std::string flag, std::string noun, Enum Strategy::*field,
                          std::vector<std::pair<std::string, Enum>> values, std::string help) {
  JobOption option = basic(std::move(key), std::move(flag), ValueType::choice, values.front().first, std::move(help));
  option.noun = std::move(noun);
  for (const auto& value : values) option.allowed.push_back(value.first);
  option.apply = [field, values](const Value& value, JobSpec& job, const SpecResolvers&) {
    for (const auto& [text, enumerator] : values) {
      if (text == as_text(value)) job.strategy.*field = enumerator;
    }
  };
  option.read = [field, values](const JobSpec& job) -> Value {
    for (const auto& [text, enumerator] : values) {
      if (enumerator == job.strategy.*field) return text;
    }
    return values.front().first;
  };
  return option;
}

std::vector<JobOption> spec_options() {
  JobOption model =
      basic("model", "--model", ValueType::text, "gpt2-345m",
            "built-in model name, a YAML/JSON model file, a Hugging Face config.json, or an inline mapping "
            "'{name: tiny, num_layers: 4, ...}' (as the job echo writes one)");
  model.apply = [](const Value& value, JobSpec& job, const SpecResolvers& resolve) {
    job.model = resolve.model(as_text(value));
  };
  model.read = [](const JobSpec& job) -> Value { return job.model.name; };

  JobOption seq_length = basic("seq_length", "--seq-length", ValueType::positive_integer, "",
                               "tokens per sequence (default: the model's)");
  seq_length.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.model.seq_length = as_int(value);
  };
  seq_length.read = [](const JobSpec& job) -> Value { return job.model.seq_length; };

  JobOption cluster = basic("cluster", "--cluster", ValueType::text, "",
                            "built-in node design, a YAML/JSON cluster file or an inline mapping (default: the GPU's)");
  cluster.apply = [](const Value& value, JobSpec& job, const SpecResolvers& resolve) {
    job.cluster = resolve.cluster(as_text(value));
  };
  cluster.read = [](const JobSpec& job) -> Value { return job.cluster.name; };

  JobOption gpu =
      basic("gpu", "--gpu", ValueType::text, "",
            "built-in GPU name, a YAML/JSON GPU file or an inline mapping (default: the cluster's GPU, or a40)");
  gpu.apply = [](const Value& value, JobSpec& job, const SpecResolvers& resolve) {
    job.cluster.gpu = resolve.gpu(as_text(value));
  };
  gpu.read = [](const JobSpec& job) -> Value { return job.cluster.gpu.name; };

  JobOption gpus_per_node = basic("gpus_per_node", "--gpus-per-node", ValueType::positive_integer, "",
                                  "GPUs per node (default: the cluster's)");
  // A scale-up domain of several hosts (an NVL72 rack) keeps its GPUs; its hosts must fill it.
  gpus_per_node.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    cluster::ClusterSpec& machines = job.cluster;
    const int gpus = as_int(value);
    if (machines.hosts_per_domain > 1) {
      const int domain = machines.gpus_per_domain();
      if (domain % gpus != 0) {
        throw InputError("gpus_per_node " + std::to_string(gpus) + " does not divide the " + std::to_string(domain) +
                         "-GPU scale-up domain of cluster '" + machines.name +
                         "' (its hosts must fill the domain); describe another domain in a cluster file "
                         "(gpus_per_host, gpus_per_domain)");
      }
      machines.hosts_per_domain = domain / gpus;
    }
    machines.gpus_per_host = gpus;
  };
  gpus_per_node.read = [](const JobSpec& job) -> Value { return job.cluster.gpus_per_host; };
  return {model, seq_length, cluster, gpu, gpus_per_node};
}

std::vector<JobOption> size_options() {
  JobOption notation = basic("strategy", "--strategy", ValueType::text, "",
                             "parallel sizes in the paper's notation, e.g. 2M2P4D, or 2M2C2P4D with context parallel "
                             "2 (default 2M2P4D unless tp, pp or dp is given)");
  notation.excludes = {"tp", "pp", "dp"};
  notation.check = strategy::strategy_notation_problem;
  notation.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    const Strategy sizes = strategy::parse_strategy_notation(as_text(value));
    job.strategy.tensor_parallel = sizes.tensor_parallel;
    job.strategy.context_parallel = sizes.context_parallel;
    job.strategy.pipeline_parallel = sizes.pipeline_parallel;
    job.strategy.data_parallel = sizes.data_parallel;
  };
  notation.read = [](const JobSpec& job) -> Value { return job.strategy.notation(); };

  std::vector<JobOption> sizes{
      notation,
      strategy_integer("tp", "--tp", &Strategy::tensor_parallel, "", "tensor (model) parallel size (default 1)"),
      strategy_integer("pp", "--pp", &Strategy::pipeline_parallel, "", "pipeline parallel size (default 1)"),
      strategy_integer("dp", "--dp", &Strategy::data_parallel, "", "data parallel size (default 1)"),
      strategy_integer("cp", "--cp", &Strategy::context_parallel, "",
                       "context parallel size (Megatron-Core ring attention): each rank holds s/cp tokens of every "
                       "sequence; works with strategy (or its C part, e.g. 2M2C2P4D) and with tp/pp/dp (default 1)"),
      strategy_integer("micro_batch_size", "--micro-batch-size", &Strategy::micro_batch_size, "4",
                       "sequences per micro-batch"),
      strategy_integer("global_batch_size", "--global-batch-size", &Strategy::global_batch_size, "64",
                       "sequences per iteration")};
  for (const char* size : {"tp", "pp", "dp"}) {
    auto it = std::find_if(sizes.begin(), sizes.end(), [&](const JobOption& o) { return o.key == size; });
    it->excludes = {"strategy"};
  }
  for (const auto& size : {std::pair{"tp", &Strategy::tensor_parallel}, std::pair{"pp", &Strategy::pipeline_parallel},
                           std::pair{"dp", &Strategy::data_parallel}, std::pair{"cp", &Strategy::context_parallel}}) {
    auto it = std::find_if(sizes.begin(), sizes.end(), [&](const JobOption& o) { return o.key == size.first; });
    it->search_values = [field = size.second](const JobSpec& job) { return free_parallel_sizes(job, field); };
  }
  // Ring attention runs inside the fused kernel: with unfused attention context parallelism stays 1.
  auto context = std::find_if(sizes.begin(), sizes.end(), [](const JobOption& o) { return o.key == "cp"; });
  context->search_values = [](const JobSpec& job) {
    return job.strategy.attention == strategy::Attention::unfused
               ? std::vector<Value>{1}
               : free_parallel_sizes(job, &Strategy::context_parallel);
  };
  // The exchange is a choice of the software stack, not of the hardware: search keeps the job's
  // own unless values are listed.
  JobOption comm_type = strategy_choice<strategy::CpCommType>(
      "cp_comm_type", "--cp-comm-type", "context-parallel exchange", &Strategy::cp_comm_type,
      {{"p2p", strategy::CpCommType::p2p},
       {"a2a", strategy::CpCommType::a2a},
       {"allgather", strategy::CpCommType::allgather},
       {"a2a+p2p", strategy::CpCommType::a2a_p2p}},
      "how context-parallel attention exchanges the sequence (Megatron-Core --cp-comm-type): p2p (ring of K/V blocks "
      "beside the attention steps), a2a (all-to-all of Q, K, V to head shards and of the output back; heads/tp and "
      "KV heads/tp divisible by cp), allgather (gather K and V, reduce-scatter their gradients) or a2a+p2p (all-to-all "
      "inside groups of cp_a2a_size adjacent context ranks, the ring across the groups); a search keeps the job's "
      "exchange unless values are listed");
  comm_type.applies = [](const JobSpec& job) { return job.strategy.context_parallel > 1; };
  comm_type.search_values = [read = comm_type.read](const JobSpec& job) { return std::vector<Value>{read(job)}; };
  comm_type.searched_when_listed = true;
  JobOption a2a_size = strategy_integer(
      "cp_a2a_size", "--cp-a2a-size", &Strategy::cp_a2a_size, "1",
      "with cp_comm_type a2a+p2p: the adjacent context ranks that exchange by all-to-all, the first of Megatron-Core's "
      "--hierarchical-context-parallel-sizes (--hierarchical-context-parallel-sizes 2 4 is cp 8 with cp_a2a_size 2); "
      "the ring runs over cp / cp_a2a_size groups");
  a2a_size.applies = [](const JobSpec& job) { return job.strategy.cp_comm_type == strategy::CpCommType::a2a_p2p; };
  // With a2a+p2p every group of 2 or more context ranks that leaves 2 or more groups for the ring;
  // the job's own where there is none, which validation then refuses with the sizes that would do.
  a2a_size.search_values = [read = a2a_size.read](const JobSpec& job) {
    const Strategy& s = job.strategy;
    std::vector<Value> groups;
    for (int size = 2; s.cp_comm_type == strategy::CpCommType::a2a_p2p && size < s.context_parallel; ++size) {
      if (s.context_parallel % size == 0) groups.emplace_back(size);
    }
    return groups.empty() ? std::vector<Value>{read(job)} : groups;
  };
  const auto after_context = context - sizes.begin() + 1;
  sizes.insert(sizes.begin() + after_context, {comm_type, a2a_size});
  // Every micro-batch size that divides a data-parallel rank's share of the global batch.
  auto micro_batch =
      std::find_if(sizes.begin(), sizes.end(), [](const JobOption& o) { return o.key == "micro_batch_size"; });
  micro_batch->search_values = [](const JobSpec& job) {
    const Strategy& s = job.strategy;
    return s.global_batch_size % s.data_parallel == 0 ? divisors(s.global_batch_size / s.data_parallel)
                                                      : std::vector<Value>{};
  };
  return sizes;
}

JobOption schedule_option() {
  JobOption schedule =
      basic("schedule", "--schedule", ValueType::choice, "1f1b", "pipeline schedule (see `distsim list schedules`)");
  schedule.allowed = schedule::schedule_names();
  schedule.noun = "schedule";
  schedule.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.schedule = as_text(value);
  };
  schedule.read = [](const JobSpec& job) -> Value { return job.strategy.schedule; };
  // One stage has no pipeline to schedule: every schedule would run its passes back to back.
  schedule.search_values = [default_name = schedule.default_value](const JobSpec& job) {
    if (job.strategy.pipeline_parallel == 1) return std::vector<Value>{default_name};
    std::vector<Value> names;
    for (const auto& name : schedule::schedule_names()) names.emplace_back(name);
    return names;
  };
  return schedule;
}

using strategy::GemmFormat;

const std::vector<std::pair<std::string, GemmFormat>>& gemm_formats() {
  static const std::vector<std::pair<std::string, GemmFormat>> formats = {
      {"bf16", GemmFormat::none}, {"fp8", GemmFormat::fp8}, {"mxfp8", GemmFormat::mxfp8}, {"nvfp4", GemmFormat::nvfp4}};
  return formats;
}

//! The format of the transformer layers' linear GEMMs. It means something in bf16 training only,
//! so the echo of an fp16 or fp32 job leaves it out.
JobOption precision_option() {
  JobOption precision = strategy_choice<GemmFormat>(
      "precision", "--precision", "precision", &Strategy::gemm_format, gemm_formats(),
      "format of the transformer layers' linear GEMMs as TransformerEngine runs them: bf16, fp8 (per-tensor "
      "scales), mxfp8 (E8M0 scale per 32 elements, Blackwell) or nvfp4 (E4M3 scale per 16 elements, random "
      "Hadamard transform on the weight-gradient GEMM's operands, Blackwell); needs dtype bf16 (default bf16); a "
      "search tries several when they are listed (--precision bf16,fp8, or all)");
  precision.default_value.clear();  // none, unless --fp8 said fp8
  precision.excludes = {"fp8"};
  precision.applies = [](const JobSpec& job) { return job.strategy.dtype == Dtype::bf16; };
  precision.search_values = [read = precision.read](const JobSpec& job) { return std::vector<Value>{read(job)}; };
  precision.searched_when_listed = true;
  return precision;
}

//! --fp8 is --precision fp8; the echo writes the precision, never this synonym.
JobOption fp8_option() {
  JobOption fp8 = basic("fp8", "--fp8", ValueType::boolean, "",
                        "the same as --precision fp8 (TransformerEngine fp8 GEMMs, Megatron-Core --fp8-format hybrid)");
  fp8.excludes = {"precision"};
  fp8.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.gemm_format = as_bool(value) ? GemmFormat::fp8 : GemmFormat::none;
  };
  fp8.read = [](const JobSpec& job) -> Value { return job.strategy.gemm_format == GemmFormat::fp8; };
  fp8.applies = [](const JobSpec&) { return false; };
  return fp8;
}

//! A layer count that means something only under a low-precision format and when not zero.
JobOption bf16_layers_option(std::string key, std::string flag, int Strategy::*field, std::string help) {
  JobOption option = strategy_integer(std::move(key), std::move(flag), field, "", std::move(help));
  option.applies = [field](const JobSpec& job) {
    return job.strategy.low_precision_gemms() && job.strategy.*field > 0;
  };
  return option;
}

//! The fused attention library, whose release sets the kernel's rate; only a named one is echoed.
JobOption attention_kernel_option() {
  JobOption option =
      basic("attention_kernel", "--attention-kernel", ValueType::choice, std::string(catalog::kGenericAttentionKernel),
            "fused attention kernel and release, whose measured rate prices attention: generic (a "
            "fixed fraction of the GPU's GEMM ceiling, any GPU) or a kernel measured on the GPU's "
            "architecture (see `distsim list attention-kernels`)");
  option.allowed = catalog::attention_kernel_names();
  option.noun = "attention kernel";
  option.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.attention_kernel = as_text(value);
  };
  option.read = [](const JobSpec& job) -> Value { return job.strategy.attention_kernel; };
  option.applies = [](const JobSpec& job) { return job.strategy.attention_kernel != catalog::kGenericAttentionKernel; };
  return option;
}

std::vector<JobOption> precision_options() {
  return {strategy_choice<Dtype>("dtype", "--dtype", "dtype", &Strategy::dtype,
                                 {{"bf16", Dtype::bf16}, {"fp16", Dtype::fp16}, {"fp32", Dtype::fp32}},
                                 "training precision"),
          fp8_option(),
          precision_option(),
          bf16_layers_option("bf16_layers_at_start", "--bf16-layers-at-start", &Strategy::bf16_layers_at_start,
                             "transformer layers at the start of the model that keep bf16 GEMMs under a low "
                             "precision (Megatron-Core --num-layers-at-start-in-bf16)"),
          bf16_layers_option("bf16_layers_at_end", "--bf16-layers-at-end", &Strategy::bf16_layers_at_end,
                             "transformer layers at the end of the model that keep bf16 GEMMs under a low precision "
                             "(Megatron-Core --num-layers-at-end-in-bf16)"),
          strategy_choice<strategy::Attention>(
              "attention", "--attention", "attention implementation", &Strategy::attention,
              {{"flash", strategy::Attention::flash}, {"unfused", strategy::Attention::unfused}},
              "attention core: flash (one fused kernel, Megatron-LM --use-flash-attn) or unfused (batched GEMMs, "
              "softmax and dropout through memory, Megatron-LM before 2023)"),
          attention_kernel_option()};
}

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

std::vector<JobOption> feature_options() {
  using strategy::Recompute;
  JobOption bucket = strategy_integer("gradient_bucket_size", "--gradient-bucket-size", &Strategy::dp_bucket_params, "",
                                      "gradient bucket size in parameters (default: Megatron's max(40M, 1M x dp))");
  bucket.read = [](const JobSpec& job) -> Value { return job.strategy.bucket_params(); };
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
          bucket};
}

//! The settings that say which layers each virtual pipeline stage holds, when not split evenly
//! (strategy/pipeline_layout.hpp). A search keeps them as the job gives them.
std::vector<JobOption> layout_options() {
  JobOption text = basic("pipeline_layout", "--pipeline-layout", ValueType::text, "",
                         "layers of each virtual pipeline stage in Megatron-Core's --pipeline-model-parallel-layout "
                         "syntax: E embedding, t decoder layer, L head and loss, '|' between virtual stages, X*N "
                         "and (...)*N repeat, commas ignored; e.g. 'Et*3|t*4|t*4|t*3L' (default: even split)");
  text.check = strategy::pipeline_layout_problem;
  text.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.pipeline_layout = as_text(value);
  };
  text.read = [](const JobSpec& job) -> Value { return job.strategy.pipeline_layout; };
  text.applies = [](const JobSpec& job) { return !job.strategy.pipeline_layout.empty(); };
  JobOption first = strategy_integer("first_stage_layers", "--first-stage-layers", &Strategy::first_stage_layers, "",
                                     "decoder layers of the first pipeline stage, the rest split evenly over the "
                                     "others (Megatron-Core --decoder-first-pipeline-num-layers)");
  first.applies = [](const JobSpec& job) { return job.strategy.first_stage_layers > 0; };
  JobOption last = strategy_integer("last_stage_layers", "--last-stage-layers", &Strategy::last_stage_layers, "",
                                    "decoder layers of the last pipeline stage, the rest split evenly over the "
                                    "others (Megatron-Core --decoder-last-pipeline-num-layers)");
  last.applies = [](const JobSpec& job) { return job.strategy.last_stage_layers > 0; };
  JobOption embedding = strategy_boolean(
      "account_for_embedding_in_pipeline_split", "--account-for-embedding-in-pipeline-split",
      &Strategy::account_for_embedding,
      "count the embedding as one layer when splitting the layers over the virtual pipeline stages, so the first "
      "holds one decoder layer fewer (Megatron-Core)");
  embedding.applies = [](const JobSpec& job) { return job.strategy.account_for_embedding; };
  JobOption loss = strategy_boolean(
      "account_for_loss_in_pipeline_split", "--account-for-loss-in-pipeline-split", &Strategy::account_for_loss,
      "count the LM head and loss as one layer when splitting the layers over the "
      "virtual pipeline stages, so the last holds one decoder layer fewer (Megatron-Core)");
  loss.applies = [](const JobSpec& job) { return job.strategy.account_for_loss; };
  return {text, first, last, embedding, loss};
}

bool has_experts(const JobSpec& job) { return job.model.moe.enabled(); }

//! The busiest expert rank's tokens over the mean: a number, at least 1.0 (checked with the job).
std::string imbalance_problem(const std::string& text) {
  std::istringstream in(text);
  double value = 0;
  in >> value;
  if (in.fail() || !in.eof()) {
    return "expected a number such as 1.0 or 1.25, got '" + text + "'";
  }
  return "";
}

//! Expert parallel sizes left free: every size that divides the routed experts and, times the
//! expert tensor parallel size, the ranks of a pipeline stage (tp x cp x dp), which the experts
//! are folded over. A dense model has none.
std::vector<Value> free_expert_parallel_sizes(const JobSpec& job) {
  const int experts = job.model.moe.num_experts;
  const Strategy& s = job.strategy;
  const int stage_ranks = s.tensor_parallel * s.context_parallel * s.data_parallel;
  std::vector<Value> sizes;
  for (int ep = 1; ep <= experts; ++ep) {
    if (experts % ep == 0 && stage_ranks % (ep * s.expert_tensor_parallel) == 0) sizes.emplace_back(ep);
  }
  return sizes;
}

//! Expert tensor parallel sizes left free, for the candidate's expert parallel size: every size
//! that divides the expert FFN and, times ep, the ranks of a pipeline stage; 1 only with the
//! allgather dispatcher, which is simulated without expert tensor parallelism.
std::vector<Value> free_expert_tensor_parallel_sizes(const JobSpec& job) {
  const Strategy& s = job.strategy;
  const int ffn = job.model.moe.expert_ffn_hidden_size;
  const int ranks = s.stage_ranks() / std::max(s.expert_parallel, 1);
  std::vector<Value> sizes;
  for (int etp = 1; etp <= ranks; ++etp) {
    if (ranks % etp == 0 && ffn % etp == 0 && (etp == 1 || s.moe_dispatcher == strategy::MoeDispatcher::alltoall)) {
      sizes.emplace_back(etp);
    }
  }
  return sizes;
}

std::vector<JobOption> expert_options() {
  JobOption ep = strategy_integer("ep", "--ep", &Strategy::expert_parallel, "1",
                                  "expert parallel size: the routed experts of each MoE layer are spread over ep ranks "
                                  "of a pipeline stage (Megatron-Core MoE parallel folding); must divide the experts");
  JobOption etp = strategy_integer("etp", "--etp", &Strategy::expert_tensor_parallel, "1",
                                   "expert tensor parallel size: ranks each expert's FFN is split over, which gather "
                                   "their dispatched tokens (default 1; Megatron-Core's default is tp)");
  etp.search_values = free_expert_tensor_parallel_sizes;
  JobOption dispatcher = strategy_choice<strategy::MoeDispatcher>(
      "moe_dispatcher", "--moe-dispatcher", "token dispatcher", &Strategy::moe_dispatcher,
      {{"alltoall", strategy::MoeDispatcher::alltoall}, {"allgather", strategy::MoeDispatcher::allgather}},
      "how tokens reach their experts: alltoall (all-to-all over the expert-parallel group) or allgather (gather "
      "every token of the group, reduce-scatter the outputs)");
  JobOption imbalance = basic("moe_imbalance", "--moe-imbalance", ValueType::text, "1.0",
                              "tokens of the busiest expert rank over the mean (1.0: balanced, as in force-balanced "
                              "benchmark runs); the slowest expert rank sets the MoE layer's pace");
  imbalance.check = imbalance_problem;
  imbalance.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.moe_imbalance = std::stod(as_text(value));
  };
  imbalance.read = [](const JobSpec& job) -> Value {
    std::ostringstream out;
    out << job.strategy.moe_imbalance;
    const std::string text = out.str();
    return text.find_first_of(".e") == std::string::npos ? text + ".0" : text;
  };
  JobOption overlap = strategy_boolean(
      "overlap_moe_expert_parallel_comm", "--overlap-moe-expert-parallel-comm",
      &Strategy::overlap_moe_expert_parallel_comm,
      "Megatron-Core's combined 1F1B: each steady-state forward runs overlapped with another micro-batch's backward, "
      "hiding one's expert-parallel all-to-all behind the other's computation (no pipelining, or interleaved)");
  // A search tries combined 1F1B where Megatron-Core runs it: the job breaks none of its rules
  // and the schedule pairs forwards with backwards that way.
  overlap.search_values = both_when([](const JobSpec& job) {
    const Strategy& s = job.strategy;
    const auto& schedule = schedule::find_schedule(s.schedule);
    return strategy::combined_1f1b_problems(job).empty() &&
           schedule.runs_combined_1f1b(s.pipeline_parallel, schedule.chunks_per_stage(s.virtual_stages));
  });
  JobOption shared_overlap = strategy_boolean(
      "moe_shared_expert_overlap", "--moe-shared-expert-overlap", &Strategy::moe_shared_expert_overlap,
      "Megatron-Core's shared-expert overlap: the shared experts' first linear runs while the tokens are dispatched "
      "and their second while the outputs are combined (alltoall dispatcher; not with combined 1F1B)");
  shared_overlap.search_values =
      both_when([](const JobSpec& job) { return strategy::shared_expert_overlap_problems(job).empty(); });
  ep.search_values = free_expert_parallel_sizes;
  std::vector<JobOption> options{ep, etp, dispatcher, imbalance, overlap, shared_overlap};
  for (auto& option : options) {
    option.applies = has_experts;
  }
  return options;
}

JobOption nodes_option() {
  JobOption nodes = basic("nodes", "--nodes", ValueType::positive_integer, "",
                          "number of nodes (default: as many as the parallel sizes need)");
  nodes.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) { job.cluster.num_hosts = as_int(value); };
  nodes.read = [](const JobSpec& job) -> Value { return job.cluster.num_hosts; };
  return nodes;
}

std::vector<JobOption> build_table() {
  std::vector<JobOption> table = spec_options();
  for (const auto& part :
       {size_options(), std::vector<JobOption>{schedule_option()}, precision_options(), feature_options(),
        layout_options(), expert_options(), std::vector<JobOption>{nodes_option()}}) {
    table.insert(table.end(), part.begin(), part.end());
  }
  return table;
}

}  // namespace

const std::vector<JobOption>& job_options() {
  static const std::vector<JobOption> table = build_table();
  return table;
}

}  // namespace distsim::options
