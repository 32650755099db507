#include "model/parameter_count.hpp"

#include <gtest/gtest.h>

namespace distsim::model {

namespace {

//! A toy SwiGLU/RMSNorm decoder small enough to count by hand: h 8, 2 query heads and 1 KV head of
//! 4, FFN 16, vocabulary 10, untied. Attention: Q 8·8 + K,V 2·8·4 + O 8·8 = 192; dense MLP
//! 3·8·16 = 384; two norms 16: a dense layer has 592.
ModelSpec toy_decoder() {
  ModelSpec model;
  model.name = "toy";
  model.num_layers = 3;
  model.hidden_size = 8;
  model.num_attention_heads = 2;
  model.num_kv_heads = 1;
  model.kv_channels = 4;
  model.ffn_hidden_size = 16;
  model.ffn_type = FfnType::swiglu;
  model.norm = NormType::rmsnorm;
  model.position_embedding = PositionEmbedding::rope;
  model.vocab_size = 10;
  model.seq_length = 32;
  model.tie_embeddings = false;
  return model;
}

//! 4 routed experts of FFN 6 (3·8·6 = 144 each), top-2, one shared expert of 6, router 8·4 = 32,
//! the first layer dense: an MoE layer's experts have 4·144 + 144 + 32 = 752, of which a token uses
//! 2·144 + 144 + 32 = 464; the layer has 192 + 752 + 16 = 960, active 192 + 464 + 16 = 672.
ModelSpec toy_moe() {
  ModelSpec model = toy_decoder();
  model.moe = {.num_experts = 4,
               .top_k = 2,
               .expert_ffn_hidden_size = 6,
               .shared_experts = 1,
               .shared_expert_ffn_hidden_size = 6,
               .first_dense_layers = 1};
  return model;
}

}  // namespace

std::int64_t block_total(const ModelSpec& model, LayerBlock block) {
  return block_parameter_sums(model, block).total();
}

// The toy's norms have 8 parameters each (RMSNorm over h 8); a block counts its pre-norm.
TEST(ParameterCount, DenseToyLayerByHand) {
  const ModelSpec model = toy_decoder();
  EXPECT_EQ(block_total(model, LayerBlock::self_attention), 192 + 8);
  EXPECT_EQ(block_total(model, LayerBlock::mlp), 384 + 8);
  EXPECT_EQ(layer_parameter_sums(model, 0).total(), 592);
  // 3 layers + embedding 80 + head 80 + final norm 8
  EXPECT_EQ(total_parameters(model), 3 * 592 + 80 + 88);
  EXPECT_EQ(active_parameters(model), total_parameters(model));
}

TEST(ParameterCount, MoeToyByHand) {
  const ModelSpec model = toy_moe();
  const ParameterSums experts = block_parameter_sums(model, LayerBlock::moe);
  EXPECT_EQ(experts.total(), 752 + 8);
  EXPECT_EQ(experts.expert, 4 * 144);
  EXPECT_EQ(active_part(model, experts), 464 + 8);
  EXPECT_EQ(layer_parameter_sums(model, 0).total(), 592);
  EXPECT_EQ(layer_parameter_sums(model, 1).total(), 960);
  EXPECT_EQ(total_parameters(model), 592 + 2 * 960 + 80 + 88);   // 2680
  EXPECT_EQ(active_parameters(model), 592 + 2 * 672 + 80 + 88);  // 2104
}

// An MTP module: three norms 3·8, the 2h → h projection 2·8·8 = 128, and one layer of the kind
// layer 3 would have (MoE here): 24 + 128 + 960 = 1112, active 24 + 128 + 672 = 824.
TEST(ParameterCount, MultiTokenPredictionModuleByHand) {
  ModelSpec model = toy_moe();
  model.mtp_layers = 1;
  EXPECT_EQ(mtp_module_parameter_sums(model).total(), 1112);
  EXPECT_EQ(total_parameters(model), 2680 + 1112);
  EXPECT_EQ(active_parameters(model), 2104 + 824);
}

// Megatron's --moe-layer-freq with Qwen's phase: every 2nd layer, the 2nd of each pair, is MoE.
TEST(ParameterCount, EveryKthLayerIsMoe) {
  ModelSpec model = toy_moe();
  model.num_layers = 4;
  model.moe.first_dense_layers = 0;
  model.moe.layer_interval = 2;
  EXPECT_FALSE(model.moe.is_moe_layer(0));
  EXPECT_TRUE(model.moe.is_moe_layer(1));
  EXPECT_FALSE(model.moe.is_moe_layer(2));
  EXPECT_TRUE(model.moe.is_moe_layer(3));
  EXPECT_EQ(total_parameters(model), 2 * 592 + 2 * 960 + 80 + 88);
}

// MLA with h 8, 2 heads, q_lora 4, kv_lora 3, nope 2, rope 1, v 2: W_DQ 8·4 = 32, q norm 4,
// W_UQ 4·2·3 = 24, W_DKV 8·(3 + 1) = 32, kv norm 3, W_UKV 3·2·(2 + 2) = 24, W_O 2·2·8 = 32: 151.
// Without the query latent, W_Q is 8·2·3 = 48 in place of 32 + 4 + 24: 139. The block's pre-norm
// adds 8.
TEST(ParameterCount, LatentAttentionByHand) {
  ModelSpec model = toy_decoder();
  model.mla = {.q_lora_rank = 4, .kv_lora_rank = 3, .qk_nope_head_dim = 2, .qk_rope_head_dim = 1, .v_head_dim = 2};
  EXPECT_EQ(block_total(model, LayerBlock::latent_attention), 151 + 8);
  model.mla.q_lora_rank = 0;
  EXPECT_EQ(block_total(model, LayerBlock::latent_attention), 139 + 8);
}

// Of the 151 above, W_DQ 32, the q norm 4, W_DKV 32 and the kv norm 3 are whole on every
// tensor-parallel rank: 71; without the query latent W_Q is split, leaving 35. At tp 2 a rank
// holds 71 + (151 − 71) / 2 = 111.
TEST(ParameterCount, LatentDownProjectionsAreDuplicated) {
  ModelSpec model = toy_decoder();
  EXPECT_EQ(layer_parameter_sums(model, 0).duplicated, 0);
  model.mla = {.q_lora_rank = 4, .kv_lora_rank = 3, .qk_nope_head_dim = 2, .qk_rope_head_dim = 1, .v_head_dim = 2};
  EXPECT_EQ(layer_parameter_sums(model, 0).duplicated, 71);
  EXPECT_EQ(tensor_rank_parameters(151, 71, 2), 111);
  model.mla.q_lora_rank = 0;
  EXPECT_EQ(layer_parameter_sums(model, 0).duplicated, 35);
}

// The GEMM weights in the low-precision format leave out the norms: of the 151 above,
// 151 − 4 − 3 = 144, of which the two down-projections W_DQ and W_DKV hold 32 + 32 = 64. Without
// the query latent: 48 + 32 + 24 + 32 = 136, W_DKV alone duplicated. Standard attention in the
// toy: QKV 8·(8 + 2·4) + output 8·8 = 192.
TEST(ParameterCount, LatentAttentionGemmWeights) {
  ModelSpec model = toy_decoder();
  const auto gemm_weights = [](const ParameterSums& sums) {
    return sums.low_precision_tensor + sums.low_precision_duplicated;
  };
  EXPECT_EQ(gemm_weights(block_parameter_sums(model, LayerBlock::self_attention)), 192);
  model.mla = {.q_lora_rank = 4, .kv_lora_rank = 3, .qk_nope_head_dim = 2, .qk_rope_head_dim = 1, .v_head_dim = 2};
  ParameterSums latent = block_parameter_sums(model, LayerBlock::latent_attention);
  EXPECT_EQ(gemm_weights(latent), 144);
  EXPECT_EQ(latent.low_precision_duplicated, 64);
  model.mla.q_lora_rank = 0;
  latent = block_parameter_sums(model, LayerBlock::latent_attention);
  EXPECT_EQ(gemm_weights(latent), 136);
  EXPECT_EQ(latent.low_precision_duplicated, 32);
}

// The experts' GEMMs run in the format, the router's gate does not: in the MoE toy the shared
// expert's 144 (split over tp) and the routed experts' 4·144 (split over ep) are the format's,
// the router's 8·4 = 32 and the norm's 8 are not.
TEST(ParameterCount, TheRouterStaysInSixteenBits) {
  const ParameterSums experts = block_parameter_sums(toy_moe(), LayerBlock::moe);
  EXPECT_EQ(experts.low_precision_tensor, 144);
  EXPECT_EQ(experts.low_precision_expert, 4 * 144);
  EXPECT_EQ(experts.tensor, 144 + 32 + 8);
}

// Qwen2's QKV bias adds q + 2·kv = 8 + 2·4 = 16; Qwen3's QK-norm one scale of head_dim 4 for the
// queries and one for the keys: 8.
TEST(ParameterCount, QkvBiasAndQkNorm) {
  ModelSpec model = toy_decoder();
  model.qkv_bias = true;
  EXPECT_EQ(block_total(model, LayerBlock::self_attention), 192 + 16 + 8);
  model.qkv_bias = false;
  model.qk_norm = true;
  EXPECT_EQ(block_total(model, LayerBlock::self_attention), 192 + 8 + 8);
}

// A Mamba-2 block of h 8 with 4 heads of 2 (inner 8), 2 groups of state 2, 4 taps: norm 8; in_proj
// 8 x (z 8 + x 8 + B and C 2·2·2 + dt 4 = 28) = 224; the convolution over x, B and C (16 channels)
// 16·4 = 64 and its bias 16; dt bias, A and D per head 3·4 = 12; the gated norm 8; out_proj 8·8 =
// 64: 396, all split over tp.
TEST(ParameterCount, MambaBlockByHand) {
  ModelSpec model = toy_decoder();
  model.mamba = {.num_heads = 4, .head_dim = 2, .state_size = 2, .groups = 2, .conv_kernel = 4, .chunk_size = 4};
  const ParameterSums mamba = block_parameter_sums(model, LayerBlock::mamba);
  EXPECT_EQ(mamba.total(), 396);
  EXPECT_EQ(mamba.tensor, 396);
  EXPECT_EQ(mamba.low_precision_tensor, 224 + 64);
}

// A hybrid pattern makes each layer one block: "M*-E" is a Mamba, an attention, an MLP and an MoE
// layer.
TEST(LayerPlan, AHybridPatternMakesEachLayerOneBlock) {
  using enum LayerBlock;
  ModelSpec model = toy_moe();
  model.hybrid_pattern = "M*-E";
  model.num_layers = 4;
  EXPECT_EQ(layer_plan(model, 0), (LayerPlan{{mamba}, 1}));
  EXPECT_EQ(layer_plan(model, 1), (LayerPlan{{self_attention}, 1}));
  EXPECT_EQ(layer_plan(model, 2), (LayerPlan{{mlp}, 1}));
  EXPECT_EQ(layer_plan(model, 3), (LayerPlan{{moe}, 1}));
}

// Which blocks each kind of layer runs: the toy MoE model's first layer is dense, the others MoE;
// latent attention replaces self-attention; a decoder layer of an encoder-decoder model attends
// to the encoder between its two blocks.
TEST(LayerPlan, NamesEachLayersBlocksInForwardOrder) {
  using enum LayerBlock;
  ModelSpec model = toy_moe();
  EXPECT_EQ(layer_plan(model, 0), (LayerPlan{{self_attention, mlp}, 2}));
  EXPECT_EQ(layer_plan(model, 1), (LayerPlan{{self_attention, moe}, 2}));
  model.mla = {.q_lora_rank = 4, .kv_lora_rank = 3, .qk_nope_head_dim = 2, .qk_rope_head_dim = 1, .v_head_dim = 2};
  EXPECT_EQ(layer_plan(model, 2), (LayerPlan{{latent_attention, moe}, 2}));
  ModelSpec t5 = toy_decoder();
  t5.architecture = Architecture::encoder_decoder;
  t5.decoder_num_layers = 2;
  EXPECT_EQ(layer_plan(t5, 2), (LayerPlan{{self_attention, mlp}, 2}));
  EXPECT_EQ(layer_plan(t5, 3), (LayerPlan{{self_attention, cross_attention, mlp}, 3}));
}

}  // namespace distsim::model
