#include "core/name_match.hpp"

#include <gtest/gtest.h>

namespace distsim {

// The rule: case, '-', '_', '.', spaces and their absence are equal; a '.' between digits is a
// decimal point. The spellings are invented to follow it.
TEST(NameMatch, CaseAndSeparatorsDoNotMatter) {
  EXPECT_TRUE(same_name("Mixtral-8x7B", "mixtral_8x7b"));
  EXPECT_TRUE(same_name("Mixtral 8x7B", "MIXTRAL8X7B"));
  EXPECT_TRUE(same_name("squared-relu", "Squared_ReLU"));
  EXPECT_TRUE(same_name("Zero.Stage 3", "zero_stage_3"));
  EXPECT_TRUE(same_name("--nproc_per_node", "--nproc-per-node"));
  EXPECT_FALSE(same_name("zero-3", "zero-2"));
  EXPECT_FALSE(same_name("h100", "h100-sxm"));  // never a name that merely starts another
}

TEST(NameMatch, APointBetweenDigitsIsADecimalPoint) {
  EXPECT_EQ(name_key("Llama 3.1 8B"), "llama3.18b");
  EXPECT_TRUE(same_name("llama-3.1-8b", "LLAMA3.1_8B"));
  EXPECT_FALSE(same_name("qwen2.5-1.5b", "qwen2.5-15b"));
  EXPECT_FALSE(same_name("llama-3.1-8b", "llama31_8b"));
  EXPECT_EQ(name_key("v.1."), "v1");  // not between digits: a separator
}

TEST(NameMatch, ARemarkInParenthesesIsSplitOff) {
  RemarkedName split = split_remark("DeepSeekV3 (w/o MTP)");
  EXPECT_EQ(split.name, "DeepSeekV3");
  EXPECT_EQ(split.remark, "w/o MTP");
  split = split_remark("H100 (Grand Teton; 96 GB)  SXM (500 W (capped))");
  EXPECT_EQ(split.name, "H100 SXM");
  EXPECT_EQ(split.remark, "Grand Teton; 96 GB; 500 W (capped)");
  split = split_remark("FSDP 32 (x), TP 8");
  EXPECT_EQ(split.name, "FSDP 32, TP 8");
  split = split_remark("none (unclosed");
  EXPECT_EQ(split.name, "none");
  EXPECT_EQ(split.remark, "unclosed");
  EXPECT_EQ(split_remark("plain").remark, "");
}

}  // namespace distsim
