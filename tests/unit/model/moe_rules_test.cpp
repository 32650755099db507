#include "model/moe_rules.hpp"

#include <gtest/gtest.h>

namespace distsim::model {

namespace {

ModelSpec eight_experts() {
  ModelSpec model;
  model.num_layers = 4;
  model.moe = {.num_experts = 8, .top_k = 2, .expert_ffn_hidden_size = 16};
  return model;
}

}  // namespace

TEST(MoeRules, ADenseModelAndAValidMoeModelHaveNoProblems) {
  EXPECT_TRUE(moe_problems(ModelSpec{}).empty());
  EXPECT_TRUE(mla_problems(ModelSpec{}).empty());
  EXPECT_TRUE(moe_problems(eight_experts()).empty());
}

TEST(MoeRules, TopKLargerThanTheExperts) {
  ModelSpec model = eight_experts();
  model.moe.top_k = 9;
  EXPECT_EQ(moe_problems(model), std::vector<std::string>{"top_k 9 must be between 1 and num_experts 8"});
}

TEST(MoeRules, SharedExpertsNeedASize) {
  ModelSpec model = eight_experts();
  model.moe.shared_experts = 2;
  EXPECT_EQ(moe_problems(model),
            std::vector<std::string>{"shared_experts 2 needs a positive shared_expert_ffn_hidden_size, got 0"});
}

TEST(MoeRules, DenseLayersLeavingNoMoeLayer) {
  ModelSpec model = eight_experts();
  model.moe.first_dense_layers = 3;
  model.moe.layer_interval = 2;
  EXPECT_EQ(moe_problems(model),
            std::vector<std::string>{"first_dense_layers 3 and layer_interval 2 leave no MoE layer among the 4 layers; "
                                     "expected first_dense_layers + layer_interval <= num_layers"});
}

TEST(MoeRules, RouterGroupsMustDivideTheExperts) {
  ModelSpec model = eight_experts();
  model.moe.router_groups = 3;
  model.moe.router_group_top_k = 1;
  EXPECT_EQ(moe_problems(model), std::vector<std::string>{"router_groups 3 must divide num_experts 8, with "
                                                          "router_group_top_k 1 between 1 and router_groups"});
}

TEST(MoeRules, ExpertsAndLatentAttentionOnlyInDecoders) {
  ModelSpec model = eight_experts();
  model.architecture = Architecture::encoder;
  model.mla = {.kv_lora_rank = 4, .qk_nope_head_dim = 2, .qk_rope_head_dim = 1, .v_head_dim = 2};
  EXPECT_EQ(moe_problems(model),
            std::vector<std::string>{"num_experts 8: experts are modelled in decoder-only models"});
  EXPECT_EQ(mla_problems(model),
            std::vector<std::string>{"kv_lora_rank 4: latent attention is modelled in decoder-only models"});
}

TEST(MoeRules, LatentAttentionNeedsItsHeadSizes) {
  ModelSpec model;
  model.mla.kv_lora_rank = 512;
  model.mla.qk_nope_head_dim = 128;
  model.mla.v_head_dim = 128;
  EXPECT_EQ(mla_problems(model),
            std::vector<std::string>{"qk_rope_head_dim must be positive with kv_lora_rank 512, got 0"});
}

}  // namespace distsim::model
