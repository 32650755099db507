#include "catalog/builtin_models.hpp"

#include <gtest/gtest.h>

#include <set>

#include "core/input_error.hpp"
#include "core/name_match.hpp"
#include "model/parameter_count.hpp"

namespace distsim::catalog {

namespace {

double parameters_of(const char* name) { return static_cast<double>(model::total_parameters(find_model(name))); }

std::string model_error(std::string_view name) {
  try {
    find_model(name);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(BuiltinModels, EveryModelIsDescribedAndCited) {
  std::set<std::string> names;
  for (const auto& model : builtin_models()) {
    EXPECT_FALSE(model.description.empty()) << model.name;
    EXPECT_FALSE(model.source.empty()) << model.name;
    EXPECT_TRUE(names.insert(model.name).second) << "duplicate " << model.name;
    EXPECT_GT(model.num_layers, 0) << model.name;
    EXPECT_EQ(model.hidden_size % model.num_attention_heads, 0) << model.name;
    EXPECT_EQ(model.num_attention_heads % model.num_kv_heads, 0) << model.name;
    EXPECT_GT(model.ffn_hidden_size, 0) << model.name;
    EXPECT_GT(model.seq_length, 0) << model.name;
  }
  EXPECT_EQ(model_names().size(), builtin_models().size());
}

// GPT-3: 96·(12h² + 13h) + V·h + s·h + 2h with h = 12288, V = 51200, s = 2048
// = 173,961,510,912 + 629,145,600 + 25,165,824 + 24,576 = 174,615,846,912 (paper: 175B).
TEST(BuiltinModels, Gpt3HasItsPublishedParameterCount) {
  EXPECT_EQ(model::total_parameters(find_model("gpt3-175b")), 174'615'846'912);
  EXPECT_NEAR(parameters_of("gpt3-175b"), 175e9, 0.005 * 175e9);
}

// Llama layer: h·(a·d) + 2·h·(g·d) + (a·d)·h + 3·h·f + 2h, untied embeddings 2·V·h, final norm h
// (docs/reference/formats.md §6.3). 8B: 32 · 218,112,000 + 2 · 128256 · 4096 + 4096 = 8,030,261,248.
// Meta's model cards: 8.03B, 70.6B, 405.9B.
TEST(BuiltinModels, LlamaModelsHaveTheirPublishedParameterCounts) {
  EXPECT_EQ(model::total_parameters(find_model("llama-3.1-8b")), 8'030'261'248);
  EXPECT_NEAR(parameters_of("llama-3.1-8b"), 8.03e9, 0.01 * 8.03e9);
  EXPECT_NEAR(parameters_of("llama-3.1-70b"), 70.6e9, 0.01 * 70.6e9);
  EXPECT_NEAR(parameters_of("llama-3.1-405b"), 405.9e9, 0.01 * 405.9e9);
}

// BERT-Large: 24 · (12h² + 13h) + V·h + s·h + 2h = 302,309,376 + 31,326,208 + 524,288 + 2,048
// = 334.2M (paper: 340M; HF counts 335M with the pooler and token types, which we leave out).
// GPT-2 345M: 24 layers as above + 50304·1024 + 1024·1024 + 2048 = 354.9M (HF: 355M).
// T5-Large (no biases, RMSNorm): encoder 24 · (12h² + 2h), decoder 24 · (16h² + 3h), tied
// vocabulary 32128·h, final norm h = 737.7M (HF: 737.67M).
TEST(BuiltinModels, SmallerModelsHaveTheirPublishedParameterCounts) {
  EXPECT_NEAR(parameters_of("bert-large"), 335e6, 0.03 * 335e6);
  EXPECT_NEAR(parameters_of("gpt2-345m"), 355e6, 0.01 * 355e6);
  EXPECT_NEAR(parameters_of("t5-large"), 737.67e6, 0.01 * 737.67e6);
}

double active_of(const char* name) { return static_cast<double>(model::active_parameters(find_model(name))); }

// Mixtral layer (arXiv 2401.04088 Table 1; HF config): attention 4096·4096 + 2·4096·1024 + 4096·4096
// = 41,943,040; one SwiGLU expert 3·4096·14336 = 176,160,768; router 4096·8 = 32,768; norms 8,192.
// Layer: 41,943,040 + 8·176,160,768 + 32,768 + 8,192 = 1,451,270,144; per token 2 experts:
// 394,305,536. Untied 32000·4096 twice + final norm: 262,148,096.
// Total 32·1,451,270,144 + 262,148,096 = 46,702,792,704 (paper: 46.7B); active
// 32·394,305,536 + 262,148,096 = 12,879,925,248 (paper: 12.9B, with the embedding and head).
// 8x22B (6144 hidden, 48/8 heads, 16384 per expert, 56 layers, vocab 32000): attention 88,080,384,
// expert 301,989,888, router 49,152; total 140,620,634,112, active 39,152,031,744 (Mistral AI: 141B / 39B).
TEST(BuiltinModels, MixtralHasItsPublishedParameterCounts) {
  EXPECT_EQ(model::total_parameters(find_model("mixtral-8x7b")), 46'702'792'704);
  EXPECT_EQ(model::active_parameters(find_model("mixtral-8x7b")), 12'879'925'248);
  EXPECT_NEAR(parameters_of("mixtral-8x7b"), 46.7e9, 0.005 * 46.7e9);
  EXPECT_NEAR(active_of("mixtral-8x7b"), 12.9e9, 0.005 * 12.9e9);
  EXPECT_EQ(model::total_parameters(find_model("mixtral-8x22b")), 140'620'634'112);
  EXPECT_EQ(model::active_parameters(find_model("mixtral-8x22b")), 39'152'031'744);
  EXPECT_NEAR(parameters_of("mixtral-8x22b"), 141e9, 0.005 * 141e9);
  EXPECT_NEAR(active_of("mixtral-8x22b"), 39e9, 0.01 * 39e9);
}

// Qwen3-30B-A3B (arXiv 2505.09388 Table 2, HF config): attention 2048·4096 + 2·2048·512 + 4096·2048
// + QK-norm 2·128 = 18,874,624; expert 3·2048·768 = 4,718,592; router 2048·128 = 262,144; norms 4,096.
// Layer 18,874,624 + 128·4,718,592 + 262,144 + 4,096 = 623,120,640, per token (8 experts)
// 56,889,600; untied 151936·2048 twice + norm = 622,331,904. Total 48 layers: 30,532,122,624
// (card: 30.5B); active 3,353,032,704 (card: 3.3B).
// Qwen3-235B-A22B: attention 4096·8192 + 2·4096·512 + 8192·4096 + 256 = 71,303,424; expert
// 3·4096·1536 = 18,874,368; router 524,288; layer 2,487,755,008, active 222,830,848; 94 layers and
// embeddings 2·151936·4096 + 4096: total 235,093,634,560 (card: 235B), active 22,190,763,520 (22B).
TEST(BuiltinModels, Qwen3MoeModelsHaveTheirPublishedParameterCounts) {
  EXPECT_EQ(model::total_parameters(find_model("qwen3-30b-a3b")), 30'532'122'624);
  EXPECT_EQ(model::active_parameters(find_model("qwen3-30b-a3b")), 3'353'032'704);
  EXPECT_NEAR(parameters_of("qwen3-30b-a3b"), 30.5e9, 0.005 * 30.5e9);
  EXPECT_NEAR(active_of("qwen3-30b-a3b"), 3.3e9, 0.02 * 3.3e9);
  EXPECT_EQ(model::total_parameters(find_model("qwen3-235b-a22b")), 235'093'634'560);
  EXPECT_EQ(model::active_parameters(find_model("qwen3-235b-a22b")), 22'190'763'520);
  EXPECT_NEAR(parameters_of("qwen3-235b-a22b"), 235e9, 0.005 * 235e9);
  EXPECT_NEAR(active_of("qwen3-235b-a22b"), 22e9, 0.01 * 22e9);
}

// Llama 4 (HF text_config; Meta's model card). Attention: norm 5120, QKV 5120·(5120 + 2·1024) =
// 36,700,160, output 5120·5120 = 26,214,400: 62,919,680 (the scale-free QK norm has no parameters).
// Dense MLP block: norm 5120 + 3·5120·16384 = 251,663,360. Expert 3·5120·8192 = 125,829,120.
// Maverick's MoE block: norm 5120, router 5120·128 = 655,360, shared expert 125,829,120, 128
// experts 16,106,127,360: 16,232,616,960; per token the shared and one routed expert and the
// router: 252,318,720. Embedding and untied head 2·202048·5120 + 5120 = 2,068,976,640.
// Maverick, 24 dense and 24 MoE layers: 24·314,583,040 + 24·16,295,536,640 + 2,068,976,640 =
// 400,711,848,960 (card: 400B); active 24·314,583,040 + 24·315,238,400 + 2,068,976,640 =
// 17,184,691,200 (card: 17B). Scout's MoE block has 16 experts and a 5120·16 router:
// 2,139,182,080, per token 251,745,280; 48 MoE layers: 48·2,202,101,760 + 2,068,976,640 =
// 107,769,861,120 (card: 109B with the vision encoder), active 48·314,664,960 + 2,068,976,640 =
// 17,172,894,720 (card: 17B).
TEST(BuiltinModels, Llama4HasItsPublishedParameterCounts) {
  EXPECT_EQ(model::total_parameters(find_model("llama-4-maverick")), 400'711'848'960);
  EXPECT_EQ(model::active_parameters(find_model("llama-4-maverick")), 17'184'691'200);
  EXPECT_EQ(model::total_parameters(find_model("llama-4-scout")), 107'769'861'120);
  EXPECT_EQ(model::active_parameters(find_model("llama-4-scout")), 17'172'894'720);
  EXPECT_NEAR(parameters_of("llama-4-maverick"), 400e9, 0.005 * 400e9);
  EXPECT_NEAR(active_of("llama-4-maverick"), 17e9, 0.02 * 17e9);
  EXPECT_NEAR(active_of("llama-4-scout"), 17e9, 0.02 * 17e9);
}

// Nemotron-H (HF config and Megatron-Bridge providers; RMSNorm, no biases, untied, vocabulary 131072).
// 8B, h 4096: a Mamba layer has norm 4096, in_proj 4096·(8192 + 10240 + 128) = 76,021,760 (z, then
// x, B, C: 8192 + 2·8·128 = 10240 channels, then dt), conv 10240·4 + 10240 = 51,200, dt bias, A, D
// 3·128 = 384, gated norm 8192, out_proj 8192·4096 = 33,554,432: 109,640,064. An attention layer
// 4096 + 4096·(4096 + 2·1024) + 4096·4096 = 41,947,136; an MLP layer 4096 + 2·4096·21504 =
// 176,164,864; embedding and head 2·131072·4096 + 4096 = 1,073,745,920. 24 M, 4 *, 24 -:
// 2,631,361,536 + 167,788,544 + 4,227,956,736 + 1,073,745,920 = 8,100,852,736.
// 56B, h 8192, 256 heads of 64, state 256: Mamba 8192 + 8192·(16384 + 20480 + 256) + 20480·5 + 768 +
// 16384 + 16384·8192 = 438,432,512; attention 8192 + 8192·10240 + 8192·8192 = 151,003,136; MLP
// 8192 + 2·8192·32768 = 536,879,104; 54 M, 10 *, 54 -, with 2·131072·8192 + 8192: 56,324,350,464.
// 47B: MLP 8192 + 2·8192·30720 = 503,324,672; 45 M, 5 *, 48 -: 46,791,554,816.
TEST(BuiltinModels, NemotronHHasItsPublishedParameterCounts) {
  EXPECT_EQ(model::total_parameters(find_model("nemotron-h-8b")), 8'100'852'736);
  EXPECT_EQ(model::total_parameters(find_model("nemotron-h-56b")), 56'324'350'464);
  EXPECT_EQ(model::total_parameters(find_model("nemotron-h-47b")), 46'791'554'816);
  EXPECT_NEAR(parameters_of("nemotron-h-8b"), 8e9, 0.02 * 8e9);
  EXPECT_NEAR(parameters_of("nemotron-h-47b"), 47e9, 0.01 * 47e9);
  EXPECT_NEAR(parameters_of("nemotron-h-56b"), 56e9, 0.01 * 56e9);
}

// Nemotron 3 Nano 30B-A3B, h 2688: Mamba 64 heads of 64 (inner 4096), 8 groups of 128: 2688 +
// 2688·(4096 + 6144 + 64) + 6144·5 + 192 + 4096 + 4096·2688 = 38,744,896; attention with 2 KV heads
// 2688 + 2688·(4096 + 2·256) + 4096·2688 = 23,399,040; an MoE layer's norm 2688, router 2688·128 =
// 344,064, shared expert 2·2688·3712 = 19,955,712 and 128 experts of 2·2688·1856 = 9,977,856:
// 1,277,165,568 + 20,302,464 = 1,297,468,032, per token 6 experts: 80,169,600. 23 M, 6 *, 23 E and
// 2·131072·2688 + 2688 = 704,645,824: 31,577,937,344, active 3,580,073,408.
TEST(BuiltinModels, Nemotron3NanoHasItsParameterCounts) {
  EXPECT_EQ(model::total_parameters(find_model("nemotron-3-nano-30b-a3b")), 31'577'937'344);
  EXPECT_EQ(model::active_parameters(find_model("nemotron-3-nano-30b-a3b")), 3'580'073'408);
}

// DeepSeek-V3 (arXiv 2412.19437 §2 and §4.2; HF config). MLA per layer: W_DQ 7168·1536 = 11,010,048,
// q norm 1,536, W_UQ 1536·128·192 = 37,748,736, W_DKV 7168·576 = 4,128,768, kv norm 512, W_UKV
// 512·128·256 = 16,777,216, W_O 16384·7168 = 117,440,512: 187,107,328. Dense MLP 3·7168·18432 =
// 396,361,728. Expert 3·7168·2048 = 44,040,192; MoE MLP 256 routed + 1 shared + router 7168·256:
// 11,320,164,352, per token 8 + 1 experts + router: 398,196,736. Norms 14,336.
// Dense layer 583,483,392; MoE layer 11,507,286,016, active 585,318,400. Embedding and head
// 2·129280·7168 + 7168 = 1,853,365,248.
// Main model: 3·583,483,392 + 58·11,507,286,016 + 1,853,365,248 = 671,026,404,352 (report: 671B);
// active 3·583,483,392 + 58·585,318,400 + 1,853,365,248 = 37,552,282,624 (report: 37B; 36.6B without
// the input embedding table, which is a lookup).
// The MTP module (report §2.2) shares the embedding and head: norms 3·7168, projection 2·7168·7168 =
// 102,760,448 and one MoE layer: 11,610,067,968, so the model as trained has 682,636,472,320. The HF
// card's 685B = 671B + 14B counts the checkpoint's own copies of the embedding and head in the MTP
// module: 682,636,472,320 + 1,853,358,080 = 684,489,830,400.
TEST(BuiltinModels, DeepSeekV3HasItsPublishedParameterCounts) {
  const auto& deepseek = find_model("deepseek-v3");
  model::ModelSpec main_model = deepseek;
  main_model.mtp_layers = 0;
  EXPECT_EQ(model::total_parameters(main_model), 671'026'404'352);
  EXPECT_EQ(model::active_parameters(main_model), 37'552'282'624);
  EXPECT_NEAR(static_cast<double>(model::total_parameters(main_model)), 671e9, 0.001 * 671e9);
  EXPECT_NEAR(static_cast<double>(model::active_parameters(main_model)), 37e9, 0.02 * 37e9);
  EXPECT_EQ(model::mtp_module_parameter_sums(deepseek).total(), 11'610'067'968);
  EXPECT_EQ(model::total_parameters(deepseek), 682'636'472'320);
  const std::int64_t checkpoint_copies = 2 * model::embedding_parameters(deepseek);
  EXPECT_NEAR(static_cast<double>(model::total_parameters(deepseek) + checkpoint_copies), 685e9, 0.001 * 685e9);
}

// Kimi K2 (arXiv 2507.20534 Table 2): DeepSeek-V3's layers with 64 heads and 384 experts. MLA per
// layer: W_DQ 7168·1536 = 11,010,048, q norm 1,536, W_UQ 1536·64·192 = 18,874,368, W_DKV 7168·576 =
// 4,128,768, kv norm 512, W_UKV 512·64·256 = 8,388,608, W_O 8192·7168 = 58,720,256: 101,124,096.
// Dense MLP 3·7168·18432 = 396,361,728. MoE MLP 384 routed + 1 shared experts of 3·7168·2048 =
// 44,040,192 and a router of 7168·384 = 2,752,512: 16,958,226,432, per token 9 experts and the
// router: 399,114,240. Norms 14,336. Dense layer 497,500,160; MoE layer 17,059,364,864, active
// 500,252,672. Embedding and head 2·163840·7168 + 7168 = 2,348,817,408.
// Total 497,500,160 + 60·17,059,364,864 + 2,348,817,408 = 1,026,408,209,408; active 497,500,160 +
// 60·500,252,672 + 2,348,817,408 = 32,861,477,888. The report gives 1.04T and 32.6B: 1.3 % and
// 0.8 % from these counts, a gap the published configuration does not explain (DeepSeek-V3's same
// count gives its report's 671B to 0.01 %, above).
TEST(BuiltinModels, KimiK2HasItsPublishedParameterCounts) {
  const auto& kimi = find_model("kimi-k2");
  EXPECT_EQ(model::total_parameters(kimi), 1'026'408'209'408);
  EXPECT_EQ(model::active_parameters(kimi), 32'861'477'888);
  EXPECT_NEAR(static_cast<double>(model::total_parameters(kimi)), 1.04e12, 0.015 * 1.04e12);
  EXPECT_NEAR(static_cast<double>(model::active_parameters(kimi)), 32.6e9, 0.01 * 32.6e9);
  EXPECT_EQ(kimi.mtp_layers, 0);
  EXPECT_EQ(find_model("moonshotai/Kimi-K2-Instruct").name, "kimi-k2");
}

// GPT-OSS (model card arXiv 2508.10925 Table 1; HF config): every linear layer has a bias.
// Attention: QKV 2880·(4096 + 2·512) + 5120 = 14,750,720, output 4096·2880 + 2880 = 11,799,360, sinks
// 64: 26,550,144. Expert: gate and up 2880·5760 + 5760 = 16,594,560, down 2880·2880 + 2880 =
// 8,297,280: 24,891,840. Router 2880·E + E; norms 2·2880 = 5,760. Embedding 201088·2880 =
// 579,133,440, head the same plus the final norm: 579,136,320.
// 120B (E = 128): layer 26,550,144 + 128·24,891,840 + 368,768 + 5,760 = 3,213,080,192; 36 layers and
// embeddings: 116,829,156,672 (card: 116.83B). Active layer (4 experts) 126,492,032: 36 layers +
// embedding + head = 5,711,982,912; the card's 5.13B leaves out the input embedding (a lookup):
// 5,711,982,912 − 579,133,440 = 5,132,849,472. The card's split agrees: MLP 36·(3,186,155,520 +
// 368,768) = 114.71B, attention 36·26,550,144 = 0.96B.
// 20B (E = 32): layer 26,550,144 + 32·24,891,840 + 92,192 + 5,760 = 823,186,976; 24 layers and
// embeddings: 20,914,757,184 (card: 20.91B); active 24·126,215,456 + 1,158,269,760 =
// 4,187,440,704, without the input embedding 3,608,307,264 (card: 3.61B).
TEST(BuiltinModels, GptOssHasItsPublishedParameterCounts) {
  const auto& large = find_model("gpt-oss-120b");
  EXPECT_EQ(model::total_parameters(large), 116'829'156'672);
  EXPECT_EQ(model::active_parameters(large), 5'711'982'912);
  EXPECT_NEAR(parameters_of("gpt-oss-120b"), 116.83e9, 0.0005 * 116.83e9);
  EXPECT_NEAR(static_cast<double>(model::active_parameters(large) - model::embedding_parameters(large)), 5.13e9,
              0.001 * 5.13e9);
  const auto& small = find_model("gpt-oss-20b");
  EXPECT_EQ(model::total_parameters(small), 20'914'757'184);
  EXPECT_EQ(model::active_parameters(small), 4'187'440'704);
  EXPECT_NEAR(static_cast<double>(model::active_parameters(small) - model::embedding_parameters(small)), 3.61e9,
              0.001 * 3.61e9);
  EXPECT_EQ(large.attention_window(0), 128);
  EXPECT_EQ(large.attention_window(1), 0);
  EXPECT_EQ(large.attention_window(35), 0);
}

// Dense models use no part of the MoE description: active equals total.
TEST(BuiltinModels, DenseModelsAreWhollyActive) {
  for (const char* name : {"gpt3-175b", "llama-3.1-8b", "t5-large"}) {
    EXPECT_EQ(model::active_parameters(find_model(name)), model::total_parameters(find_model(name))) << name;
  }
}

TEST(BuiltinModels, BertExLargeIsBertLargeWithTwiceTheLayers) {
  const auto& large = find_model("bert-large");
  const auto& exlarge = find_model("bert-exlarge");
  EXPECT_EQ(exlarge.num_layers, 2 * large.num_layers);
  EXPECT_EQ(exlarge.hidden_size, large.hidden_size);
  EXPECT_EQ(exlarge.vocab_size, large.vocab_size);
  EXPECT_EQ(exlarge.architecture, model::Architecture::encoder);
}

TEST(BuiltinModels, T5IsAnEncoderDecoderWithAShorterTarget) {
  const auto& t5 = find_model("t5-large");
  EXPECT_EQ(t5.architecture, model::Architecture::encoder_decoder);
  EXPECT_EQ(t5.total_layers(), 48);
  EXPECT_EQ(t5.target_seq_length(), 128);
  EXPECT_EQ(t5.head_dim(), 64);
}

// Nemotron-4 (LayerNorm with scale and shift, no linear biases, squared-ReLU MLP of 4h, GQA with 8
// KV heads, untied vocabulary 256000). 15B (h 6144, 48 heads of 128): QKV 6144·(6144 + 2·1024)
// = 50,331,648; output 6144² = 37,748,736; MLP 2·6144·24576 = 301,989,888; two norms 4·6144 =
// 24,576; layer 390,094,848; 32 layers 12,483,035,136; final norm 12,288; embedding and head
// 2·256000·6144 = 3,145,728,000; total 15,628,775,424 (report: 15B, 3.2B of them embeddings).
// 340B (h 18432, 96 heads of 192): QKV 18432·21504 = 396,361,728; output 339,738,624; MLP
// 2,717,908,992; norms 73,728; layer 3,454,083,072; 96 layers 331,591,974,912; final norm 36,864;
// embedding and head 9,437,184,000; total 341,029,195,776 (report: 340B).
// Nemotron-3 (NeMo's Nemotron3Config8B and 22B: multi-head attention, otherwise as Nemotron-4).
// 8B (h 4096, 32 heads): QKV 3·4096² = 50,331,648; output 16,777,216; MLP 2·4096·16384 =
// 134,217,728; norms 4·4096 = 16,384; layer 201,342,976; 32 layers 6,442,975,232; final norm 8,192;
// embedding and head 2·256000·4096 = 2,097,152,000; total 8,540,135,424 (model card: 8B).
// 22B (h 6144, 48 heads): QKV 113,246,208; output 37,748,736; MLP 301,989,888; norms 24,576; layer
// 453,009,408; 40 layers 18,120,376,320; final norm 12,288; embedding and head 3,145,728,000; total
// 21,266,116,608 (NeMo's name: 22B).
TEST(BuiltinModels, NemotronHasItsPublishedParameterCounts) {
  EXPECT_EQ(model::total_parameters(find_model("nemotron-3-8b")), 8'540'135'424);
  EXPECT_EQ(model::total_parameters(find_model("nemotron-3-22b")), 21'266'116'608);
  EXPECT_EQ(find_model("nemotron-3-8b").num_kv_heads, 32);
  EXPECT_EQ(model::total_parameters(find_model("nemotron-4-15b")), 15'628'775'424);
  EXPECT_EQ(model::total_parameters(find_model("nemotron-4-340b")), 341'029'195'776);
  EXPECT_EQ(find_model("nemotron-4-340b").ffn_type, model::FfnType::squared_relu);
  EXPECT_FALSE(find_model("nemotron-4-340b").has_linear_biases());
}

TEST(FindModel, MatchesNamesIgnoringCase) { EXPECT_EQ(find_model("GPT3-175B").name, "gpt3-175b"); }

// The name rule (core/name_match.hpp) and the aliases declared beside the entries: invented
// spellings that follow the rule, the Hugging Face ids of the entries' config files.
TEST(FindModel, MatchesByTheNameRuleAndTheAliases) {
  EXPECT_EQ(find_model("Mixtral 8x7B").name, "mixtral-8x7b");
  EXPECT_EQ(find_model("MIXTRAL_8X22B").name, "mixtral-8x22b");
  EXPECT_EQ(find_model("GPT-OSS 20B").name, "gpt-oss-20b");
  EXPECT_EQ(find_model("DeepSeek V3").name, "deepseek-v3");
  EXPECT_EQ(find_model("mistralai/Mixtral-8x7B-v0.1").name, "mixtral-8x7b");
  EXPECT_EQ(find_model("meta-llama/Llama-3.1-70B").name, "llama-3.1-70b");
  EXPECT_EQ(find_model("llama31_405b").name, "llama-3.1-405b");  // a recipe name: 31 is not 3.1
  EXPECT_EQ(model_error("Llama-3.2-405B").rfind("unknown model 'Llama-3.2-405B'", 0), 0U);
}

TEST(FindModel, EveryAliasNamesABuiltinModelAndNoAliasIsAName) {
  for (const CatalogAlias& alias : model_aliases()) {
    EXPECT_EQ(find_model(alias.alias).name, alias.name);
    for (const auto& name : model_names()) EXPECT_FALSE(same_name(alias.alias, name)) << alias.alias;
  }
}

// A name followed by the total parameter count in billions: DeepSeek-V3 has 671B with its MTP
// module (its report), which the catalog's count is within 5 % of; 600B is another model.
TEST(FindModel, ANameWithItsParameterCountIsTheModel) {
  EXPECT_EQ(find_model("DeepSeek-V3 671B").name, "deepseek-v3");
  EXPECT_EQ(find_model("Mixtral-8x7B 46.7B").name, "mixtral-8x7b");
  EXPECT_EQ(model_error("DeepSeek-V3 600B").rfind("unknown model 'DeepSeek-V3 600B'", 0), 0U);
  EXPECT_EQ(model_error("DeepSeek-V3 671").rfind("unknown model", 0), 0U);
}

TEST(FindModel, SuggestsTheClosestName) {
  EXPECT_EQ(model_error("gpt2-354m"),
            "unknown model 'gpt2-354m'; did you mean 'gpt2-345m'? (known: bert-large, bert-exlarge, gpt2-345m, "
            "t5-large, gpt3-175b, llama-3.1-8b, llama-3.1-70b, llama-3.1-405b, mixtral-8x7b, mixtral-8x22b, "
            "qwen3-30b-a3b, qwen3-235b-a22b, deepseek-v3, kimi-k2, nemotron-3-8b, nemotron-3-22b, nemotron-4-15b, "
            "nemotron-4-340b, nemotron-h-8b, nemotron-h-47b, nemotron-h-56b, nemotron-3-nano-30b-a3b, llama-4-scout, "
            "llama-4-maverick, gpt-oss-120b, gpt-oss-20b)");
}

}  // namespace distsim::catalog
