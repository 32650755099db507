#include "catalog/builtin_models.hpp"

#include "catalog/find_by_name.hpp"

namespace distsim::catalog {

namespace {

using model::Architecture;
using model::FfnType;
using model::ModelSpec;
using model::NormType;
using model::PositionEmbedding;

// Megatron-LM pads the vocabulary to a multiple of 128 (--make-vocab-size-divisible-by, at
// tensor parallel size 1; docs/reference/formats.md §5.1). The built-in models use the
// padded size where they were trained with Megatron, because the padded rows are real GEMM work.

ModelSpec bert_large() {
  return {
      .name = "bert-large",
      .description = "BERT-Large: 24-layer bidirectional encoder, 1024 hidden, 16 heads (~335M parameters)",
      .source = "Devlin et al. 2019 (arXiv 1810.04805) §3: L=24, H=1024, A=16; HF bert-large-uncased "
                "config.json (formats.md §4): intermediate 4096, vocab 30522, max positions 512; vocab "
                "padded to 30592 as Megatron-LM trains it (multiple of 128, formats.md §5.1)",
      .architecture = Architecture::encoder,
      .num_layers = 24,
      .hidden_size = 1024,
      .num_attention_heads = 16,
      .num_kv_heads = 16,
      .ffn_hidden_size = 4096,
      .ffn_type = FfnType::gelu,
      .norm = NormType::layernorm,
      .position_embedding = PositionEmbedding::learned,
      .vocab_size = 30592,
      .seq_length = 512,
      .tie_embeddings = true,
  };
}

ModelSpec bert_exlarge() {
  ModelSpec model = bert_large();
  model.name = "bert-exlarge";
  model.description = "BERT-exLarge: BERT-Large deepened to 48 layers (~636M parameters)";
  model.source = "Lu et al., DistSim, CF'23: the model of the paper's TP/PP/DP grid search on 16 A10 "
                 "GPUs; every other field as bert-large";
  model.num_layers = 48;
  return model;
}

ModelSpec gpt2_345m() {
  return {
      .name = "gpt2-345m",
      .description = "Megatron-LM's \"345M\" GPT-2: 24 layers, 1024 hidden, 16 heads (~355M parameters)",
      .source = "Megatron-LM examples/pretrain_gpt.sh (historical 345M example, formats.md §5.1); "
                "HF gpt2-medium config.json (formats.md §4): n_inner null = 4h, n_positions 1024; "
                "GPT-2 BPE vocab 50257 padded to 50304 by Megatron-LM",
      .architecture = Architecture::decoder,
      .num_layers = 24,
      .hidden_size = 1024,
      .num_attention_heads = 16,
      .num_kv_heads = 16,
      .ffn_hidden_size = 4096,
      .ffn_type = FfnType::gelu,
      .norm = NormType::layernorm,
      .position_embedding = PositionEmbedding::learned,
      .vocab_size = 50304,
      .seq_length = 1024,
      .tie_embeddings = true,
  };
}

// T5's FFN is ReLU with one up-projection; it is modelled as the gelu type, which has the
// same GEMM shapes and an element-wise activation of the same cost.
ModelSpec t5_large() {
  return {
      .name = "t5-large",
      .description = "T5-Large: 24-layer encoder + 24-layer decoder, d_model 1024, 16 heads (~738M parameters)",
      .source = "Raffel et al. 2020 (JMLR, arXiv 1910.10683) and HF t5-large config.json (formats.md §4): "
                "d_model 1024, d_ff 4096 (ReLU), d_kv 64, 16 heads, 24+24 layers, vocab 32128, "
                "n_positions 512, tied embeddings; decoder length 128 is the pre-training target "
                "length (~114 tokens for span corruption of 512 inputs) rounded up to a multiple of 64",
      .architecture = Architecture::encoder_decoder,
      .num_layers = 24,
      .decoder_num_layers = 24,
      .hidden_size = 1024,
      .num_attention_heads = 16,
      .num_kv_heads = 16,
      .kv_channels = 64,
      .ffn_hidden_size = 4096,
      .ffn_type = FfnType::gelu,
      .norm = NormType::rmsnorm,
      .position_embedding = PositionEmbedding::relative,
      .vocab_size = 32128,
      .seq_length = 512,
      .decoder_seq_length = 128,
      .tie_embeddings = true,
  };
}

ModelSpec gpt3_175b() {
  return {
      .name = "gpt3-175b",
      .description = "GPT-3 175B: 96 layers, 12288 hidden, 96 heads, 2048 context",
      .source = "Brown et al. 2020 (arXiv 2005.14165) Table 2.1; Megatron-LM "
                "examples/gpt3/train_gpt3_175b_distributed.sh (formats.md §5.1); vocab 51200 as in "
                "the Megatron-LM runs of published_calibration.csv rows R044/R045 (Korthikanti et al. 2022)",
      .architecture = Architecture::decoder,
      .num_layers = 96,
      .hidden_size = 12288,
      .num_attention_heads = 96,
      .num_kv_heads = 96,
      .ffn_hidden_size = 49152,
      .ffn_type = FfnType::gelu,
      .norm = NormType::layernorm,
      .position_embedding = PositionEmbedding::learned,
      .vocab_size = 51200,
      .seq_length = 2048,
      .tie_embeddings = true,
  };
}

//! The Llama 3.1 family shares everything but its size. Sequence length 8192 is the pre-training
//! context (rope_scaling.original_max_position_embeddings), as in the NVIDIA recipes of
//! published_calibration rows R202-R215; the 128K max_position_embeddings is reached only by a
//! later long-context stage.
ModelSpec llama31(const char* name, const char* description, int layers, int hidden, int heads, int ffn) {
  return {
      .name = name,
      .description = description,
      .source = "HF meta-llama config.json (formats.md §4): GQA with 8 KV heads, SwiGLU (silu), RMSNorm, "
                "RoPE (theta 5e5), untied embeddings, vocab 128256; seq 8192 = "
                "rope_scaling.original_max_position_embeddings; head dimension hidden/heads = 128",
      .architecture = Architecture::decoder,
      .num_layers = layers,
      .hidden_size = hidden,
      .num_attention_heads = heads,
      .num_kv_heads = 8,
      .ffn_hidden_size = ffn,
      .ffn_type = FfnType::swiglu,
      .norm = NormType::rmsnorm,
      .position_embedding = PositionEmbedding::rope,
      .vocab_size = 128256,
      .seq_length = 8192,
      .tie_embeddings = false,
  };
}

std::vector<ModelSpec> make_models() {
  return {
      bert_large(),
      bert_exlarge(),
      gpt2_345m(),
      t5_large(),
      gpt3_175b(),
      llama31("llama-3.1-8b", "Llama 3.1 8B: 32 layers, 4096 hidden, 32 query / 8 KV heads", 32, 4096, 32, 14336),
      llama31("llama-3.1-70b", "Llama 3.1 70B: 80 layers, 8192 hidden, 64 query / 8 KV heads", 80, 8192, 64, 28672),
      llama31("llama-3.1-405b", "Llama 3.1 405B: 126 layers, 16384 hidden, 128 query / 8 KV heads", 126, 16384,
              128, 53248),
  };
}

}  // namespace

const std::vector<model::ModelSpec>& builtin_models() {
  static const std::vector<model::ModelSpec> models = make_models();
  return models;
}

const model::ModelSpec& find_model(std::string_view name) {
  return detail::find_by_name(builtin_models(), name, "model");
}

std::vector<std::string> model_names() { return detail::names_of(builtin_models()); }

}  // namespace distsim::catalog
