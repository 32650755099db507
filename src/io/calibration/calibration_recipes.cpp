#include "io/calibration/calibration_recipes.hpp"

#include <algorithm>
#include <cctype>

namespace distsim::io {

namespace {

constexpr const char* kMegatronBridge2511 = "Megatron-Bridge / Megatron-Core (NeMo 25.11)";

// Megatron-Bridge's Llama 3.1 405B recipe (src/megatron/bridge/recipes/llama/llama31_405b.py,
// pretrain_config and model_config) sets account_for_embedding_in_pipeline_split and
// account_for_loss_in_pipeline_split to True; the performance configurations behind the
// published table (scripts/performance/configs/llama31/llama31_llm_pretrain.py) start from that
// recipe and change only the parallel sizes, batches and precision.
RecipeDefaults llama31_405b() {
  return {kMegatronBridge2511,
          "LLAMA3.1_405B",
          0,
          0,
          {{"account_for_embedding_in_pipeline_split", "true"}, {"account_for_loss_in_pipeline_split", "true"}},
          "Megatron-Bridge recipe llama31_405b (src/megatron/bridge/recipes/llama/llama31_405b.py) counts the "
          "embedding and the loss as layers in the pipeline split",
          ""};
}

// Megatron-Bridge's DeepSeek-V3 recipe (src/megatron/bridge/recipes/deepseek/deepseek_v3.py,
// _get_deepseek_v3_pipeline_layout) lays the 61 layers out per (pp, vpp): for (16, 1) and (4, 4)
// the embedding and 4 layers, 14 virtual stages of 4, then 1 layer with the MTP layers and the
// loss. Without MTP the last virtual stage holds the layer and the loss.
RecipeDefaults deepseek_v3(int pipeline_parallel, int virtual_stages, const char* model, const char* last) {
  return {kMegatronBridge2511,
          model,
          pipeline_parallel,
          virtual_stages,
          {{"pipeline_layout", std::string("Et*4|(t*4|)*14") + last}},
          "Megatron-Bridge recipe deepseek_v3 (src/megatron/bridge/recipes/deepseek/deepseek_v3.py, "
          "_get_deepseek_v3_pipeline_layout) for pp " +
              std::to_string(pipeline_parallel) + ", vpp " + std::to_string(virtual_stages),
          ""};
}

// The recipe's map gives no layout for one stage (pp 1, vpp 1): nothing to split.
RecipeDefaults deepseek_v3_single_stage(const char* model) { return {kMegatronBridge2511, model, 1, 1, {}, "", ""}; }

// The recipe's map has layouts for (pp, vpp) = (4, 1), (8, 1), (4, 2), (16, 1), (8, 2) and
// (4, 4); for any other sizes it sets no layout, and 61 layers do not split into equal chunks.
RecipeDefaults deepseek_v3_unmapped(const char* model) {
  RecipeDefaults recipe{kMegatronBridge2511, model, 0, 0, {}, "", ""};
  recipe.refusal =
      "Megatron-Bridge recipe deepseek_v3 (src/megatron/bridge/recipes/deepseek/deepseek_v3.py, "
      "_get_deepseek_v3_pipeline_layout) has a pipeline layout only for (pp, vpp) = (4, 1), (8, 1), (4, 2), "
      "(16, 1), (8, 2), (4, 4); the split of the 61 layers used for this row is not stated";
  return recipe;
}

// Megatron-Bridge's Qwen3-235B-A22B recipe (src/megatron/bridge/recipes/qwen/qwen3_moe.py,
// qwen3_235b_a22b_pretrain_config) sets account_for_embedding_in_pipeline_split and
// account_for_loss_in_pipeline_split to True for every pipeline shape; the performance
// configurations (scripts/performance/configs/qwen3/qwen3_llm_pretrain.py,
// qwen3_235b_a22b_{gb300,gb200,b200}_config) start from that recipe.
RecipeDefaults qwen3_235b_a22b() {
  return {kMegatronBridge2511,
          "Qwen3_235B_a22B",
          0,
          0,
          {{"account_for_embedding_in_pipeline_split", "true"}, {"account_for_loss_in_pipeline_split", "true"}},
          "Megatron-Bridge recipe qwen3_235b_a22b (src/megatron/bridge/recipes/qwen/qwen3_moe.py, "
          "qwen3_235b_a22b_pretrain_config) counts the embedding and the loss as layers in the pipeline split",
          ""};
}

bool same_text(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

const std::vector<RecipeDefaults>& calibration_recipes() {
  static const std::vector<RecipeDefaults> recipes{
      llama31_405b(), deepseek_v3(16, 1, "DeepSeekV3 (w/ MTP)", "tmL"), deepseek_v3(4, 4, "DeepSeekV3 (w/ MTP)", "tmL"),
      deepseek_v3(16, 1, "DeepSeekV3 (w/o MTP)", "tL"), deepseek_v3(4, 4, "DeepSeekV3 (w/o MTP)", "tL"),
      // First match wins: the sizes the recipe maps come before the refusal for the rest.
      deepseek_v3_single_stage("DeepSeekV3 (w/ MTP)"), deepseek_v3_single_stage("DeepSeekV3 (w/o MTP)"),
      deepseek_v3_unmapped("DeepSeekV3 (w/ MTP)"), deepseek_v3_unmapped("DeepSeekV3 (w/o MTP)"), qwen3_235b_a22b()};
  return recipes;
}

const RecipeDefaults* find_recipe(std::string_view framework, std::string_view model, int pipeline_parallel,
                                  int virtual_stages) {
  for (const auto& recipe : calibration_recipes()) {
    const bool sizes = (recipe.pipeline_parallel == 0 || recipe.pipeline_parallel == pipeline_parallel) &&
                       (recipe.virtual_stages == 0 || recipe.virtual_stages == virtual_stages);
    if (sizes && same_text(recipe.framework, framework) && same_text(recipe.model, model)) return &recipe;
  }
  return nullptr;
}

}  // namespace distsim::io
