#include "io/calibration/calibration_recipes.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "catalog/builtin_models.hpp"
#include "strategy/pipeline_layout.hpp"

namespace distsim::io {

namespace {
constexpr const char* kBridge = "Megatron-Bridge / Megatron-Core (NeMo 25.11)";

//! A built-in model with its MTP modules or without.
model::ModelSpec built_in(const char* name, bool with_mtp = false) {
  model::ModelSpec model = catalog::find_model(name);
  if (!with_mtp) model.mtp_layers = 0;
  return model;
}

const model::ModelSpec kDeepSeekWithoutMtp = built_in("deepseek-v3");
const model::ModelSpec kDeepSeekWithMtp = built_in("deepseek-v3", true);
}  // namespace

// Megatron-Bridge's DeepSeek-V3 recipe (_get_deepseek_v3_pipeline_layout) for pp 4 x vpp 4: the
// embedding with 4 layers, 14 virtual stages of 4, then 1 layer with the loss (without MTP):
// 16 virtual stages and 4 + 14 x 4 + 1 = 61 layers, DeepSeek-V3's.
TEST(CalibrationRecipes, DeepSeekV3LayoutPerPipelineShape) {
  const RecipeDefaults* recipe = find_recipe(kBridge, kDeepSeekWithoutMtp, 4, 4);
  ASSERT_NE(recipe, nullptr);
  ASSERT_EQ(recipe->settings.size(), 1U);
  EXPECT_EQ(recipe->settings[0].first, "pipeline_layout");
  const auto parsed = strategy::parse_pipeline_layout(recipe->settings[0].second);
  ASSERT_TRUE(parsed.ok()) << parsed.problem;
  ASSERT_EQ(parsed.stages.size(), 16U);
  EXPECT_EQ(parsed.stages[15], (strategy::VirtualStage{60, 1, false, true}));
}

// The rest of the recipe's map, each worked from its chunk sizes: (4, 1) is 16 + 16 + 16 + 13 = 61
// layers, the last chunk starting at layer 48; (8, 1) and (4, 2) are 8 + 6 x 8 + 5 = 61, the last
// starting at layer 56; (8, 2) is the 16-chunk layout of (4, 4).
TEST(CalibrationRecipes, DeepSeekV3EveryMappedShapeHasItsLayout) {
  struct Shape {
    int pp;
    int vpp;
    std::size_t chunks;
    strategy::VirtualStage last;
  };
  for (const Shape& shape : {Shape{4, 1, 4, {48, 13, false, true}}, Shape{8, 1, 8, {56, 5, false, true}},
                             Shape{4, 2, 8, {56, 5, false, true}}, Shape{8, 2, 16, {60, 1, false, true}}}) {
    const RecipeDefaults* recipe = find_recipe(kBridge, kDeepSeekWithoutMtp, shape.pp, shape.vpp);
    ASSERT_NE(recipe, nullptr);
    EXPECT_TRUE(recipe->refusal.empty()) << recipe->refusal;
    ASSERT_EQ(recipe->settings.size(), 1U);
    const auto parsed = strategy::parse_pipeline_layout(recipe->settings[0].second);
    ASSERT_TRUE(parsed.ok()) << parsed.problem;
    ASSERT_EQ(parsed.stages.size(), shape.chunks) << shape.pp << " x " << shape.vpp;
    EXPECT_EQ(parsed.stages.back(), shape.last) << shape.pp << " x " << shape.vpp;
  }
}

// The recipe's map has no layout for pp 2 x vpp 4 or pp 8 x vpp 4: a row with those sizes is
// refused with the recipe's name instead of being simulated with a split nobody stated; one
// stage needs no layout and is neither refused nor given settings.
TEST(CalibrationRecipes, DeepSeekV3WithoutARecipeLayoutIsRefused) {
  for (const auto& [pp, vpp] : {std::pair{2, 4}, std::pair{8, 4}}) {
    const RecipeDefaults* recipe = find_recipe(kBridge, kDeepSeekWithoutMtp, pp, vpp);
    ASSERT_NE(recipe, nullptr);
    EXPECT_TRUE(recipe->settings.empty());
    EXPECT_NE(recipe->refusal.find("_get_deepseek_v3_pipeline_layout) has a pipeline layout only for"),
              std::string::npos)
        << recipe->refusal;
    EXPECT_NE(recipe->refusal.find("(pp, vpp) = (4, 1), (8, 1), (4, 2), (16, 1), (8, 2), (4, 4);"), std::string::npos)
        << recipe->refusal;
  }
  const RecipeDefaults* single = find_recipe(kBridge, kDeepSeekWithMtp, 1, 1);
  ASSERT_NE(single, nullptr);
  EXPECT_TRUE(single->refusal.empty());
  EXPECT_TRUE(single->settings.empty());
}

// Qwen3-235B-A22B's recipe counts the embedding and the loss as layers for every pipeline shape:
// 94 + 2 = 96 layer slots, which 4 x 12 = 48, 8 x 3 = 24 and 8 x 2 = 16 chunks all divide.
TEST(CalibrationRecipes, Qwen3235bAccountsForEmbeddingAndLoss) {
  const RecipeDefaults* recipe = find_recipe(kBridge, built_in("qwen3-235b-a22b"), 4, 12);
  ASSERT_NE(recipe, nullptr);
  EXPECT_TRUE(recipe->refusal.empty());
  const std::vector<std::pair<std::string, std::string>> expected{{"account_for_embedding_in_pipeline_split", "true"},
                                                                  {"account_for_loss_in_pipeline_split", "true"}};
  EXPECT_EQ(recipe->settings, expected);
  EXPECT_EQ(find_recipe(kBridge, built_in("qwen3-30b-a3b"), 1, 1), nullptr);
}

// With MTP the recipe's last virtual stage holds one layer, the MTP layer and the loss ("tmL"):
// the MTP layer is read into that stage.
TEST(CalibrationRecipes, DeepSeekV3WithMtpPutsTheMtpLayerWithTheLoss) {
  const RecipeDefaults* recipe = find_recipe(kBridge, kDeepSeekWithMtp, 16, 1);
  ASSERT_NE(recipe, nullptr);
  const auto parsed = strategy::parse_pipeline_layout(recipe->settings[0].second);
  ASSERT_TRUE(parsed.ok()) << parsed.problem;
  ASSERT_EQ(parsed.stages.size(), 16U);
  EXPECT_EQ(parsed.stages[15], (strategy::VirtualStage{60, 1, false, true, 1}));
}

// The recipes are Megatron-Core's family's: a row of another Megatron-Bridge or NeMo release gets
// them (the reader says so), a torchtitan row does not.
TEST(CalibrationRecipes, AreFoundForTheMegatronFamilyOfFrameworks) {
  EXPECT_NE(find_recipe("Megatron-Bridge 26.02", kDeepSeekWithoutMtp, 4, 4), nullptr);
  EXPECT_NE(find_recipe("NeMo 2.0 launcher", kDeepSeekWithoutMtp, 4, 4), nullptr);
  EXPECT_EQ(find_recipe("torchtitan", kDeepSeekWithoutMtp, 4, 4), nullptr);
}

}  // namespace distsim::io
