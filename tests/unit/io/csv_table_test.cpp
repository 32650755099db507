#include "io/calibration/csv_table.hpp"

#include <gtest/gtest.h>

#include "io_test_support.hpp"

namespace distsim::io {

namespace {

CsvTable parse(std::string_view text) { return CsvTable::parse(text, "runs.csv"); }

}  // namespace

TEST(CsvTable, ReadsTheHeaderAndTrimsFieldsOfSurroundingSpaces) {
  const auto table = parse("id, model ,tp\nR1,  gpt  ,2\n");
  EXPECT_EQ(table.header(), (std::vector<std::string>{"id", "model", "tp"}));
  ASSERT_EQ(table.rows(), 1U);
  EXPECT_EQ(table.field(0, "model"), "gpt");
  EXPECT_EQ(table.field(0, "tp"), "2");
  EXPECT_EQ(table.column("tp"), 2U);
  EXPECT_FALSE(table.column("pp").has_value());
  EXPECT_EQ(table.field(0, "pp"), "");  // a column that does not exist reads as empty
}

// RFC 4180 §2.6-2.7: a quoted field may hold commas, line breaks and "" for one quote.
TEST(CsvTable, QuotedFieldsHoldCommasDoubledQuotesAndNewlines) {
  const auto table = parse("a,b,c\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\n");
  ASSERT_EQ(table.rows(), 1U);
  EXPECT_EQ(table.field(0, "a"), "x, y");
  EXPECT_EQ(table.field(0, "b"), "say \"hi\"");
  EXPECT_EQ(table.field(0, "c"), "two\nlines");
}

TEST(CsvTable, CrlfLineEndsAreTheSameAsLf) {
  const auto table = parse("a,b\r\n1,2\r\n3,4\r\n");
  EXPECT_EQ(table.header(), (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(table.rows(), 2U);
  EXPECT_EQ(table.field(0, "b"), "2");
  EXPECT_EQ(table.field(1, "b"), "4");
  EXPECT_EQ(table.line(1), 3);
}

// The header is line 1; row 0 starts on line 2 and its quoted field spans lines 2-4, so the
// next row starts on line 5 and the one after on line 6.
TEST(CsvTable, RowsAfterAMultiLineFieldKeepTheirFileLineNumbers) {
  const auto table = parse("id,notes\nR1,\"first\nsecond\nthird\"\nR2,plain\nR3,x\n");
  ASSERT_EQ(table.rows(), 3U);
  EXPECT_EQ(table.line(0), 2);
  EXPECT_EQ(table.line(1), 5);
  EXPECT_EQ(table.line(2), 6);
  EXPECT_EQ(table.field(1, "id"), "R2");
}

TEST(CsvTable, BlankLinesAreSkippedButCounted) {
  const auto table = parse("a,b\n1,2\n\n3,4\n\n\r\n\n");
  ASSERT_EQ(table.rows(), 2U);
  EXPECT_EQ(table.line(0), 2);
  EXPECT_EQ(table.line(1), 4);  // line 3 is blank
}

TEST(CsvTable, ALastRowWithoutLineEndIsRead) {
  const auto table = parse("a,b\n1,2");
  ASSERT_EQ(table.rows(), 1U);
  EXPECT_EQ(table.field(0, "b"), "2");
}

TEST(CsvTable, AnUnterminatedQuoteNamesTheLineWhereItsRowStarts) {
  EXPECT_EQ(error_of([] { parse("a,b\n1,2\n3,\"open\nstill open\n"); }),
            "runs.csv:3: a quoted field is not closed before the end of the file");
}

TEST(CsvTable, ARowWithTheWrongNumberOfFieldsIsNamedWithBothCounts) {
  EXPECT_EQ(error_of([] { parse("a,b,c\n1,2,3\n4,5\n"); }), "runs.csv:3: 2 fields, but the header has 3 columns");
  // A quoted comma is not a separator, so "1,2" counts once: 3 fields against 2 columns.
  EXPECT_EQ(error_of([] { parse("a,b\n\"1,2\",3,4\n"); }), "runs.csv:2: 3 fields, but the header has 2 columns");
}

TEST(CsvTable, AnEmptyFileAsksForAHeader) {
  EXPECT_EQ(error_of([] { parse(""); }), "runs.csv: the file is empty; expected a header row of column names");
}

TEST(CsvTable, AColumnNamedTwiceIsRefused) {
  EXPECT_EQ(error_of([] { parse("a,b,a\n1,2,3\n"); }),
            "runs.csv:1: column 'a' is in the header twice; a column must be named once");
}

TEST(CsvTable, AHeaderWithoutRowsIsRefused) {
  EXPECT_EQ(error_of([] { parse("a,b\n"); }),
            "runs.csv: the file has a header but no rows; expected at least one row of data");
  EXPECT_EQ(error_of([] { parse("a,b\n\n\r\n"); }),
            "runs.csv: the file has a header but no rows; expected at least one row of data");
}

TEST(CsvTable, AByteOrderMarkIsNoPartOfTheFirstName) {
  // EF BB BF: U+FEFF in UTF-8, which spreadsheet programs put first in "CSV UTF-8".
  const auto table = parse("\xEF\xBB\xBFid,tp\nR1,2\n");
  EXPECT_EQ(table.header().at(0), "id");
  EXPECT_EQ(table.field(0, "id"), "R1");
}

}  // namespace distsim::io
