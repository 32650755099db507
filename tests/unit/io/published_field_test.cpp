#include "io/calibration/published_field.hpp"

#include <gtest/gtest.h>

namespace distsim::io {

TEST(PublishedField, TheValueDropsParenthesisedRemarksAndIsLowerCase) {
  EXPECT_EQ(read_published_field("fp16 mixed (--fp16, loss-scale 8192)").value, "fp16 mixed");
  EXPECT_EQ(read_published_field("FP8 (Transformer Engine) + BF16").value, "fp8 + bf16");
  EXPECT_EQ(read_published_field("H100 (Grand Teton; 96 GB (HBM2e))").value, "h100");  // nested remarks
  EXPECT_EQ(read_published_field("NVSwitch (DGX-2H), 300 GB/s per GPU").value, "nvswitch, 300 gb/s per gpu");
  EXPECT_EQ(read_published_field("  full   (every layer)  ").value, "full");
  EXPECT_EQ(read_published_field("FP8 (Transformer Engine) + BF16").text, "FP8 (Transformer Engine) + BF16");
}

// One rule for every column: these markers say the setting does not apply.
TEST(PublishedField, EmptyNaNoneAndDashAreMissing) {
  for (const char* marker : {"", "n/a", "N/A", "NA", "none", "None", "-", " - ", "n/a (TP=1)",
                             "none (Adam replicated over DP)"}) {
    EXPECT_TRUE(read_published_field(marker).missing) << "'" << marker << "'";
  }
  for (const char* value : {"no", "0", "nan", "--", "none/selective default", "not stated"}) {
    EXPECT_FALSE(read_published_field(value).missing) << "'" << value << "'";
  }
}

TEST(PublishedField, NotStatedAnywhereInTheFieldIsNoted) {
  EXPECT_TRUE(read_published_field("not stated").not_stated);
  EXPECT_TRUE(read_published_field("Not stated (recipes enable SP with TP>1)").not_stated);
  EXPECT_TRUE(read_published_field("DDP + distributed optimizer (recipe default; not stated)").not_stated);
  EXPECT_FALSE(read_published_field("DDP + distributed optimizer").not_stated);
  EXPECT_EQ(read_published_field("DDP + distributed optimizer (recipe default; not stated)").value,
            "ddp + distributed optimizer");
}

}  // namespace distsim::io
