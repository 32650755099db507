#include "io/spec/spec_writer.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace distsim::io {

namespace {

using Mapping = nlohmann::ordered_json;

void add_text(Mapping& node, const char* key, const std::string& value) {
  if (!value.empty()) node[key] = value;
}

const char* architecture_name(model::Architecture architecture) {
  switch (architecture) {
    case model::Architecture::decoder: return "decoder";
    case model::Architecture::encoder: return "encoder";
    case model::Architecture::encoder_decoder: return "encoder-decoder";
  }
  return "decoder";
}

const char* position_embedding_name(model::PositionEmbedding embedding) {
  switch (embedding) {
    case model::PositionEmbedding::learned: return "learned";
    case model::PositionEmbedding::rope: return "rope";
    case model::PositionEmbedding::relative: return "relative";
    case model::PositionEmbedding::none: return "none";
  }
  return "learned";
}

//! Numbers go in as text in their shortest form that reads back to the same double.
YAML::Node yaml_node(const Mapping& value) {
  if (value.is_object()) {
    YAML::Node node(YAML::NodeType::Map);
    for (const auto& [key, item] : value.items()) node[key] = yaml_node(item);
    return node;
  }
  if (value.is_array()) {
    YAML::Node node(YAML::NodeType::Sequence);
    for (const auto& item : value) node.push_back(yaml_node(item));
    return node;
  }
  if (value.is_boolean()) return YAML::Node(value.get<bool>());
  if (value.is_number_integer()) return YAML::Node(value.get<std::int64_t>());
  if (value.is_number()) return YAML::Node(fmt::format("{}", value.get<double>()));
  return YAML::Node(value.get<std::string>());
}

//! Only the fields a reader of model files needs to rebuild the experts; a dropless router has
//! no capacity_factor.
Mapping moe_json(const model::MoeSpec& moe) {
  Mapping node = Mapping::object();
  node["num_experts"] = moe.num_experts;
  node["top_k"] = moe.top_k;
  node["expert_ffn_hidden_size"] = moe.expert_ffn_hidden_size;
  node["shared_experts"] = moe.shared_experts;
  if (moe.shared_experts > 0) node["shared_expert_ffn_hidden_size"] = moe.shared_expert_ffn_hidden_size;
  node["first_dense_layers"] = moe.first_dense_layers;
  node["layer_interval"] = moe.layer_interval;
  node["router_scoring"] = moe.router_scoring == model::RouterScoring::sigmoid ? "sigmoid" : "softmax";
  if (moe.router_groups > 0) {
    node["router_groups"] = moe.router_groups;
    node["router_group_top_k"] = moe.router_group_top_k;
  }
  if (!moe.dropless()) node["capacity_factor"] = moe.capacity_factor;
  return node;
}

Mapping mla_json(const model::MlaSpec& mla) {
  Mapping node = Mapping::object();
  node["q_lora_rank"] = mla.q_lora_rank;
  node["kv_lora_rank"] = mla.kv_lora_rank;
  node["qk_nope_head_dim"] = mla.qk_nope_head_dim;
  node["qk_rope_head_dim"] = mla.qk_rope_head_dim;
  node["v_head_dim"] = mla.v_head_dim;
  return node;
}

Mapping mamba_json(const model::MambaSpec& mamba) {
  Mapping node = Mapping::object();
  node["num_heads"] = mamba.num_heads;
  node["groups"] = mamba.groups;
  node["head_dim"] = mamba.head_dim;
  node["state_size"] = mamba.state_size;
  node["conv_kernel"] = mamba.conv_kernel;
  node["chunk_size"] = mamba.chunk_size;
  return node;
}

std::string window_layers_name(model::WindowLayers layers) {
  switch (layers) {
    case model::WindowLayers::even: return "even";
    case model::WindowLayers::odd: return "odd";
    case model::WindowLayers::all: break;
  }
  return "all";
}

std::string emitted(const Mapping& mapping) {
  YAML::Emitter out;
  out << yaml_node(mapping);
  return std::string(out.c_str()) + "\n";
}

}  // namespace

Mapping model_json(const model::ModelSpec& model) {
  Mapping node = Mapping::object();
  add_text(node, "name", model.name);
  add_text(node, "description", model.description);
  add_text(node, "source", model.source);
  node["architecture"] = architecture_name(model.architecture);
  node["num_layers"] = model.num_layers;
  if (model.architecture == model::Architecture::encoder_decoder && model.decoder_num_layers > 0) {
    node["decoder_num_layers"] = model.decoder_num_layers;
  }
  node["hidden_size"] = model.hidden_size;
  node["num_attention_heads"] = model.num_attention_heads;
  node["num_kv_heads"] = model.num_kv_heads;
  if (model.kv_channels > 0) node["kv_channels"] = model.kv_channels;  // 0: hidden_size / heads
  node["ffn_hidden_size"] = model.ffn_hidden_size;
  node["ffn_type"] = std::string(model::ffn_type_name(model.ffn_type));
  node["norm"] = model.norm == model::NormType::rmsnorm ? "rmsnorm" : "layernorm";
  node["position_embedding"] = position_embedding_name(model.position_embedding);
  node["vocab_size"] = model.vocab_size;
  node["seq_length"] = model.seq_length;
  if (model.architecture == model::Architecture::encoder_decoder && model.decoder_seq_length > 0) {
    node["decoder_seq_length"] = model.decoder_seq_length;
  }
  node["tie_embeddings"] = model.tie_embeddings;
  // Dense models with standard attention are written as before these keys existed.
  if (model.linear_biases) node["linear_biases"] = *model.linear_biases;
  if (model.qkv_bias) node["qkv_bias"] = true;
  if (model.qk_norm) node["qk_norm"] = true;
  if (model.moe.enabled()) node["moe"] = moe_json(model.moe);
  if (model.mla.enabled()) node["mla"] = mla_json(model.mla);
  if (model.mtp_layers > 0) node["mtp_layers"] = model.mtp_layers;
  if (model.sliding_window > 0) {
    node["sliding_window"] = model.sliding_window;
    node["window_layers"] = window_layers_name(model.window_layers);
    if (model.window_start_layer > 0) {
      node["window_start_layer"] = model.window_start_layer;
    }
  }
  if (model.attention_sinks) node["attention_sinks"] = true;
  if (model.nope_layer_interval > 0) node["nope_layer_interval"] = model.nope_layer_interval;
  if (model.qk_l2_norm) node["qk_l2_norm"] = true;
  if (model.attention_chunk_size > 0) node["attention_chunk_size"] = model.attention_chunk_size;
  if (!model.hybrid_pattern.empty()) node["hybrid_pattern"] = model.hybrid_pattern;
  if (model.mamba.enabled()) node["mamba"] = mamba_json(model.mamba);
  return node;
}

Mapping gpu_json(const cluster::GpuSpec& gpu) {
  Mapping node = Mapping::object();
  add_text(node, "name", gpu.name);
  add_text(node, "description", gpu.description);
  add_text(node, "source", gpu.source);
  add_text(node, "architecture", gpu.architecture);
  node["peak_fp16_tflops"] = gpu.peak_fp16_tflops;
  node["peak_bf16_tflops"] = gpu.peak_bf16_tflops;
  node["peak_fp8_tflops"] = gpu.peak_fp8_tflops;
  if (gpu.peak_mxfp8_tflops > 0) node["peak_mxfp8_tflops"] = gpu.peak_mxfp8_tflops;
  if (gpu.peak_fp4_tflops > 0) node["peak_fp4_tflops"] = gpu.peak_fp4_tflops;
  node["peak_fp32_tflops"] = gpu.peak_fp32_tflops;
  node["memory_gb"] = gpu.memory_gb;
  node["memory_bandwidth_gbps"] = gpu.memory_bandwidth_gbps;
  node["sm_count"] = gpu.sm_count;
  node["gemm_efficiency"] = gpu.gemm_efficiency;
  node["fp8_gemm_efficiency"] = gpu.fp8_gemm_efficiency;
  if (gpu.fp4_gemm_efficiency > 0) node["fp4_gemm_efficiency"] = gpu.fp4_gemm_efficiency;
  node["memory_efficiency"] = gpu.memory_efficiency;
  node["kernel_launch_us"] = gpu.kernel_launch_us;
  if (gpu.tdp_w > 0) node["tdp_w"] = gpu.tdp_w;
  add_text(node, "default_cluster", gpu.default_cluster);
  return node;
}

Mapping attention_kernel_json(const catalog::AttentionKernel& kernel) {
  Mapping rates = Mapping::array();
  for (const auto& rate : kernel.rates) {
    rates.push_back({{"architecture", rate.architecture},
                     {"measured_on", rate.measured_on},
                     {"tflops", rate.tflops},
                     {"fraction_of_peak", rate.fraction_of_peak()},
                     {"source", rate.source}});
  }
  return {{"name", kernel.name}, {"description", kernel.description}, {"rates", rates}};
}

std::string hosts_text(const cluster::ClusterSpec& cluster, std::string_view times) {
  const auto group_text = [&](int hosts, const cluster::GpuSpec& gpu) {
    return std::to_string(hosts) + std::string(times) + std::to_string(cluster.gpus_per_host) + " " + gpu.name;
  };
  if (!cluster.mixed()) return group_text(cluster.num_hosts, cluster.gpu);
  std::string text;
  for (const auto& group : cluster.host_groups) {
    text += (text.empty() ? "" : " + ") + group_text(group.hosts, group.gpu);
  }
  return text;
}

Mapping cluster_json(const cluster::ClusterSpec& cluster) {
  Mapping node = Mapping::object();
  add_text(node, "name", cluster.name);
  add_text(node, "description", cluster.description);
  add_text(node, "source", cluster.source);
  if (cluster.mixed()) {
    Mapping groups = Mapping::array();
    for (const auto& group : cluster.host_groups)
      groups.push_back({{"gpu", gpu_json(group.gpu)}, {"hosts", group.hosts}});
    node["host_groups"] = groups;
  } else {
    node["gpu"] = gpu_json(cluster.gpu);
    node["num_hosts"] = cluster.num_hosts;
  }
  node["gpus_per_host"] = cluster.gpus_per_host;
  node["gpus_per_domain"] = cluster.gpus_per_domain();
  Mapping intra = Mapping::object();
  add_text(intra, "name", cluster.intra_node.name);
  intra["fabric"] = std::string(cluster::fabric_name(cluster.intra_node.fabric));
  intra["collective_busbw_gbps"] = cluster.intra_node.collective_busbw_gbps;
  intra["p2p_gbps"] = cluster.intra_node.p2p_gbps;
  intra["latency_us"] = cluster.intra_node.latency_us;
  node["intra_node"] = intra;
  Mapping inter = Mapping::object();
  add_text(inter, "name", cluster.inter_node.name);
  inter["nics_per_host"] = cluster.inter_node.nics_per_host;
  inter["nic_busbw_gbps"] = cluster.inter_node.nic_busbw_gbps;
  inter["latency_us"] = cluster.inter_node.latency_us;
  node["inter_node"] = inter;
  add_text(node, "host_cpu", cluster.host_cpu.name);
  return node;
}

std::string model_yaml(const model::ModelSpec& model) { return emitted(model_json(model)); }

std::string gpu_yaml(const cluster::GpuSpec& gpu) { return emitted(gpu_json(gpu)); }

std::string cluster_yaml(const cluster::ClusterSpec& cluster) { return emitted(cluster_json(cluster)); }

std::string flow_yaml(const Mapping& mapping) {
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << yaml_node(mapping);
  return out.c_str();
}

}  // namespace distsim::io
