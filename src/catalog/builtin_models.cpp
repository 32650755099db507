#include "catalog/builtin_models.hpp"

#include "catalog/find_by_name.hpp"

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "model/parameter_count.hpp"

namespace distsim::catalog {

namespace {

using model::Architecture;
using model::FfnType;
using model::MlaSpec;
using model::ModelSpec;
using model::MoeSpec;
using model::NormType;
using model::PositionEmbedding;
using model::RouterScoring;
using model::WindowLayers;

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

//! Mixtral's attention and experts are Mistral 7B's (arXiv 2401.04088 §2, Table 1): GQA with 8 KV
//! heads of 128, SwiGLU experts, RMSNorm, RoPE (theta 1e6), no sliding window, untied embeddings;
//! every layer has 8 experts and a softmax top-2 router.
ModelSpec mixtral(const char* name, const char* description, const char* source, int layers, int hidden, int heads,
                  int ffn, int seq_length) {
  return {
      .name = name,
      .description = description,
      .source = source,
      .architecture = Architecture::decoder,
      .num_layers = layers,
      .hidden_size = hidden,
      .num_attention_heads = heads,
      .num_kv_heads = 8,
      .ffn_hidden_size = ffn,
      .ffn_type = FfnType::swiglu,
      .norm = NormType::rmsnorm,
      .position_embedding = PositionEmbedding::rope,
      .vocab_size = 32000,
      .seq_length = seq_length,
      .tie_embeddings = false,
      .moe = {.num_experts = 8, .top_k = 2, .expert_ffn_hidden_size = ffn},
  };
}

//! Qwen3-MoE (Qwen3 technical report, arXiv 2505.09388 Table 2): GQA with 4 KV heads of 128,
//! QK-norm, SwiGLU, RMSNorm, RoPE, 128 experts with a softmax top-8 router and no shared expert in
//! every layer (decoder_sparse_step 1, mlp_only_layers []), untied embeddings, vocab 151936. The
//! sequence is 4096, the length of the general and reasoning pre-training stages (report §3.2);
//! the 32768 of the last stage and the 40960 max_position_embeddings come later.
ModelSpec qwen3_moe(const char* name, const char* description, const char* source, int layers, int hidden, int heads,
                    int ffn, int expert_ffn) {
  return {
      .name = name,
      .description = description,
      .source = source,
      .architecture = Architecture::decoder,
      .num_layers = layers,
      .hidden_size = hidden,
      .num_attention_heads = heads,
      .num_kv_heads = 4,
      .kv_channels = 128,
      .ffn_hidden_size = ffn,
      .ffn_type = FfnType::swiglu,
      .norm = NormType::rmsnorm,
      .position_embedding = PositionEmbedding::rope,
      .vocab_size = 151936,
      .seq_length = 4096,
      .tie_embeddings = false,
      .qk_norm = true,
      .moe = {.num_experts = 128, .top_k = 8, .expert_ffn_hidden_size = expert_ffn},
  };
}

//! kv_channels is the query/key head dimension of the attention scores, qk_nope + qk_rope = 192.
ModelSpec deepseek_v3() {
  return {
      .name = "deepseek-v3",
      .description = "DeepSeek-V3: 61 layers (3 dense, 58 MoE with 256 routed experts, top-8, 1 shared), "
                     "7168 hidden, 128-head multi-head latent attention, 1 MTP module (671B total, 37B active)",
      .source = "DeepSeek-V3 technical report (arXiv 2412.19437) §2 and §4.2; HF deepseek-ai/DeepSeek-V3 "
                "config.json: hidden_size 7168, num_hidden_layers 61, num_attention_heads 128, intermediate_size "
                "18432, moe_intermediate_size 2048, n_routed_experts 256, num_experts_per_tok 8, n_shared_experts 1, "
                "first_k_dense_replace 3, moe_layer_freq 1, scoring_func sigmoid, n_group 8, topk_group 4, "
                "q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128, "
                "vocab_size 129280, untied, num_nextn_predict_layers 1; seq 4096 = "
                "rope_scaling.original_max_position_embeddings, the pre-training length (report §4.2)",
      .architecture = Architecture::decoder,
      .num_layers = 61,
      .hidden_size = 7168,
      .num_attention_heads = 128,
      .num_kv_heads = 128,
      .kv_channels = 192,
      .ffn_hidden_size = 18432,
      .ffn_type = FfnType::swiglu,
      .norm = NormType::rmsnorm,
      .position_embedding = PositionEmbedding::rope,
      .vocab_size = 129280,
      .seq_length = 4096,
      .tie_embeddings = false,
      .moe = {.num_experts = 256,
              .top_k = 8,
              .expert_ffn_hidden_size = 2048,
              .shared_experts = 1,
              .shared_expert_ffn_hidden_size = 2048,
              .first_dense_layers = 3,
              .router_scoring = RouterScoring::sigmoid,
              .router_groups = 8,
              .router_group_top_k = 4},
      .mla = {.q_lora_rank = 1536,
              .kv_lora_rank = 512,
              .qk_nope_head_dim = 128,
              .qk_rope_head_dim = 64,
              .v_head_dim = 128},
      .mtp_layers = 1,
  };
}

//! Kimi K2 (Kimi K2 technical report, arXiv 2507.20534, §2.1 and Table 2): DeepSeek-V3's
//! architecture with 384 routed experts (top-8, one shared), 64 attention heads instead of 128, one
//! dense layer instead of three, a single expert group, no MTP module, and its own vocabulary.
ModelSpec kimi_k2() {
  ModelSpec model = deepseek_v3();
  model.name = "kimi-k2";
  model.description =
      "Kimi K2: 61 layers (1 dense, 60 MoE with 384 routed experts, top-8, 1 shared), 7168 hidden, 64-head "
      "multi-head latent attention (1.03T total, 32.9B active)";
  model.source =
      "Kimi K2 technical report (arXiv 2507.20534) §2.1 and Table 2: DeepSeek-V3's architecture with 384 experts, "
      "64 heads, 1 dense layer and no expert grouping (1.04T total, 32.6B active), so the latent-attention ranks "
      "are DeepSeek-V3's; Megatron-Bridge KimiK2Provider: num_layers 61, hidden_size 7168, ffn_hidden_size 18432, "
      "num_moe_experts 384, moe_ffn_hidden_size 2048, moe_shared_expert_intermediate_size 2048, "
      "num_attention_heads 64, moe_router_topk 8, moe_router_num_groups 1, untied, no MTP, seq_length 4096 (the "
      "pre-training length); HF moonshotai/Kimi-K2-Instruct config.json (model_type kimi_k2 with DeepSeek-V3's "
      "keys): vocab_size 163840, first_k_dense_replace 1, n_shared_experts 1, num_experts_per_tok 8";
  model.num_attention_heads = 64;
  model.num_kv_heads = 64;
  model.vocab_size = 163840;
  model.moe.num_experts = 384;
  model.moe.first_dense_layers = 1;
  model.moe.router_groups = 1;
  model.moe.router_group_top_k = 1;
  model.mtp_layers = 0;
  return model;
}

//! NVIDIA's GPT-style Nemotron models, Nemotron-3 (NeMo's Nemotron3Config8B and 22B,
//! nemo/collections/llm/gpt/model/nemotron.py) and Nemotron-4 (15B: arXiv 2402.16819 §2 and
//! Table 1; 340B: arXiv 2406.11704 §2.1 and Table 1): squared-ReLU MLP of 4h, LayerNorm, RoPE, no
//! biases, untied embeddings, vocab 256000, sequence 4096; Nemotron-3 with multi-head attention,
//! Nemotron-4 with GQA over 8 KV heads. RoPE covers half of each head (rotary_percent 0.5,
//! partial_rotary_factor in the HF config); the rotary kernel still reads and writes whole heads,
//! so it is priced as full RoPE.
ModelSpec nemotron(const char* name, const char* description, const char* source, int layers, int hidden, int heads,
                   int kv_heads) {
  return {
      .name = name,
      .description = description,
      .source = source,
      .architecture = Architecture::decoder,
      .num_layers = layers,
      .hidden_size = hidden,
      .num_attention_heads = heads,
      .num_kv_heads = kv_heads,
      .ffn_hidden_size = 4 * hidden,
      .ffn_type = FfnType::squared_relu,
      .norm = NormType::layernorm,
      .position_embedding = PositionEmbedding::rope,
      .vocab_size = 256000,
      .seq_length = 4096,
      .tie_embeddings = false,
      .linear_biases = false,
  };
}

//! GPT-OSS (OpenAI gpt-oss model card, arXiv 2508.10925, §2 and Table 1; HF openai/gpt-oss-120b and
//! gpt-oss-20b config.json): every layer MoE with biased experts, router and attention
//! projections, 64 query / 8 KV heads of 64, attention sinks, and layer_types alternating
//! "sliding_attention" (even layers, window 128) with "full_attention". Its SwiGLU clamps the
//! gate and the linear input to ±7 (swiglu_limit) and adds 1 to the linear half; the kernel reads
//! and writes the same bytes as Megatron's SwiGLU, so it is priced as swiglu.
ModelSpec gpt_oss(const char* name, const char* description, const char* source, int layers, int experts) {
  return {
      .name = name,
      .description = description,
      .source = source,
      .architecture = Architecture::decoder,
      .num_layers = layers,
      .hidden_size = 2880,
      .num_attention_heads = 64,
      .num_kv_heads = 8,
      .kv_channels = 64,
      .ffn_hidden_size = 2880,
      .ffn_type = FfnType::swiglu,
      .norm = NormType::rmsnorm,
      .position_embedding = PositionEmbedding::rope,
      .vocab_size = 201088,
      .seq_length = 4096,
      .tie_embeddings = false,
      .linear_biases = true,
      .moe = {.num_experts = experts, .top_k = 4, .expert_ffn_hidden_size = 2880},
      .sliding_window = 128,
      .window_layers = WindowLayers::even,
      .attention_sinks = true,
  };
}

//! Llama 4 (Megatron-Bridge Llama4ModelProvider; HF meta-llama/Llama-4-*-17B-*E config.json
//! text_config): 48 layers of 5120, 40 query / 8 KV heads of 128, RMSNorm, SwiGLU, untied, vocabulary
//! 202048; MoE layers of `experts` experts of 8192 with a sigmoid top-1 router and one shared expert
//! of 8192, every `moe_interval`-th layer, the others a dense MLP of 16384; iRoPE, every 4th layer
//! without RoPE; attention in chunks of 8192 tokens; sequence 8192 (the provider's seq_length). The
//! early-fusion vision encoder is left out.
ModelSpec llama4(const char* name, const char* description, const char* source, int experts, int moe_interval,
                 bool qk_l2_norm) {
  return {
      .name = name,
      .description = description,
      .source = source,
      .architecture = Architecture::decoder,
      .num_layers = 48,
      .hidden_size = 5120,
      .num_attention_heads = 40,
      .num_kv_heads = 8,
      .kv_channels = 128,
      .ffn_hidden_size = 16384,
      .ffn_type = FfnType::swiglu,
      .norm = NormType::rmsnorm,
      .position_embedding = PositionEmbedding::rope,
      .vocab_size = 202048,
      .seq_length = 8192,
      .tie_embeddings = false,
      .moe = {.num_experts = experts,
              .top_k = 1,
              .expert_ffn_hidden_size = 8192,
              .shared_experts = 1,
              .shared_expert_ffn_hidden_size = 8192,
              .layer_interval = moe_interval,
              .router_scoring = model::RouterScoring::sigmoid},
      .nope_layer_interval = 4,
      .qk_l2_norm = qk_l2_norm,
      .attention_chunk_size = 8192,
  };
}

//! Nemotron-H (arXiv 2504.03624; Megatron-Bridge NemotronHModelProvider): a hybrid pattern of
//! Mamba-2 ('M'), squared-ReLU MLP ('-') and attention ('*') layers, RMSNorm, no position embedding,
//! no linear biases, untied embeddings, vocabulary 131072, sequence 8192; attention with 8 KV heads
//! of 128; Mamba-2 heads of 64 in 8 groups, a 4-tap convolution, scan chunks of 128.
ModelSpec nemotron_h(const char* name, const char* description, const char* source, const char* pattern, int hidden,
                     int heads, int ffn, int mamba_heads, int state) {
  return {
      .name = name,
      .description = description,
      .source = source,
      .architecture = Architecture::decoder,
      .num_layers = static_cast<int>(std::string_view(pattern).size()),
      .hidden_size = hidden,
      .num_attention_heads = heads,
      .num_kv_heads = 8,
      .kv_channels = 128,
      .ffn_hidden_size = ffn,
      .ffn_type = FfnType::squared_relu,
      .norm = NormType::rmsnorm,
      .position_embedding = PositionEmbedding::none,
      .vocab_size = 131072,
      .seq_length = 8192,
      .tie_embeddings = false,
      .linear_biases = false,
      .hybrid_pattern = pattern,
      .mamba = {.num_heads = mamba_heads,
                .head_dim = 64,
                .state_size = state,
                .groups = 8,
                .conv_kernel = 4,
                .chunk_size = 128},
  };
}

//! Nemotron 3 Nano 30B-A3B (HF nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B config.json; Megatron-Bridge
//! Nemotron3NanoProvider): Nemotron-H's layers with mixture-of-experts layers ('E') in place of the
//! MLP ones: 128 squared-ReLU experts of 1856, top-6 with a sigmoid router, one shared expert of
//! 3712; 2 KV heads; Mamba-2 with 64 heads. Not the latent MoE of Nemotron 3 Super.
ModelSpec nemotron_3_nano() {
  ModelSpec model = nemotron_h(
      "nemotron-3-nano-30b-a3b",
      "Nemotron 3 Nano 30B-A3B: 52 hybrid layers (23 Mamba-2, 23 MoE, 6 attention), 2688 hidden, 128 experts "
      "top-6 and a shared expert (31.6B total, 3.6B active)",
      "HF nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B config.json: hidden_size 2688, num_hidden_layers 52, "
      "hybrid_override_pattern MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME, num_attention_heads 32, "
      "num_key_value_heads 2, head_dim 128, mamba_num_heads 64, mamba_head_dim 64, ssm_state_size 128, n_groups 8, "
      "conv_kernel 4, chunk_size 128, n_routed_experts 128, moe_intermediate_size 1856, "
      "moe_shared_expert_intermediate_size 3712, num_experts_per_tok 6, mlp_hidden_act relu2, vocab_size 131072; "
      "Megatron-Bridge Nemotron3NanoProvider (sigmoid router, moe_latent_size none)",
      "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME", 2688, 32, 1856, 64, 128);
  model.num_kv_heads = 2;
  model.moe = {.num_experts = 128,
               .top_k = 6,
               .expert_ffn_hidden_size = 1856,
               .shared_experts = 1,
               .shared_expert_ffn_hidden_size = 3712,
               .router_scoring = model::RouterScoring::sigmoid};
  return model;
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
      llama31("llama-3.1-405b", "Llama 3.1 405B: 126 layers, 16384 hidden, 128 query / 8 KV heads", 126, 16384, 128,
              53248),
      mixtral("mixtral-8x7b", "Mixtral 8x7B: 32 layers, 4096 hidden, 8 experts top-2 (46.7B total, 12.9B active)",
              "Jiang et al. 2024 (arXiv 2401.04088) Table 1; HF mistralai/Mixtral-8x7B-v0.1 config.json "
              "(formats.md §4): hidden 4096, 32 layers, 32/8 heads, intermediate 14336, num_local_experts 8, "
              "num_experts_per_tok 2, vocab 32000, max_position_embeddings 32768 (the 32k training context, "
              "paper §2), sliding_window null",
              32, 4096, 32, 14336, 32768),
      mixtral("mixtral-8x22b", "Mixtral 8x22B: 56 layers, 6144 hidden, 8 experts top-2 (141B total, 39B active)",
              "Mistral AI announcement 2024-04-17 (141B total, 39B active, 64K context); HF "
              "mistralai/Mixtral-8x22B-v0.1 config.json: hidden 6144, 56 layers, 48/8 heads, intermediate 16384, "
              "num_local_experts 8, num_experts_per_tok 2, vocab 32000, max_position_embeddings 65536",
              56, 6144, 48, 16384, 65536),
      qwen3_moe("qwen3-30b-a3b", "Qwen3-30B-A3B: 48 layers, 2048 hidden, 128 experts top-8 (30.5B total, 3.3B active)",
                "Qwen3 technical report (arXiv 2505.09388) Table 2; HF Qwen/Qwen3-30B-A3B config.json: hidden 2048, "
                "48 layers, 32/4 heads, head_dim 128, intermediate 6144, moe_intermediate_size 768, num_experts "
                "128, num_experts_per_tok 8, decoder_sparse_step 1, vocab 151936, untied",
                48, 2048, 32, 6144, 768),
      qwen3_moe("qwen3-235b-a22b",
                "Qwen3-235B-A22B: 94 layers, 4096 hidden, 128 experts top-8 (235B total, 22B active)",
                "Qwen3 technical report (arXiv 2505.09388) Table 2; HF Qwen/Qwen3-235B-A22B config.json: hidden "
                "4096, 94 layers, 64/4 heads, head_dim 128, intermediate 12288, moe_intermediate_size 1536, "
                "num_experts 128, num_experts_per_tok 8, decoder_sparse_step 1, vocab 151936, untied",
                94, 4096, 64, 12288, 1536),
      deepseek_v3(),
      kimi_k2(),
      nemotron("nemotron-3-8b", "Nemotron-3 8B: 32 layers, 4096 hidden, 32 heads, squared ReLU",
               "NeMo nemo/collections/llm/gpt/model/nemotron.py, Nemotron3Config8B (num_layers 32, hidden_size 4096, "
               "ffn_hidden_size 16384, num_attention_heads 32, no query groups, seq_length 4096) over NemotronConfig "
               "(LayerNorm, squared_relu, rope with rotary_percent 0.5, no linear biases, untied); HF "
               "nvidia/nemotron-3-8b-base-4k: 256K SentencePiece vocabulary (256000)",
               32, 4096, 32, 32),
      nemotron("nemotron-3-22b", "Nemotron-3 22B: 40 layers, 6144 hidden, 48 heads, squared ReLU",
               "NeMo nemo/collections/llm/gpt/model/nemotron.py, Nemotron3Config22B (num_layers 40, hidden_size "
               "6144, ffn_hidden_size 24576, num_attention_heads 48, no query groups, seq_length 4096) over "
               "NemotronConfig, with Nemotron-3 8B's vocabulary of 256000",
               40, 6144, 48, 48),
      nemotron("nemotron-4-15b", "Nemotron-4 15B: 32 layers, 6144 hidden, 48 query / 8 KV heads, squared ReLU",
               "Parmar et al. 2024, Nemotron-4 15B Technical Report (arXiv 2402.16819) Table 1; HF NemotronConfig "
               "defaults (intermediate_size 24576, hidden_act relu2, tie_word_embeddings false)",
               32, 6144, 48, 8),
      nemotron("nemotron-4-340b", "Nemotron-4 340B: 96 layers, 18432 hidden, 96 query / 8 KV heads, squared ReLU",
               "NVIDIA 2024, Nemotron-4 340B Technical Report (arXiv 2406.11704) Table 1; ffn_hidden_size 73728 "
               "(4h) from the released nvidia/Nemotron-4-340B-Base model config",
               96, 18432, 96, 8),
      nemotron_h("nemotron-h-8b",
                 "Nemotron-H 8B: 52 hybrid layers (24 Mamba-2, 24 MLP, 4 attention), 4096 hidden (8.10B)",
                 "Nemotron-H report (arXiv 2504.03624); HF nvidia/Nemotron-H-8B-Base-8K config.json: hidden_size "
                 "4096, num_hidden_layers 52, hybrid_override_pattern as here, num_attention_heads 32, "
                 "num_key_value_heads 8, attention_head_dim 128, intermediate_size 21504, mlp_hidden_act relu2, "
                 "mamba_num_heads 128, mamba_head_dim 64, ssm_state_size 128, n_groups 8, conv_kernel 4, chunk_size "
                 "128, use_bias false, vocab_size 131072, tie_word_embeddings false, max_position_embeddings 8192",
                 "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-", 4096, 32, 21504, 128, 128),
      nemotron_h("nemotron-h-47b",
                 "Nemotron-H 47B: 98 hybrid layers (45 Mamba-2, 48 MLP, 5 attention), 8192 hidden (46.8B)",
                 "Nemotron-H report (arXiv 2504.03624); Megatron-Bridge NemotronHModelProvider47B: num_layers 98, "
                 "hybrid_override_pattern as here, hidden_size 8192, ffn_hidden_size 30720, num_attention_heads 64, "
                 "mamba_num_heads 256, mamba_state_dim 256, with the provider's mamba_head_dim 64, mamba_num_groups "
                 "8, num_query_groups 8, squared ReLU, vocabulary 131072, seq_length 8192",
                 "M-M-M-M-M-M-M-M-M*-M-M-M-M-M-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-M-M---MM---M-M*-M-M-M-M-M-",
                 8192, 64, 30720, 256, 256),
      nemotron_h("nemotron-h-56b",
                 "Nemotron-H 56B: 118 hybrid layers (54 Mamba-2, 54 MLP, 10 attention), 8192 hidden (56.3B)",
                 "Nemotron-H report (arXiv 2504.03624); Megatron-Bridge NemotronHModelProvider56B: num_layers 118, "
                 "hybrid_override_pattern as here, hidden_size 8192, ffn_hidden_size 32768, num_attention_heads 64, "
                 "mamba_num_heads 256, mamba_state_dim 256, with the provider's mamba_head_dim 64, mamba_num_groups "
                 "8, num_query_groups 8, squared ReLU, vocabulary 131072, seq_length 8192",
                 "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-"
                 "M-M-M*-M-M-M-M-M-",
                 8192, 64, 32768, 256, 256),
      nemotron_3_nano(),
      llama4("llama-4-scout",
             "Llama 4 Scout 17B-16E: 48 layers, 5120 hidden, 16 experts top-1 and a shared expert in every layer, "
             "iRoPE, chunked attention (107.8B total, 17.2B active; text model)",
             "Meta Llama 4 model card (109B total, 17B active, with the vision encoder); HF "
             "meta-llama/Llama-4-Scout-17B-16E config.json text_config: hidden_size 5120, num_hidden_layers 48, "
             "num_attention_heads 40, num_key_value_heads 8, head_dim 128, intermediate_size 8192, "
             "intermediate_size_mlp 16384, num_local_experts 16, num_experts_per_tok 1, "
             "interleave_moe_layer_step 1, no_rope_layer_interval 4, use_qk_norm true, attention_chunk_size 8192, "
             "vocab_size 202048; Megatron-Bridge Llama4Experts16ModelProvider (seq_length 8192, sigmoid router, "
             "qk_l2_norm, nope_layer_interval 4)",
             16, 1, true),
      llama4("llama-4-maverick",
             "Llama 4 Maverick 17B-128E: 48 layers, 5120 hidden, 128 experts top-1 and a shared expert in every "
             "other layer, iRoPE, chunked attention (400.7B total, 17.2B active; text model)",
             "Meta Llama 4 model card (400B total, 17B active); HF meta-llama/Llama-4-Maverick-17B-128E "
             "config.json text_config: as Scout with num_local_experts 128, interleave_moe_layer_step 2 (the odd "
             "layers MoE), use_qk_norm false; Megatron-Bridge Llama4Experts128ModelProvider (moe_layer_freq "
             "[0, 1] x 24, qk_l2_norm false)",
             128, 2, false),
      gpt_oss("gpt-oss-120b",
              "GPT-OSS 120B: 36 layers, 2880 hidden, 128 experts top-4, sliding window 128 on alternate layers, "
              "attention sinks (116.8B total, 5.1B active)",
              "OpenAI gpt-oss model card (arXiv 2508.10925) Table 1; HF openai/gpt-oss-120b config.json: "
              "hidden_size 2880, num_hidden_layers 36, num_attention_heads 64, num_key_value_heads 8, head_dim 64, "
              "intermediate_size 2880, num_local_experts 128, num_experts_per_tok 4, vocab_size 201088, "
              "attention_bias true, sliding_window 128, layer_types sliding/full alternating, swiglu_limit 7.0 "
              "(priced as swiglu), tie_word_embeddings false; seq 4096 = initial_context_length",
              36, 128),
      gpt_oss("gpt-oss-20b",
              "GPT-OSS 20B: 24 layers, 2880 hidden, 32 experts top-4, sliding window 128 on alternate layers, "
              "attention sinks (20.9B total, 3.6B active)",
              "OpenAI gpt-oss model card (arXiv 2508.10925) Table 1; HF openai/gpt-oss-20b config.json: as "
              "gpt-oss-120b with num_hidden_layers 24 and num_local_experts 32",
              24, 32),
  };
}

// The names the ecosystem gives the built-in models: Hugging Face model ids, and Megatron-Bridge
// recipe names where the one name rule does not already make them equal (a '.' between digits
// is a decimal point, so "llama31_8b" is not "llama-3.1-8b"). Llama 3 8B and 70B have Llama 3.1's
// layers, widths, heads and vocabulary (HF Meta-Llama-3-8B and -70B config.json; only the RoPE
// scaling for long contexts differs, which costs nothing), and torchtitan's llama3 flavors 8B,
// 70B and 405B are these shapes ("llama3 8B").
std::vector<CatalogAlias> make_model_aliases() {
  const std::pair<const char*, std::vector<const char*>> names[] = {
      {"bert-large", {"google-bert/bert-large-uncased", "bert-large-uncased", "bert-large-cased"}},
      {"gpt2-345m", {"openai-community/gpt2-medium", "gpt2-medium"}},
      {"t5-large", {"google-t5/t5-large"}},
      {"llama-3.1-8b",
       {"meta-llama/Llama-3.1-8B", "meta-llama/Meta-Llama-3.1-8B", "llama31_8b", "llama3-8b",
        "meta-llama/Meta-Llama-3-8B"}},
      {"llama-3.1-70b",
       {"meta-llama/Llama-3.1-70B", "meta-llama/Meta-Llama-3.1-70B", "llama31_70b", "llama3-70b",
        "meta-llama/Meta-Llama-3-70B"}},
      {"llama-3.1-405b",
       {"meta-llama/Llama-3.1-405B", "meta-llama/Meta-Llama-3.1-405B", "llama31_405b", "llama3-405b"}},
      {"mixtral-8x7b", {"mistralai/Mixtral-8x7B-v0.1", "mistralai/Mixtral-8x7B-Instruct-v0.1"}},
      {"mixtral-8x22b", {"mistralai/Mixtral-8x22B-v0.1", "mistralai/Mixtral-8x22B-Instruct-v0.1"}},
      {"qwen3-30b-a3b", {"Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-30B-A3B-Base"}},
      {"qwen3-235b-a22b", {"Qwen/Qwen3-235B-A22B"}},
      {"deepseek-v3", {"deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3-Base"}},
      {"kimi-k2", {"moonshotai/Kimi-K2-Base", "moonshotai/Kimi-K2-Instruct"}},
      {"nemotron-3-8b", {"nvidia/nemotron-3-8b-base-4k"}},
      {"nemotron-4-15b", {"nvidia/nemotron-4-15b"}},
      {"nemotron-4-340b", {"nvidia/Nemotron-4-340B-Base"}},
      {"llama-4-scout",
       {"meta-llama/Llama-4-Scout-17B-16E", "meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama4_e16",
        "llama4-scout-17b-16e"}},
      {"llama-4-maverick",
       {"meta-llama/Llama-4-Maverick-17B-128E", "meta-llama/Llama-4-Maverick-17B-128E-Instruct", "llama4_e128",
        "llama4-maverick-17b-128e"}},
      {"nemotron-h-8b", {"nvidia/Nemotron-H-8B-Base-8K"}},
      {"nemotron-h-47b", {"nvidia/Nemotron-H-47B-Base-8K"}},
      {"nemotron-h-56b", {"nvidia/Nemotron-H-56B-Base-8K"}},
      {"nemotron-3-nano-30b-a3b",
       {"nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-Base-BF16",
        "nemotron_3_nano", "nemotron3-nano"}},
      {"gpt-oss-120b", {"openai/gpt-oss-120b"}},
      {"gpt-oss-20b", {"openai/gpt-oss-20b"}},
  };
  std::vector<CatalogAlias> aliases;
  for (const auto& [name, spellings] : names) {
    for (const char* alias : spellings) aliases.push_back({alias, name});
  }
  return aliases;
}

//! "DeepSeek-V3 671B": a built-in model's name followed by its total parameter count in billions
//! (within 5 %, as published counts are rounded), or nullptr.
const model::ModelSpec* named_with_its_size(std::string_view name) {
  const std::size_t cut = name.find_last_of(" _-");
  if (cut == std::string_view::npos || cut + 2 >= name.size()) return nullptr;
  const std::string size(name.substr(cut + 1));
  if (std::tolower(static_cast<unsigned char>(size.back())) != 'b') return nullptr;
  double billions = 0;
  std::size_t used = 0;
  try {
    billions = std::stod(size.substr(0, size.size() - 1), &used);
  } catch (const std::exception&) {
    return nullptr;
  }
  if (used + 1 != size.size() || billions <= 0) return nullptr;
  const model::ModelSpec* found = detail::named_entry(builtin_models(), name.substr(0, cut), model_aliases());
  if (found == nullptr) return nullptr;
  constexpr double kTolerance = 0.05;
  const double total = static_cast<double>(model::total_parameters(*found)) / 1e9;
  return std::abs(total - billions) <= kTolerance * billions ? found : nullptr;
}

}  // namespace

const std::vector<model::ModelSpec>& builtin_models() {
  static const std::vector<model::ModelSpec> models = make_models();
  return models;
}

const std::vector<CatalogAlias>& model_aliases() {
  static const std::vector<CatalogAlias> aliases = make_model_aliases();
  return aliases;
}

const model::ModelSpec& find_model(std::string_view name) {
  if (const model::ModelSpec* sized = named_with_its_size(name)) return *sized;
  return detail::find_by_name(builtin_models(), name, "model", model_aliases());
}

std::vector<std::string> model_names() { return detail::names_of(builtin_models()); }

}  // namespace distsim::catalog
