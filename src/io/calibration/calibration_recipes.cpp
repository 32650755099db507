#include "io/calibration/calibration_recipes.hpp"

#include "catalog/builtin_models.hpp"
#include "core/input_error.hpp"
#include "core/name_match.hpp"

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
          "llama-3.1-405b",
          -1,
          0,
          0,
          {{"account_for_embedding_in_pipeline_split", "true"}, {"account_for_loss_in_pipeline_split", "true"}},
          "Megatron-Bridge recipe llama31_405b (src/megatron/bridge/recipes/llama/llama31_405b.py) counts the "
          "embedding and the loss as layers in the pipeline split",
          ""};
}

// Megatron-Bridge's DeepSeek-V3 recipe (src/megatron/bridge/recipes/deepseek/deepseek_v3.py,
// _get_deepseek_v3_pipeline_layout) lays the 61 layers out per (pp, vpp). The map, with `last`
// the final chunk's tail (the MTP layers and the loss, or the loss alone without MTP):
//   (4, 1):                   embedding + 16, 16, 16, 13 + last
//   (8, 1), (4, 2):           embedding + 8, six chunks of 8, 5 + last
//   (16, 1), (8, 2), (4, 4):  embedding + 4, fourteen chunks of 4, 1 + last
// (1, 1) has no layout; any other sizes get none either.
struct DeepSeekLayout {
  int pipeline_parallel;
  int virtual_stages;
  const char* chunks;
};

constexpr DeepSeekLayout kDeepSeekV3Layouts[] = {
    {4, 1, "Et*16|t*16|t*16|t*13"}, {8, 1, "Et*8|(t*8|)*6t*5"}, {4, 2, "Et*8|(t*8|)*6t*5"},
    {16, 1, "Et*4|(t*4|)*14t"},     {8, 2, "Et*4|(t*4|)*14t"},  {4, 4, "Et*4|(t*4|)*14t"},
};

constexpr const char* kDeepSeekV3Recipe =
    "Megatron-Bridge recipe deepseek_v3 (src/megatron/bridge/recipes/deepseek/deepseek_v3.py, "
    "_get_deepseek_v3_pipeline_layout)";

RecipeDefaults deepseek_v3(const DeepSeekLayout& layout, int with_mtp, const char* last) {
  return {kMegatronBridge2511,
          "deepseek-v3",
          with_mtp,
          layout.pipeline_parallel,
          layout.virtual_stages,
          {{"pipeline_layout", std::string(layout.chunks) + last}},
          std::string(kDeepSeekV3Recipe) + " for pp " + std::to_string(layout.pipeline_parallel) + ", vpp " +
              std::to_string(layout.virtual_stages),
          ""};
}

// The recipe's map gives no layout for one stage (pp 1, vpp 1): nothing to split.
RecipeDefaults deepseek_v3_single_stage(int with_mtp) {
  return {kMegatronBridge2511, "deepseek-v3", with_mtp, 1, 1, {}, "", ""};
}

// For sizes outside the map the recipe sets no layout, and 61 layers do not split into equal chunks.
RecipeDefaults deepseek_v3_unmapped(int with_mtp) {
  std::string mapped;
  for (const auto& layout : kDeepSeekV3Layouts) {
    if (!mapped.empty()) mapped += ", ";
    mapped.append("(").append(std::to_string(layout.pipeline_parallel));
    mapped.append(", ").append(std::to_string(layout.virtual_stages)).append(")");
  }
  RecipeDefaults recipe{kMegatronBridge2511, "deepseek-v3", with_mtp, 0, 0, {}, "", ""};
  recipe.refusal = std::string(kDeepSeekV3Recipe) + " has a pipeline layout only for (pp, vpp) = " + mapped +
                   "; the split of the 61 layers used for this row is not stated";
  return recipe;
}

void add_deepseek_v3(std::vector<RecipeDefaults>& recipes, int with_mtp, const char* last) {
  for (const auto& layout : kDeepSeekV3Layouts) recipes.push_back(deepseek_v3(layout, with_mtp, last));
  recipes.push_back(deepseek_v3_single_stage(with_mtp));
  // First match wins: the sizes the recipe maps come before the refusal for the rest.
  recipes.push_back(deepseek_v3_unmapped(with_mtp));
}

// Megatron-Bridge's Qwen3-235B-A22B recipe (src/megatron/bridge/recipes/qwen/qwen3_moe.py,
// qwen3_235b_a22b_pretrain_config) sets account_for_embedding_in_pipeline_split and
// account_for_loss_in_pipeline_split to True for every pipeline shape; the performance
// configurations (scripts/performance/configs/qwen3/qwen3_llm_pretrain.py,
// qwen3_235b_a22b_{gb300,gb200,b200}_config) start from that recipe.
RecipeDefaults qwen3_235b_a22b() {
  return {kMegatronBridge2511,
          "qwen3-235b-a22b",
          -1,
          0,
          0,
          {{"account_for_embedding_in_pipeline_split", "true"}, {"account_for_loss_in_pipeline_split", "true"}},
          "Megatron-Bridge recipe qwen3_235b_a22b (src/megatron/bridge/recipes/qwen/qwen3_moe.py, "
          "qwen3_235b_a22b_pretrain_config) counts the embedding and the loss as layers in the pipeline split",
          ""};
}

}  // namespace

const std::vector<RecipeDefaults>& calibration_recipes() {
  static const std::vector<RecipeDefaults> recipes = [] {
    std::vector<RecipeDefaults> all{llama31_405b()};
    add_deepseek_v3(all, 1, "mL");
    add_deepseek_v3(all, 0, "L");
    all.push_back(qwen3_235b_a22b());
    return all;
  }();
  return recipes;
}

namespace {

//! The built-in model a row's model is: itself for an MoE row's, the catalog entry its name names
//! for a dense row's (which carries the row's own name and shape).
std::string builtin_name(const model::ModelSpec& model) {
  try {
    return catalog::find_model(split_remark(model.name).name).name;
  } catch (const InputError&) {
    return model.name;
  }
}

}  // namespace

bool runs_megatron_recipes(std::string_view framework) {
  const std::string key = name_key(framework);
  return key.find("megatron") != std::string::npos || key.find("nemo") != std::string::npos;
}

const RecipeDefaults* find_recipe(std::string_view framework, const model::ModelSpec& model, int pipeline_parallel,
                                  int virtual_stages) {
  if (!runs_megatron_recipes(framework)) return nullptr;
  const std::string builtin = builtin_name(model);
  for (const auto& recipe : calibration_recipes()) {
    const bool sizes = (recipe.pipeline_parallel == 0 || recipe.pipeline_parallel == pipeline_parallel) &&
                       (recipe.virtual_stages == 0 || recipe.virtual_stages == virtual_stages);
    const bool mtp = recipe.with_mtp < 0 || recipe.with_mtp == (model.mtp_layers > 0 ? 1 : 0);
    if (sizes && mtp && recipe.model == builtin) return &recipe;
  }
  return nullptr;
}

}  // namespace distsim::io
