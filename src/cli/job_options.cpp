#include "cli/job_options.hpp"

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "io/spec_resolver.hpp"

namespace distsim::cli {

namespace {

constexpr const char* kDefaultGpu = "a40";
constexpr const char* kDefaultStrategy = "2M2P4D";

Dtype parse_dtype(const std::string& text) {
  if (text == "bf16") return Dtype::bf16;
  if (text == "fp16") return Dtype::fp16;
  if (text == "fp32") return Dtype::fp32;
  throw InputError("--dtype: " + unknown_name_message("dtype", text, {"bf16", "fp16", "fp32"}));
}

strategy::Attention parse_attention(const std::string& text) {
  if (text == "flash") return strategy::Attention::flash;
  if (text == "unfused") return strategy::Attention::unfused;
  throw InputError("--attention: " + unknown_name_message("attention implementation", text, {"flash", "unfused"}));
}

cluster::ClusterSpec resolve_cluster(const JobOptions& options) {
  if (!options.cluster.empty()) {
    cluster::ClusterSpec cluster = io::resolve_cluster(options.cluster);
    if (!options.gpu.empty()) {
      cluster.gpu = io::resolve_gpu(options.gpu);
    }
    return cluster;
  }
  const cluster::GpuSpec gpu = io::resolve_gpu(options.gpu.empty() ? kDefaultGpu : options.gpu);
  if (gpu.default_cluster.empty()) {
    throw InputError("--gpu '" + options.gpu + "' names no default_cluster; pass --cluster as well");
  }
  cluster::ClusterSpec cluster = io::resolve_cluster(gpu.default_cluster);
  cluster.gpu = gpu;
  return cluster;
}

std::string builtin_fp8_gpus() {
  std::string names;
  for (const auto& name : catalog::gpu_names()) {
    if (catalog::find_gpu(name).peak_fp8_tflops > 0) {
      names += (names.empty() ? "" : ", ") + name;
    }
  }
  return names;
}

//! The fp8 rules of validate_job, asked early so that the message can name the flag and the
//! built-in GPUs that have fp8 tensor cores.
void check_fp8(const strategy::JobSpec& job, const std::string& origin) {
  const auto& s = job.strategy;
  if (!s.fp8_gemms) {
    return;
  }
  if (s.dtype != Dtype::bf16) {
    throw InputError(origin + ": fp8 GEMMs run inside bf16 training (TransformerEngine), got dtype '" +
                     std::string(dtype_name(s.dtype)) + "'");
  }
  const auto& gpu = job.cluster.gpu;
  if (gpu.peak_fp8_tflops <= 0) {
    throw InputError(origin + ": gpu '" + gpu.name + "' has no fp8 tensor cores (peak_fp8_tflops 0); " +
                     "built-in GPUs with fp8: " + builtin_fp8_gpus());
  }
}

strategy::Strategy resolve_strategy(const JobOptions& options) {
  const bool sizes_given = options.tp > 0 || options.pp > 0 || options.dp > 0;
  if (sizes_given && !options.strategy.empty()) {
    throw InputError("--strategy " + options.strategy + " and --tp/--pp/--dp both given; use one or the other");
  }
  strategy::Strategy strategy;
  if (sizes_given) {
    strategy.tensor_parallel = std::max(options.tp, 1);
    strategy.pipeline_parallel = std::max(options.pp, 1);
    strategy.data_parallel = std::max(options.dp, 1);
  } else {
    strategy = strategy::parse_strategy_notation(options.strategy.empty() ? kDefaultStrategy : options.strategy);
  }
  if (options.cp != 0) {
    if (strategy.context_parallel > 1) {
      throw InputError("--cp " + std::to_string(options.cp) + " and --strategy " + options.strategy +
                       " (context parallel " + std::to_string(strategy.context_parallel) +
                       ") both given; use one or the other");
    }
    strategy.context_parallel = options.cp;
  }
  strategy.micro_batch_size = options.micro_batch_size;
  strategy.global_batch_size = options.global_batch_size;
  strategy.schedule = options.schedule;
  strategy.dtype = parse_dtype(options.dtype);
  strategy.sequence_parallel = options.sequence_parallel;
  strategy.recompute = strategy::parse_recompute(options.recompute, "--recompute");
  strategy.distributed_optimizer = options.distributed_optimizer;
  strategy.overlap_grad_reduce = options.overlap_grad_reduce;
  strategy.p2p_scatter_gather = options.p2p_scatter_gather;
  strategy.virtual_stages = options.virtual_stages;
  strategy.attention = parse_attention(options.attention);
  strategy.fp8_gemms = options.fp8;
  return strategy;
}

}  // namespace

void JobOptions::add_to(CLI::App& command) {
  command.add_option("--model", model, "built-in model name, a YAML/JSON model file, or a Hugging Face config.json")
      ->capture_default_str();
  command.add_option("--gpu", gpu, "built-in GPU name or a YAML/JSON GPU file (default: the cluster's GPU, or a40)");
  command.add_option("--cluster", cluster, "built-in node design or a YAML/JSON cluster file (default: the GPU's)");
  command.add_option("--nodes", nodes, "number of nodes (default: as many as the strategy needs)");
  command.add_option("--gpus-per-node", gpus_per_node, "GPUs per node (default: the cluster's)");
  command.add_option("--strategy", strategy,
                     "parallel sizes in the paper's notation, e.g. 2M2P4D, or 2M2C2P4D with context parallel 2 "
                     "(default 2M2P4D)");
  command.add_option("--tp", tp, "tensor (model) parallel size");
  command.add_option("--pp", pp, "pipeline parallel size");
  command.add_option("--dp", dp, "data parallel size");
  command.add_option("--cp", cp,
                     "context parallel size (Megatron-Core ring attention): each rank holds s/cp tokens of every "
                     "sequence; works with --strategy (or its C part, e.g. 2M2C2P4D) and with --tp/--pp/--dp");
  command.add_option("--micro-batch-size", micro_batch_size, "sequences per micro-batch")->capture_default_str();
  command.add_option("--global-batch-size", global_batch_size, "sequences per iteration")->capture_default_str();
  command.add_option("--seq-length", seq_length, "override the model's sequence length");
  command.add_option("--schedule", schedule, "pipeline schedule (see `distsim list schedules`)")->capture_default_str();
  command.add_option("--dtype", dtype, "training precision: bf16, fp16 or fp32")->capture_default_str();
  command.add_flag("--sequence-parallel", sequence_parallel,
                   "Megatron sequence parallelism: norms and dropout on s/t rows, all-gather + reduce-scatter "
                   "instead of all-reduce (no effect with --tp 1)");
  command.add_option("--recompute", recompute,
                     "activation recomputation: none, selective (attention core) or full (every layer's forward "
                     "rerun before its backward)")
      ->capture_default_str();
  command.add_flag("--distributed-optimizer", distributed_optimizer,
                   "ZeRO-1 as Megatron's distributed optimizer: reduce-scatter gradients, update 1/dp of the "
                   "parameters, all-gather them");
  command.add_flag("--overlap-grad-reduce", overlap_grad_reduce,
                   "start each data-parallel gradient bucket as soon as the last backward has produced it");
  command.add_flag("--p2p-scatter-gather", p2p_scatter_gather,
                   "each tensor-parallel rank sends 1/tp of a pipeline tensor and the receiving stage all-gathers "
                   "it (Megatron-LM's default before Megatron-Core; no effect with --sequence-parallel or --tp 1)");
  command.add_option("--virtual-stages", virtual_stages,
                     "model chunks per pipeline stage for --schedule interleaved")
      ->capture_default_str();
  command.add_option("--attention", attention,
                     "attention core: flash (one fused kernel, Megatron-LM --use-flash-attn) or unfused (batched "
                     "GEMMs, softmax and dropout through memory, Megatron-LM before 2023)")
      ->capture_default_str();
  command.add_flag("--fp8", fp8,
                   "run the transformer layers' linear GEMMs in fp8 as TransformerEngine does (Megatron-Core "
                   "--fp8-format hybrid); needs --dtype bf16 and a GPU with fp8 tensor cores");
}

strategy::JobSpec JobOptions::to_job() const {
  strategy::JobSpec job;
  job.model = io::resolve_model(model);
  if (seq_length != 0) {
    if (seq_length < 0) {
      throw InputError("--seq-length must be positive, got " + std::to_string(seq_length));
    }
    job.model.seq_length = seq_length;
  }
  job.cluster = resolve_cluster(*this);
  job.strategy = resolve_strategy(*this);
  if (gpus_per_node != 0) {
    job.cluster.gpus_per_host = gpus_per_node;
  }
  if (nodes != 0) {
    job.cluster.num_hosts = nodes;
  } else if (job.cluster.gpus_per_host > 0) {
    job.cluster.num_hosts = std::max(1, job.strategy.world_size() / job.cluster.gpus_per_host);
  }
  check_fp8(job, fp8_origin);
  return job;
}

}  // namespace distsim::cli
