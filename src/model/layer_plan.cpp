#include "model/layer_plan.hpp"

namespace distsim::model {

std::optional<LayerBlock> hybrid_block(char symbol, const ModelSpec& model) {
  switch (symbol) {
    case 'M': return LayerBlock::mamba;
    case '*': return model.mla.enabled() ? LayerBlock::latent_attention : LayerBlock::self_attention;
    case '-': return LayerBlock::mlp;
    case 'E': return LayerBlock::moe;
    default: return std::nullopt;
  }
}

namespace {

//! Goes through a block's tensors with the model's conventions for biases and norms, summing
//! them and, given a list, listing them (the search sums millions of layers: no list there).
class BlockParameters {
 public:
  BlockParameters(const ModelSpec& model, std::vector<ParameterTensor>* list) : model_(model), list_(list) {}

  //! A norm over `size` elements: a scale, and a shift with LayerNorm.
  void norm(std::string_view name, std::int64_t size, ParameterSplit split = ParameterSplit::tensor) {
    add({name, (model_.norm == NormType::layernorm ? 2 : 1) * size, split, false});
  }
  //! A linear layer in → out, `copies` of it, with a bias each when the model has linear biases.
  void linear(std::string_view name, std::int64_t in, std::int64_t out, ParameterSplit split = ParameterSplit::tensor,
              std::int64_t copies = 1, bool low_precision = true) {
    add({name, copies * in * out, split, low_precision});
    if (model_.has_linear_biases()) {
      add({name, copies * out, split, false});
    }
  }
  //! `copies` MLPs of the model's type with FFN size `ffn`: FC1 (with a gated MLP's gate) and FC2.
  void mlp(std::string_view fc1, std::string_view fc2, std::int64_t ffn, ParameterSplit split, std::int64_t copies) {
    const std::int64_t h = model_.hidden_size;
    linear(fc1, h, is_gated(model_.ffn_type) ? 2 * ffn : ffn, split, copies);
    linear(fc2, ffn, h, split, copies);
  }
  void add(const ParameterTensor& tensor) {
    if (tensor.elements == 0) {
      return;
    }
    sums_.add(tensor);
    if (list_ != nullptr) {
      list_->push_back(tensor);
    }
  }
  const ParameterSums& sums() const { return sums_; }

 private:
  const ModelSpec& model_;
  std::vector<ParameterTensor>* list_;
  ParameterSums sums_;
};

std::int64_t query_width(const ModelSpec& model) {
  return static_cast<std::int64_t>(model.num_attention_heads) * model.head_dim();
}

std::int64_t kv_width(const ModelSpec& model) {
  return static_cast<std::int64_t>(model.num_kv_heads) * model.head_dim();
}

void self_attention(BlockParameters& block, const ModelSpec& model) {
  const std::int64_t h = model.hidden_size;
  const std::int64_t q = query_width(model);
  const std::int64_t qkv = q + 2 * kv_width(model);
  block.add({"qkv", h * qkv, ParameterSplit::tensor, true});
  if (model.has_linear_biases() || model.qkv_bias) {
    block.add({"qkv bias", qkv, ParameterSplit::tensor, false});
  }
  block.linear("attention out", q, h);
  if (model.qk_norm) {  // one scale for all query heads, one for all key heads
    block.norm("q norm", model.head_dim());
    block.norm("k norm", model.head_dim());
  }
  if (model.attention_sinks) {
    block.add({"attention sinks", model.num_attention_heads, ParameterSplit::tensor, false});  // a logit per head
  }
}

//! DeepSeek-V2 §2.1.2-2.1.3: c_Q = W_DQ·h (q_lora_rank), normed, q = W_UQ·c_Q over heads × (nope +
//! rope); [c_KV; k_R] = W_DKV·h (kv_lora_rank + one shared RoPE key), c_KV normed, [k_C; v] =
//! W_UKV·c_KV over heads × (nope + v); output heads × v → h. Without a query latent W_Q is h → q.
void latent_attention(BlockParameters& block, const ModelSpec& model) {
  const MlaSpec& mla = model.mla;
  const std::int64_t h = model.hidden_size;
  const std::int64_t heads = model.num_attention_heads;
  const std::int64_t q_out = heads * mla.qk_head_dim();
  if (mla.q_lora_rank > 0) {
    block.linear("q down", h, mla.q_lora_rank, ParameterSplit::duplicated);
    block.norm("q latent norm", mla.q_lora_rank, ParameterSplit::duplicated);
    block.linear("q up", mla.q_lora_rank, q_out);
  } else {
    block.linear("q", h, q_out);
  }
  block.linear("kv down", h, mla.kv_lora_rank + mla.qk_rope_head_dim, ParameterSplit::duplicated);
  block.norm("kv latent norm", mla.kv_lora_rank, ParameterSplit::duplicated);
  block.linear("kv up", mla.kv_lora_rank, heads * (mla.qk_nope_head_dim + mla.v_head_dim));
  block.linear("attention out", heads * mla.v_head_dim, h);
}

void cross_attention(BlockParameters& block, const ModelSpec& model) {
  const std::int64_t h = model.hidden_size;
  const std::int64_t q = query_width(model);
  block.linear("cross q", h, q);
  block.linear("cross kv", h, 2 * kv_width(model));
  block.linear("cross attention out", q, h);
}

//! The router's gate is a GEMM kept in 16 bits, with a bias per expert when the model has linear
//! biases (GPT-OSS's router is a biased linear layer: Hugging Face GptOssTopKRouter).
void experts(BlockParameters& block, const ModelSpec& model) {
  const MoeSpec& moe = model.moe;
  block.linear("router", model.hidden_size, moe.num_experts, ParameterSplit::tensor, 1, false);
  block.mlp("shared fc1", "shared fc2", moe.shared_expert_ffn_hidden_size, ParameterSplit::tensor, moe.shared_experts);
  block.mlp("expert fc1", "expert fc2", moe.expert_ffn_hidden_size, ParameterSplit::expert, moe.num_experts);
}

//! Megatron-Core's MambaMixer: in_proj (z, x, B, C, dt) column-parallel; the depthwise causal
//! convolution over x, B and C with a bias per channel; per head a step-size bias, the decay A
//! (A_log) and the skip D; the gated RMSNorm's scale over the inner width; out_proj row-parallel.
//! Tensor parallelism splits heads and groups, so every tensor is split over tp.
void mamba(BlockParameters& block, const ModelSpec& model) {
  const MambaSpec& mamba = model.mamba;
  block.linear("in proj", model.hidden_size, mamba.in_projection());
  block.add({"conv1d", mamba.conv_channels() * mamba.conv_kernel, ParameterSplit::tensor, false});
  block.add({"conv1d bias", mamba.conv_channels(), ParameterSplit::tensor, false});
  block.add({"dt bias, A log, D", 3 * std::int64_t{mamba.num_heads}, ParameterSplit::tensor, false});
  block.add({"gated norm", mamba.inner(), ParameterSplit::tensor, false});
  block.linear("out proj", mamba.inner(), model.hidden_size);
}

//! The block's pre-norm and tensors.
void go_through(BlockParameters& parameters, const ModelSpec& model, LayerBlock block) {
  parameters.norm("norm", model.hidden_size);
  switch (block) {
    case LayerBlock::self_attention: self_attention(parameters, model); break;
    case LayerBlock::latent_attention: latent_attention(parameters, model); break;
    case LayerBlock::cross_attention: cross_attention(parameters, model); break;
    case LayerBlock::mlp: parameters.mlp("fc1", "fc2", model.ffn_hidden_size, ParameterSplit::tensor, 1); break;
    case LayerBlock::moe: experts(parameters, model); break;
    case LayerBlock::mamba: mamba(parameters, model); break;
  }
}

}  // namespace

std::vector<ParameterTensor> block_parameters(const ModelSpec& model, LayerBlock block) {
  std::vector<ParameterTensor> list;
  BlockParameters parameters(model, &list);
  go_through(parameters, model, block);
  return list;
}

void ParameterSums::add(const ParameterTensor& parameter) {
  const bool low = parameter.low_precision_gemm;
  switch (parameter.split) {
    case ParameterSplit::tensor:
      tensor += parameter.elements;
      low_precision_tensor += low ? parameter.elements : 0;
      break;
    case ParameterSplit::duplicated:
      duplicated += parameter.elements;
      low_precision_duplicated += low ? parameter.elements : 0;
      break;
    case ParameterSplit::expert:
      expert += parameter.elements;
      low_precision_expert += low ? parameter.elements : 0;
      break;
  }
}

ParameterSums ParameterSums::times(std::int64_t copies) const {
  return {tensor * copies,
          duplicated * copies,
          expert * copies,
          low_precision_tensor * copies,
          low_precision_duplicated * copies,
          low_precision_expert * copies};
}

ParameterSums& ParameterSums::operator+=(const ParameterSums& other) {
  tensor += other.tensor;
  duplicated += other.duplicated;
  expert += other.expert;
  low_precision_tensor += other.low_precision_tensor;
  low_precision_duplicated += other.low_precision_duplicated;
  low_precision_expert += other.low_precision_expert;
  return *this;
}

ParameterSums block_parameter_sums(const ModelSpec& model, LayerBlock block) {
  BlockParameters parameters(model, nullptr);
  go_through(parameters, model, block);
  return parameters.sums();
}

ParameterSums layer_parameter_sums(const ModelSpec& model, int layer) { return layers_parameter_sums(model, layer, 1); }

ParameterSums layers_parameter_sums(const ModelSpec& model, int first, int count) {
  ParameterSums total;
  LayerPlan plan;
  ParameterSums run;
  std::int64_t run_length = 0;
  const auto end_run = [&] {
    total += run.times(run_length);
    run_length = 0;
  };
  for (int layer = first; layer < first + count; ++layer) {
    const LayerPlan next = layer_plan(model, layer);
    if (run_length == 0 || !(next == plan)) {
      end_run();
      plan = next;
      run = ParameterSums{};
      for (const LayerBlock block : plan) {
        run += block_parameter_sums(model, block);
      }
    }
    ++run_length;
  }
  end_run();
  return total;
}

ParameterSums mtp_module_parameter_sums(const ModelSpec& model) {
  BlockParameters parameters(model, nullptr);
  const std::int64_t h = model.hidden_size;
  parameters.norm("hidden norm", h);
  parameters.norm("embedding norm", h);
  parameters.linear("eh proj", 2 * h, h);
  parameters.norm("head norm", h);
  ParameterSums sums = layer_parameter_sums(model, model.num_layers);
  sums += parameters.sums();
  return sums;
}

}  // namespace distsim::model
