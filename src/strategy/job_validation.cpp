#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "catalog/builtin_gpus.hpp"
#include "core/checked_arithmetic.hpp"
#include "core/input_error.hpp"
#include "model/moe_rules.hpp"
#include "strategy/gpu_placement.hpp"
#include "strategy/job_checks.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::strategy {

std::string name_of(const SettingNames& names, const std::string& key) {
  const auto it = names.find(key);
  return it == names.end() ? key : it->second;
}

namespace {

using detail::check_attention_kernel;
using detail::check_context_parallel;
using detail::check_experts;
using detail::check_sharding;
using detail::name_of;
using detail::Problems;

void require_positive(Problems& problems, const std::string& what, long long value) {
  if (value <= 0) {
    problems.push_back(what + " must be positive, got " + std::to_string(value));
  }
}

void check_dimensions(const model::ModelSpec& model, const std::string& where, Problems& problems) {
  const std::pair<const char*, int> dimensions[] = {
      {"hidden_size", model.hidden_size},
      {"ffn_hidden_size", model.ffn_hidden_size},
      {"num_attention_heads", model.num_attention_heads},
      {"num_kv_heads", model.num_kv_heads},
      {"kv_channels", model.kv_channels},
      {"vocab_size", model.vocab_size},
      {"seq_length", model.seq_length},
      {"decoder_seq_length", model.decoder_seq_length},
  };
  for (const auto& [key, value] : dimensions) {
    if (value > model::kLargestDimension) {
      problems.push_back(where + key + " " + std::to_string(value) + " exceeds " +
                         std::to_string(model::kLargestDimension) +
                         ", the largest model dimension distsim computes with");
    }
  }
}

//! A sliding window is the causal band of a decoder's self-attention (Mistral, Gemma 2, GPT-OSS).
void check_window(const model::ModelSpec& model, const std::string& where, Problems& problems) {
  if (model.sliding_window < 0) {
    problems.push_back(where + "sliding_window must be 0 (none) or positive, got " +
                       std::to_string(model.sliding_window));
  }
  if (model.sliding_window > 0 && model.architecture != model::Architecture::decoder) {
    problems.push_back(where + "sliding_window " + std::to_string(model.sliding_window) +
                       " is modelled for decoder-only models (a causal band), not for this " +
                       (model.architecture == model::Architecture::encoder ? "encoder-only" : "encoder-decoder") +
                       " model");
  }
  if (model.sliding_window > 0 && model.window_start_layer >= model.total_layers()) {
    problems.push_back(where + "window_start_layer " + std::to_string(model.window_start_layer) +
                       " leaves no layer with the sliding window of " + std::to_string(model.sliding_window) +
                       " (the model has " + std::to_string(model.total_layers()) +
                       " layers, numbered from 0); give a smaller window_start_layer or sliding_window 0");
  }
}

void check_model(const model::ModelSpec& model, Problems& problems) {
  const std::string where = "model '" + model.name + "': ";
  for (const auto& problem : model::moe_problems(model)) {
    problems.push_back(where + "moe." + problem);
  }
  for (const auto& problem : model::mla_problems(model)) {
    problems.push_back(where + "mla." + problem);
  }
  for (auto& problem : unsimulated_features(model)) {
    problems.push_back(std::move(problem));
  }
  require_positive(problems, where + "num_layers", model.num_layers);
  require_positive(problems, where + "hidden_size", model.hidden_size);
  require_positive(problems, where + "num_attention_heads", model.num_attention_heads);
  require_positive(problems, where + "num_kv_heads", model.num_kv_heads);
  require_positive(problems, where + "ffn_hidden_size", model.ffn_hidden_size);
  require_positive(problems, where + "vocab_size", model.vocab_size);
  require_positive(problems, where + "seq_length", model.seq_length);
  check_dimensions(model, where, problems);
  if (model.architecture == model::Architecture::encoder_decoder) {
    require_positive(problems, where + "decoder_num_layers", model.decoder_num_layers);
  }
  check_window(model, where, problems);
  detail::check_layer_structure(model, where, problems);
  if (model.num_attention_heads > 0 && model.num_kv_heads > 0 && model.num_attention_heads % model.num_kv_heads != 0) {
    problems.push_back(where + "num_kv_heads " + std::to_string(model.num_kv_heads) +
                       " must divide num_attention_heads " + std::to_string(model.num_attention_heads));
  }
  if (model.kv_channels == 0 && model.num_attention_heads > 0 && model.hidden_size % model.num_attention_heads != 0) {
    problems.push_back(where + "num_attention_heads " + std::to_string(model.num_attention_heads) +
                       " must divide hidden_size " + std::to_string(model.hidden_size) + " (or set kv_channels)");
  }
}

void check_divides(Problems& problems, int tp, const std::string& what, int value, const std::string& model_name) {
  if (tp > 0 && value > 0 && value % tp != 0) {
    problems.push_back("tensor parallel size " + std::to_string(tp) + " does not divide " + what + " " +
                       std::to_string(value) + " of model '" + model_name + "'");
  }
}

//! GPUs are numbered in an int; sizes whose product does not fit are refused before anything
//! multiplies them.
bool check_counts_fit(const JobSpec& job, Problems& problems) {
  const Strategy& s = job.strategy;
  const std::string limit =
      " GPUs, more than the " + std::to_string(std::numeric_limits<int>::max()) + " that distsim can number";
  const std::string context = s.context_parallel > 1 ? std::to_string(s.context_parallel) + " x " : "";
  if (!s.checked_world_size()) {
    const auto world = checked_product({s.tensor_parallel, s.context_parallel, s.pipeline_parallel, s.data_parallel});
    problems.push_back("strategy " + s.notation() + " uses " + std::to_string(s.tensor_parallel) + " x " + context +
                       std::to_string(s.pipeline_parallel) + " x " + std::to_string(s.data_parallel) +
                       (world ? " = " + std::to_string(*world) : "") + limit);
  }
  const auto gpus = checked_product({job.cluster.num_hosts, job.cluster.gpus_per_host});
  if (!gpus || *gpus > std::numeric_limits<int>::max()) {
    problems.push_back("the cluster has " + std::to_string(job.cluster.num_hosts) + " nodes x " +
                       std::to_string(job.cluster.gpus_per_host) + " GPUs = " + std::to_string(gpus.value_or(0)) +
                       limit);
  }
  return problems.empty();
}

//! The largest tensors of one micro-batch, in bytes at 4 bytes an element, must fit the 64 bits
//! that sizes are computed in: the activations at the widest layer and the attention scores.
void check_micro_batch_sizes(const JobSpec& job, Problems& problems) {
  const auto& m = job.model;
  const std::int64_t batch = job.strategy.micro_batch_size;
  const std::int64_t seq = std::max(m.seq_length, m.target_seq_length());
  const std::int64_t width = std::max({std::int64_t{m.hidden_size}, std::int64_t{m.ffn_hidden_size},
                                       std::int64_t{m.vocab_size}, std::int64_t{m.num_attention_heads} * m.head_dim()});
  const std::string beyond = " bytes is beyond the 2^63 bytes distsim computes sizes in";
  if (!checked_product({batch, seq, width, 4})) {
    problems.push_back("model '" + m.name + "': an activation of micro-batch size x seq_length x width x 4 bytes = " +
                       product_text({batch, seq, width, 4}) + beyond);
  } else if (!checked_product({batch, m.num_attention_heads, seq, seq, 4})) {
    problems.push_back("model '" + m.name +
                       "': the attention scores of micro-batch size x heads x seq_length x seq_length x 4 bytes = " +
                       product_text({batch, m.num_attention_heads, seq, seq, 4}) + beyond);
  }
}

void check_strategy(const JobSpec& job, Problems& problems) {
  const Strategy& s = job.strategy;
  require_positive(problems, "tensor parallel size", s.tensor_parallel);
  require_positive(problems, "context parallel size", s.context_parallel);
  require_positive(problems, "pipeline parallel size", s.pipeline_parallel);
  require_positive(problems, "data parallel size", s.data_parallel);
  require_positive(problems, "expert parallel size", s.expert_parallel);
  require_positive(problems, "expert tensor parallel size", s.expert_tensor_parallel);
  require_positive(problems, "micro-batch size", s.micro_batch_size);
  require_positive(problems, "global batch size", s.global_batch_size);
  require_positive(problems, "nodes", job.cluster.num_hosts);
  require_positive(problems, "GPUs per node", job.cluster.gpus_per_host);
  require_positive(problems, "hosts per scale-up domain", job.cluster.hosts_per_domain);
  if (!problems.empty()) {
    return;
  }
  if (!check_counts_fit(job, problems)) {
    return;
  }
  if (s.world_size() != job.cluster.total_gpus()) {
    const std::string context = s.context_parallel > 1 ? std::to_string(s.context_parallel) + " x " : "";
    problems.push_back("strategy " + s.notation() + " uses " + std::to_string(s.tensor_parallel) + " x " + context +
                       std::to_string(s.pipeline_parallel) + " x " + std::to_string(s.data_parallel) + " = " +
                       std::to_string(s.world_size()) + " GPUs, but the cluster has " +
                       std::to_string(job.cluster.num_hosts) + " nodes x " + std::to_string(job.cluster.gpus_per_host) +
                       " GPUs = " + std::to_string(job.cluster.total_gpus()));
  }
  const auto& m = job.model;
  check_divides(problems, s.tensor_parallel, "num_attention_heads", m.num_attention_heads, m.name);
  check_divides(problems, s.tensor_parallel, "num_kv_heads", m.num_kv_heads, m.name);
  check_divides(problems, s.tensor_parallel, "ffn_hidden_size", m.ffn_hidden_size, m.name);
  if (s.pipeline_parallel > m.total_layers() && m.total_layers() > 0) {
    problems.push_back("pipeline parallel size " + std::to_string(s.pipeline_parallel) + " exceeds the " +
                       std::to_string(m.total_layers()) + " layers of model '" + m.name + "'");
  }
  check_micro_batch_sizes(job, problems);
  const long long per_step = static_cast<long long>(s.micro_batch_size) * s.data_parallel;
  if (s.global_batch_size % per_step != 0) {
    problems.push_back(
        "global batch size " + std::to_string(s.global_batch_size) +
        " is not divisible by micro-batch size x data parallel size = " + std::to_string(s.micro_batch_size) + " x " +
        std::to_string(s.data_parallel) + " = " + std::to_string(per_step));
  }
}

//! Sequence parallelism shards the sequence over the tensor group, so the group must divide it.
//! With tensor parallel size 1 it is a no-op, as Megatron-LM turns it off (arguments.py).
void check_sequence_parallel(const JobSpec& job, Problems& problems) {
  const Strategy& s = job.strategy;
  const auto& m = job.model;
  if (!s.sequence_parallel || s.tensor_parallel <= 1) {  // tensor_parallel <= 0 is reported elsewhere
    return;
  }
  const int cp = s.context_parallel;
  auto check = [&](const std::string& what, int length) {
    if (cp > 1 && length > 0 && length % (2 * cp) == 0 && length / cp % s.tensor_parallel != 0) {
      problems.push_back("sequence parallelism needs each context-parallel rank's " + what + " " +
                         std::to_string(length) + " / " + std::to_string(cp) + " = " + std::to_string(length / cp) +
                         " of model " + quoted(m.name) + " to be divisible by the tensor parallel size " +
                         std::to_string(s.tensor_parallel));
    } else if (cp == 1 && length > 0 && length % s.tensor_parallel != 0) {
      problems.push_back("sequence parallelism needs " + what + " " + std::to_string(length) + " of model " +
                         quoted(m.name) + " to be divisible by the tensor parallel size " +
                         std::to_string(s.tensor_parallel));
    }
  };
  check("seq_length", m.seq_length);
  if (m.architecture == model::Architecture::encoder_decoder && m.target_seq_length() != m.seq_length) {
    check("decoder_seq_length", m.target_seq_length());
  }
}

std::string builtin_gpus_running(Dtype format) {
  std::string list;
  for (const auto& name : catalog::gpu_names()) {
    if (catalog::find_gpu(name).peak_flops(format) > 0) {
      list += (list.empty() ? "" : ", ") + name;
    }
  }
  return list;
}

//! The GPU field that holds a low-precision format's peak.
std::string peak_field(Dtype format) {
  switch (format) {
    case Dtype::mxfp8: return "peak_mxfp8_tflops";
    case Dtype::nvfp4: return "peak_fp4_tflops";
    default: return "peak_fp8_tflops";
  }
}

//! The name the user gave the format by: --precision, or its synonym --fp8.
std::string precision_setting(const SettingNames& names) {
  if (names.count("precision") == 0 && names.count("fp8") > 0) {
    return name_of(names, "fp8");
  }
  return name_of(names, "precision");
}

//! TransformerEngine runs its low-precision GEMMs inside bf16 training, on tensor cores that take
//! the format: fp8 on Hopper and later, mxfp8 and nvfp4 on Blackwell (GpuSpec::peak_flops > 0).
void check_gemm_format(const JobSpec& job, const SettingNames& names, Problems& problems) {
  const Strategy& s = job.strategy;
  if (!s.low_precision_gemms()) {
    return;
  }
  const std::string setting = precision_setting(names);
  const Dtype format = gemm_dtype(s.gemm_format, s.dtype);
  const std::string format_name(dtype_name(format));
  if (job.model.moe.enabled() && s.gemm_format == GemmFormat::nvfp4) {
    problems.push_back(setting + ": " + format_name + " grouped expert GEMMs of model " + quoted(job.model.name) +
                       " are not modelled; use precision fp8, mxfp8 or bf16");
  }
  if (s.dtype != Dtype::bf16) {
    problems.push_back(setting + ": " + format_name +
                       " GEMMs run inside bf16 training (TransformerEngine), got dtype '" +
                       std::string(dtype_name(s.dtype)) + "'");
  }
  for (const int type : job.cluster.gpu_types()) {
    const auto& gpu = job.cluster.gpu_of_type(type);
    if (gpu.peak_flops(format) <= 0) {
      problems.push_back(setting + ": gpu " + quoted(gpu.name) + " has no " + format_name + " tensor cores (" +
                         peak_field(format) + " 0); built-in GPUs with " + format_name + ": " +
                         builtin_gpus_running(format));
    }
  }
  const int high = s.bf16_layers_at_start + s.bf16_layers_at_end;
  if (high > job.model.total_layers() && job.model.total_layers() > 0) {
    problems.push_back(name_of(names, "bf16_layers_at_start") + " " + std::to_string(s.bf16_layers_at_start) + " + " +
                       name_of(names, "bf16_layers_at_end") + " " + std::to_string(s.bf16_layers_at_end) + " = " +
                       std::to_string(high) + " exceeds the " + std::to_string(job.model.total_layers()) +
                       " layers of model " + quoted(job.model.name) + "; the layers kept in bf16 must be among them");
  }
}

//! Megatron-Core runs latent attention's core through TransformerEngine's fused attention only
//! (MLASelfAttention builds its core_attention with separate key and value head sizes); the
//! up-projections' recomputation exists only where there are up-projections.
void check_latent_attention(const JobSpec& job, const SettingNames& names, Problems& problems) {
  if (job.model.mla.enabled() && job.strategy.attention == Attention::unfused) {
    problems.push_back("attention 'unfused' is not modelled with the latent attention of model " +
                       quoted(job.model.name) + ": its core runs as fused attention; use attention 'flash'");
  }
  if (!job.model.mla.enabled() && job.strategy.recompute == Recompute::mla_up_proj) {
    problems.push_back(name_of(names, "recompute") +
                       " 'mla_up_proj' recomputes latent attention's up-projections, but model " +
                       quoted(job.model.name) + " has no latent attention; use none, selective or full");
  }
}

//! The unfused core computes the whole score matrix before its mask; TransformerEngine's fused
//! attention is where Megatron-Core's sliding window (window_size) skips the tiles outside it.
void check_sliding_window(const JobSpec& job, Problems& problems) {
  if (job.model.sliding_window > 0 && job.strategy.attention == Attention::unfused) {
    problems.push_back("attention 'unfused' is not modelled with the sliding-window attention of model " +
                       quoted(job.model.name) + ": its window runs in fused attention; use attention 'flash'");
  }
}

void check_features(const JobSpec& job, const ScheduleRules& schedule_rules, const SettingNames& names,
                    Problems& problems) {
  const Strategy& s = job.strategy;
  require_positive(problems, "virtual_stages", s.virtual_stages);
  if (s.virtual_stages <= 0) {
    return;
  }
  schedule_rules(job, problems);
  check_sequence_parallel(job, problems);
  check_context_parallel(job, names, problems);
  check_latent_attention(job, names, problems);
  check_sliding_window(job, problems);
  detail::check_layer_structure_parallelism(job, problems);
  check_gemm_format(job, names, problems);
  check_experts(job, names, problems);
  check_sharding(job, names, problems);
  check_attention_kernel(job, names, problems);
  detail::check_variability(job, names, problems);
  check_gpu_placement(job, problems);
}

std::string problems_message(const Problems& problems) {
  if (problems.empty()) {
    return {};
  }
  std::string message =
      problems.size() == 1 ? "invalid job: " : "invalid job (" + std::to_string(problems.size()) + " problems):";
  for (size_t i = 0; i < problems.size(); ++i) {
    message += (problems.size() == 1 ? "" : "\n  - ") + problems[i];
  }
  return message;
}

void throw_if_any(const Problems& problems) {
  if (!problems.empty()) throw InputError(problems_message(problems));
}

}  // namespace

std::string job_problems_message(const JobSpec& job, const ScheduleRules& schedule_rules, const SettingNames& names) {
  Problems problems;
  check_model(job.model, problems);
  check_strategy(job, problems);
  check_features(job, schedule_rules, names, problems);
  return problems_message(problems);
}

void validate_job(const JobSpec& job, const ScheduleRules& schedule_rules, const SettingNames& names) {
  const std::string message = job_problems_message(job, schedule_rules, names);
  if (!message.empty()) throw InputError(message);
}

std::vector<std::string> precision_problems(const JobSpec& job, const SettingNames& names) {
  Problems problems;
  check_gemm_format(job, names, problems);
  return problems;
}

void validate_precision(const JobSpec& job, const SettingNames& names) { throw_if_any(precision_problems(job, names)); }

std::vector<std::string> combined_1f1b_problems(const JobSpec& job, const SettingNames& names) {
  Problems problems;
  detail::check_combined_1f1b(job, names, problems);
  return problems;
}

std::vector<std::string> shared_expert_overlap_problems(const JobSpec& job, const SettingNames& names) {
  Problems problems;
  detail::check_shared_expert_overlap(job, names, problems);
  return problems;
}

std::vector<std::string> unsimulated_features(const model::ModelSpec& model) {
  // Megatron-Core builds MTP modules in GPTModel only, after a decoder-only stack.
  if (model.mtp_layers > 0 && model.architecture != model::Architecture::decoder) {
    return {"model '" + model.name + "' has " + std::to_string(model.mtp_layers) +
            " multi-token prediction layer(s) in a model that is not decoder-only: distsim simulates them after a "
            "decoder-only stack, "
            "as Megatron-Core's GPTModel runs them"};
  }
  return {};
}

}  // namespace distsim::strategy
