#include "strategy/pipeline_layout.hpp"

#include <gtest/gtest.h>

namespace distsim::strategy {

namespace {

Strategy pipeline(int stages) {
  Strategy strategy;
  strategy.pipeline_parallel = stages;
  return strategy;
}

//! The layout of a job without problems; the test fails on any.
std::vector<VirtualStage> layout_of(const Strategy& strategy, int layers, int chunks) {
  std::vector<std::string> problems;
  auto stages = custom_pipeline_layout(strategy, layers, chunks, problems);
  EXPECT_TRUE(problems.empty()) << (problems.empty() ? "" : problems.front());
  return stages;
}

//! The one problem a layout has.
std::string problem_of(const Strategy& strategy, int layers, int chunks) {
  std::vector<std::string> problems;
  EXPECT_TRUE(custom_pipeline_layout(strategy, layers, chunks, problems).empty());
  EXPECT_EQ(problems.size(), 1U);
  return problems.empty() ? "" : problems.front();
}

}  // namespace

// Megatron-Core's own example (docs: custom pipeline model parallel layout, DeepSeek-V3 on
// PP16 VPP2): "Et*3|(tt|)*29,m|L". Symbols: E1 t2 *3 3(4) |5 (6 t7 t8 |9 )10 *11 2(12) 9(13) ,14
// m15: an MTP layer in a virtual stage of its own, before the loss's, is refused at position 15
// (distsim runs the modules with the output head they share).
TEST(PipelineLayoutText, RefusesMegatronsMtpExampleAtTheMtpSymbol) {
  EXPECT_EQ(parse_pipeline_layout("Et*3|(tt|)*29,m|L").problem,
            "at position 15: expected m (a multi-token prediction layer) only in the virtual stage that holds L");
}

// The Megatron-Bridge DeepSeek-V3 layout for pp 16: the last virtual stage holds one layer, the
// MTP layer and the loss: 15 stages, 4 + 14 x 4 + 1 = 61 decoder layers.
TEST(PipelineLayoutText, CountsMtpLayersInTheStageOfTheLoss) {
  const auto parsed = parse_pipeline_layout("Et*4|(t*4|)*14tmL");
  ASSERT_TRUE(parsed.ok()) << parsed.problem;
  ASSERT_EQ(parsed.stages.size(), 16U);
  EXPECT_EQ(parsed.stages[15], (VirtualStage{60, 1, false, true, 1}));
  EXPECT_EQ(parsed.stages[14].mtp_layers, 0);
}

// The same example without its MTP stage: "Ettt", then 29 stages of "tt", then "L": 31 virtual
// stages, 3 + 29 x 2 = 61 decoder layers (DeepSeek-V3's). Stage k (1..29) starts at 3 + 2(k - 1):
// stage 29 at 59; the loss stage starts at 61 and holds none.
TEST(PipelineLayoutText, ExpandsGroupsAndRepeats) {
  const auto parsed = parse_pipeline_layout("Et*3|(tt|)*29,L");
  ASSERT_TRUE(parsed.ok()) << parsed.problem;
  ASSERT_EQ(parsed.stages.size(), 31U);
  EXPECT_EQ(parsed.stages[0], (VirtualStage{0, 3, true, false}));
  EXPECT_EQ(parsed.stages[1], (VirtualStage{3, 2, false, false}));
  EXPECT_EQ(parsed.stages[29], (VirtualStage{59, 2, false, false}));
  EXPECT_EQ(parsed.stages[30], (VirtualStage{61, 0, false, true}));
}

// Nested groups expand inside out: ((t|)*2t|)*2 = t|t|t|t|t|t| (six stages of one layer each).
TEST(PipelineLayoutText, NestedGroupsRepeat) {
  const auto parsed = parse_pipeline_layout("E((t|)*2t|)*2L");
  ASSERT_TRUE(parsed.ok()) << parsed.problem;
  ASSERT_EQ(parsed.stages.size(), 7U);
  EXPECT_EQ(parsed.stages[0], (VirtualStage{0, 1, true, false}));
  EXPECT_EQ(parsed.stages[5], (VirtualStage{5, 1, false, false}));
  EXPECT_EQ(parsed.stages[6], (VirtualStage{6, 0, false, true}));
}

TEST(PipelineLayoutText, NamesThePositionAndWhatWasExpected) {
  EXPECT_EQ(parse_pipeline_layout("Etx|L").problem, "at position 3: expected E, t, m, L, '|', ',', '(' or a "
                                                    "repeat '*N', got 'x'");
  EXPECT_EQ(parse_pipeline_layout("Et*|L").problem, "at position 3: expected a repeat count after '*'");
  EXPECT_EQ(parse_pipeline_layout("Et*0|L").problem, "at position 4: expected a repeat count of at least 1, got 0");
  EXPECT_EQ(parse_pipeline_layout("E*2t|L").problem, "at position 1: expected one E only, got a second");
  EXPECT_EQ(parse_pipeline_layout("*2Et|L").problem,
            "at position 1: expected a layer symbol, '|' or a group in parentheses before '*'");
  EXPECT_EQ(parse_pipeline_layout("E(tt|L").problem, "at position 2: expected a ')' closing this '('");
  EXPECT_EQ(parse_pipeline_layout("Ett)|L").problem,
            "at position 4: expected a layer symbol or '|', got ')' without a matching '('");
  EXPECT_EQ(parse_pipeline_layout("E()*2|tL").problem,
            "at position 2: expected a layer symbol or '|' inside the parentheses");
  EXPECT_EQ(parse_pipeline_layout("tE|tL").problem, "at position 1: expected E (the embedding) before any other layer");
  EXPECT_EQ(parse_pipeline_layout("Et|Lt").problem,
            "at position 5: expected L (head and loss) after every other layer");
  EXPECT_EQ(parse_pipeline_layout("Et|tLL").problem, "at position 6: expected one L only, got a second");
  EXPECT_EQ(parse_pipeline_layout("t|t").problem, "at position 1: expected E (the embedding) as the first symbol; the "
                                                  "layout has none");
  EXPECT_EQ(parse_pipeline_layout("Et|t").problem, "at position 4: expected L (head and loss) as the last symbol; the "
                                                   "layout has none");
  EXPECT_EQ(parse_pipeline_layout("").problem, "at position 1: expected a layout such as 'Et*3|t*4|t*3L'; got an "
                                               "empty string");
  EXPECT_EQ(parse_pipeline_layout("E t|L").problem,
            "at position 2: expected E, t, m, L, '|', ',', '(' or a repeat '*N', got ' '");
}

TEST(PipelineLayoutText, RefusesRepeatsBeyondAMillionSymbols) {
  EXPECT_EQ(parse_pipeline_layout("E(t*1000)*1001|L").problem,
            "at position 10: expected a layout of at most 1000000 symbols once repeats are expanded");
}

// The string must give pp x chunks virtual stages and name every layer once.
TEST(CustomPipelineLayout, ChecksTheStringAgainstTheJob) {
  Strategy strategy = pipeline(4);
  strategy.pipeline_layout = "Et*4|t*7|t*7|t*6L";
  const auto stages = layout_of(strategy, 24, 1);
  ASSERT_EQ(stages.size(), 4U);
  EXPECT_EQ(stages[3], (VirtualStage{18, 6, false, true}));
  EXPECT_EQ(problem_of(strategy, 26, 1),
            "pipeline_layout 'Et*4|t*7|t*7|t*6L' names 24 decoder layers (t), but the model has 26");
  EXPECT_EQ(problem_of(strategy, 24, 2),
            "pipeline_layout 'Et*4|t*7|t*7|t*6L' has 4 virtual stages (separated by '|'), but pipeline parallel size "
            "x virtual stages = 4 x 2 = 8");
}

// An empty stage (nothing between two '|') is refused: virtual stage 2 of "Et*8||t*8|t*8L" on
// pp 4 is pipeline stage 2, chunk 0.
TEST(CustomPipelineLayout, RefusesAnEmptyVirtualStage) {
  Strategy strategy = pipeline(4);
  strategy.pipeline_layout = "Et*8|t*8||t*8L";
  EXPECT_EQ(problem_of(strategy, 24, 1),
            "virtual stage 2 (pipeline stage 2, chunk 0) would hold no layer, embedding or head; every virtual stage "
            "must hold something");
}

// Llama 3.1 405B as Megatron-Bridge runs it: 126 layers on pp 8 with 4 virtual stages, the
// embedding and the loss counted as layers: (126 + 2) / (8 x 4) = 4 per virtual stage, the first
// (virtual stage 0 = pipeline stage 0, chunk 0) and the last (31 = stage 7, chunk 3) hold 3.
// Virtual stage k > 0 starts at 3 + 4(k - 1): stage 8 (pipeline stage 0, chunk 1) at 31, stage
// 31 at 123, holding 123-125. Megatron-Core's get_transformer_layer_offset gives the same:
// vp_stage x (128 / 4) + pp_rank x 4 - 1 = 3 x 32 + 7 x 4 - 1 = 123 for stage 7, chunk 3.
TEST(CustomPipelineLayout, AccountsForEmbeddingAndLoss) {
  Strategy strategy = pipeline(8);
  strategy.account_for_embedding = true;
  strategy.account_for_loss = true;
  const auto stages = layout_of(strategy, 126, 4);
  ASSERT_EQ(stages.size(), 32U);
  EXPECT_EQ(stages[0], (VirtualStage{0, 3, true, false}));
  EXPECT_EQ(stages[1], (VirtualStage{3, 4, false, false}));
  EXPECT_EQ(stages[8], (VirtualStage{31, 4, false, false}));
  EXPECT_EQ(stages[31], (VirtualStage{123, 3, false, true}));
  int pipeline_stage_zero = 0;
  for (int chunk = 0; chunk < 4; ++chunk) pipeline_stage_zero += stages[static_cast<size_t>(chunk * 8)].num_layers;
  EXPECT_EQ(pipeline_stage_zero, 15);  // 3 + 4 + 4 + 4
}

// The embedding alone: (126 + 1) / 8 is not whole, so pp 8 is refused; with pp 1 it is 127 on one
// stage, 126 after the embedding.
TEST(CustomPipelineLayout, RefusesAnUnevenAccountedSplit) {
  Strategy strategy = pipeline(8);
  strategy.account_for_embedding = true;
  EXPECT_EQ(problem_of(strategy, 126, 1),
            "the model's 126 layers + the embedding = 127 do not split evenly over pipeline parallel size x virtual "
            "stages = 8 x 1 = 8");
  strategy.pipeline_parallel = 1;
  EXPECT_EQ(layout_of(strategy, 126, 1).front(), (VirtualStage{0, 126, true, true}));
}

// 126 layers on pp 16, 6 on the first stage and 8 on the last: 126 - 14 = 112 over the 14 middle
// stages, 8 each. With 2 chunks: 3 per chunk on stage 0, 4 elsewhere; virtual stage 16 (stage 0,
// chunk 1) starts after 3 + 14 x 4 + 4 = 63 layers.
TEST(CustomPipelineLayout, FirstAndLastStageLayers) {
  Strategy strategy = pipeline(16);
  strategy.first_stage_layers = 6;
  strategy.last_stage_layers = 8;
  const auto one_chunk = layout_of(strategy, 126, 1);
  ASSERT_EQ(one_chunk.size(), 16U);
  EXPECT_EQ(one_chunk[0], (VirtualStage{0, 6, true, false}));
  EXPECT_EQ(one_chunk[1], (VirtualStage{6, 8, false, false}));
  EXPECT_EQ(one_chunk[15], (VirtualStage{118, 8, false, true}));
  const auto two_chunks = layout_of(strategy, 126, 2);
  ASSERT_EQ(two_chunks.size(), 32U);
  EXPECT_EQ(two_chunks[0], (VirtualStage{0, 3, true, false}));
  EXPECT_EQ(two_chunks[15], (VirtualStage{59, 4, false, false}));
  EXPECT_EQ(two_chunks[16], (VirtualStage{63, 3, false, false}));
  EXPECT_EQ(two_chunks[31], (VirtualStage{122, 4, false, true}));
}

// 126 - 5 - 8 = 113 layers do not split over 14 stages; only the last stage given: 126 - 6 = 120
// over 15 stages, 8 each (stage 14 starts at 14 x 8 = 112); 9 layers on pp 2 with 4 on the first
// stage leave 5 for the last, which do not split over 2 chunks.
TEST(CustomPipelineLayout, RefusesRemaindersAsMegatronDoes) {
  Strategy strategy = pipeline(16);
  strategy.first_stage_layers = 5;
  strategy.last_stage_layers = 8;
  EXPECT_EQ(problem_of(strategy, 126, 1),
            "first_stage_layers 5 and last_stage_layers 8 leave 113 of the model's 126 layers, which do not split "
            "evenly over the other 14 pipeline stages (Megatron-Core refuses the remainder)");
  strategy.first_stage_layers = 0;
  strategy.last_stage_layers = 6;
  EXPECT_EQ(layout_of(strategy, 126, 1)[14], (VirtualStage{112, 8, false, false}));
  strategy = pipeline(2);
  strategy.first_stage_layers = 4;
  EXPECT_EQ(problem_of(strategy, 9, 2),
            "pipeline stage 1 would hold 5 layers, which do not split evenly over its 2 virtual stages");
}

TEST(CustomPipelineLayout, TakesOneDescriptionAtATime) {
  Strategy strategy = pipeline(4);
  strategy.pipeline_layout = "Et*6|t*6|t*6|t*6L";
  strategy.account_for_loss = true;
  EXPECT_EQ(problem_of(strategy, 24, 1),
            "pipeline_layout, account_for_loss_in_pipeline_split describe the pipeline layout in more than one way; "
            "give the layout string alone, or first/last stage layers, or the embedding/loss accounting (as "
            "Megatron-Core accepts them)");
}

}  // namespace distsim::strategy
