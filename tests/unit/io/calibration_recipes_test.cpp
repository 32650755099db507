#include "io/calibration/calibration_recipes.hpp"

#include <gtest/gtest.h>

#include "strategy/pipeline_layout.hpp"

namespace distsim::io {

namespace {
constexpr const char* kBridge = "Megatron-Bridge / Megatron-Core (NeMo 25.11)";
}  // namespace

// Megatron-Bridge's DeepSeek-V3 recipe (_get_deepseek_v3_pipeline_layout) for pp 4 x vpp 4: the
// embedding with 4 layers, 14 virtual stages of 4, then 1 layer with the loss (without MTP):
// 16 virtual stages and 4 + 14 x 4 + 1 = 61 layers, DeepSeek-V3's.
TEST(CalibrationRecipes, DeepSeekV3LayoutPerPipelineShape) {
  const RecipeDefaults* recipe = find_recipe(kBridge, "DeepSeekV3 (w/o MTP)", 4, 4);
  ASSERT_NE(recipe, nullptr);
  ASSERT_EQ(recipe->settings.size(), 1U);
  EXPECT_EQ(recipe->settings[0].first, "pipeline_layout");
  const auto parsed = strategy::parse_pipeline_layout(recipe->settings[0].second);
  ASSERT_TRUE(parsed.ok()) << parsed.problem;
  ASSERT_EQ(parsed.stages.size(), 16U);
  EXPECT_EQ(parsed.stages[15], (strategy::VirtualStage{60, 1, false, true}));
  // The recipe has no layout for pp 2 x vpp 4, so the reader gives none.
  EXPECT_EQ(find_recipe(kBridge, "DeepSeekV3 (w/o MTP)", 2, 4), nullptr);
}

// With MTP the recipe's last virtual stage holds one layer, the MTP layer and the loss ("tmL"):
// the MTP layer is read into that stage.
TEST(CalibrationRecipes, DeepSeekV3WithMtpPutsTheMtpLayerWithTheLoss) {
  const RecipeDefaults* recipe = find_recipe(kBridge, "deepseekv3 (w/ mtp)", 16, 1);
  ASSERT_NE(recipe, nullptr);
  const auto parsed = strategy::parse_pipeline_layout(recipe->settings[0].second);
  ASSERT_TRUE(parsed.ok()) << parsed.problem;
  ASSERT_EQ(parsed.stages.size(), 16U);
  EXPECT_EQ(parsed.stages[15], (strategy::VirtualStage{60, 1, false, true, 1}));
}

}  // namespace distsim::io
