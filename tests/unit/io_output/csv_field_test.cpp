#include <gtest/gtest.h>

#include "io/output/search_writer.hpp"

namespace distsim::io {

// RFC 4180 §2: a field holding a comma, a double quote or a line break is enclosed in double
// quotes (rule 6), and a double quote inside it is escaped by a second one (rule 7); any other
// field is written as it is. A sweep's model axis can name a file such as "runs/a,b.json".
TEST(CsvField, QuotesOnlyWhatWouldBreakTheRow) {
  EXPECT_EQ(csv_field("models/tiny_gpt.yaml"), "models/tiny_gpt.yaml");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("runs/a,b.json"), "\"runs/a,b.json\"");
  EXPECT_EQ(csv_field("the \"big\" one"), "\"the \"\"big\"\" one\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("carriage\rreturn"), "\"carriage\rreturn\"");
}

}  // namespace distsim::io
