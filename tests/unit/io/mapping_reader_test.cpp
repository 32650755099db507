#include "io/document/mapping_reader.hpp"

#include <gtest/gtest.h>

#include "io/document/diagnostics.hpp"
#include "io_test_support.hpp"

namespace distsim::io {

namespace {

enum class Color { red, green };

const std::vector<Choice<Color>> kColors = {{"red", Color::red}, {"green", Color::green}};

//! Reads `yaml` with `read`, then returns the error the recorded problems make ("" if none).
template <class Read>
std::string problems_of(const std::string& yaml, Read&& read) {
  Diagnostics diagnostics("test.yaml");
  MappingReader reader(YAML::Load(yaml), "", diagnostics);
  read(reader);
  return error_of([&] { diagnostics.throw_if_any(); });
}

}  // namespace

TEST(MappingReader, ReadsEachKindOfValue) {
  Diagnostics diagnostics("test.yaml");
  MappingReader reader(YAML::Load("n: 24\nx: 1e-3\nflag: False\ntext: hello\ncolor: GREEN\n"), "", diagnostics);
  int n = 0;
  double x = 0;
  bool flag = true;
  std::string text;
  Color color = Color::red;
  EXPECT_TRUE(reader.read("n", n));
  EXPECT_TRUE(reader.read("x", x, NumberRule::fraction));
  EXPECT_TRUE(reader.read("flag", flag));
  EXPECT_TRUE(reader.read("text", text));
  EXPECT_TRUE(reader.read_choice("color", color, kColors));
  EXPECT_FALSE(reader.read("absent", n));
  EXPECT_EQ(n, 24);
  EXPECT_DOUBLE_EQ(x, 1e-3);
  EXPECT_FALSE(flag);
  EXPECT_EQ(text, "hello");
  EXPECT_EQ(color, Color::green);
  EXPECT_TRUE(diagnostics.empty());
}

TEST(MappingReader, RejectsValuesOutsideTheirRule) {
  EXPECT_EQ(problems_of("a: 0\nb: 2.5\nc: 12abc\nd: -1\ne: 1.5\nf: .inf\ng: ''\n",
                        [](MappingReader& reader) {
                          int integer = 0;
                          double number = 0;
                          std::string text;
                          reader.read("a", integer);
                          reader.read("b", integer);
                          reader.read("c", number, NumberRule::positive);
                          reader.read("d", number, NumberRule::non_negative);
                          reader.read("e", number, NumberRule::fraction_or_zero);
                          reader.read("f", number, NumberRule::positive);
                          reader.read("g", text);
                        }),
            "test.yaml:1: a: expected a positive integer (1 to 2147483647), got '0'\n"
            "test.yaml:2: b: expected a positive integer (1 to 2147483647), got '2.5'\n"
            "test.yaml:3: c: expected a positive number, got '12abc'\n"
            "test.yaml:4: d: expected a number >= 0, got '-1'\n"
            "test.yaml:5: e: expected a number in [0, 1], got '1.5'\n"
            "test.yaml:6: f: expected a positive number, got '.inf'\n"
            "test.yaml:7: g: expected a non-empty string, got ''");
}

TEST(MappingReader, NamesTheKindOfANonScalarValue) {
  EXPECT_EQ(problems_of("a: [1]\nb: {c: 1}\nd:\n", [](MappingReader& reader) {
              int value = 0;
              reader.read("a", value);
              reader.read("b", value);
              reader.read("d", value);
            }),
            "test.yaml:1: a: expected a positive integer (1 to 2147483647), got a list\n"
            "test.yaml:2: b: expected a positive integer (1 to 2147483647), got a mapping\n"
            "test.yaml:3: d: expected a positive integer (1 to 2147483647), got nothing");
}

TEST(MappingReader, ListsTheChoicesOfAnEnumeration) {
  EXPECT_EQ(problems_of("color: blue\n",
                        [](MappingReader& reader) {
                          Color color = Color::red;
                          reader.read_choice("color", color, kColors);
                        }),
            "test.yaml:1: color: expected one of red, green, got 'blue'");
}

TEST(MappingReader, SuggestsAKnownKeyForATypoAndListsThemOtherwise) {
  EXPECT_EQ(problems_of("hidden_sise: 1\nzzz: 2\nhidden_size: 3\nhidden_size: 4\n",
                        [](MappingReader& reader) { reader.reject_unknown_keys({"hidden_size", "num_layers"}); }),
            "test.yaml:1: unknown key 'hidden_sise'; did you mean 'hidden_size'?\n"
            "test.yaml:2: unknown key 'zzz'; expected one of hidden_size, num_layers\n"
            "test.yaml:4: duplicate key 'hidden_size' (first given on line 3)");
}

TEST(MappingReader, NamesNestedKeysByTheirPath) {
  EXPECT_EQ(problems_of("links:\n  speeed: 1\n  latency: -2\nother: 3\n",
                        [](MappingReader& reader) {
                          auto links = reader.child("links");
                          ASSERT_TRUE(links.has_value());
                          links->reject_unknown_keys({"speed", "latency"});
                          links->require({"speed"});
                          double latency = 0;
                          links->read("latency", latency, NumberRule::non_negative);
                          reader.child("other");
                        }),
            "test.yaml:1: missing required key 'links.speed'\n"
            "test.yaml:2: unknown key 'links.speeed'; did you mean 'links.speed'?\n"
            "test.yaml:3: links.latency: expected a number >= 0, got '-2'\n"
            "test.yaml:4: other: expected a mapping of keys to values, got '3'");
}

TEST(MappingReader, TreatsNullAsAbsentOnlyWhenAsked) {
  Diagnostics diagnostics("test.yaml");
  const MappingReader reader(YAML::Load("n_inner: null\n"), "", diagnostics);
  EXPECT_TRUE(reader.has("n_inner"));
  EXPECT_FALSE(reader.has_value("n_inner"));
}

TEST(Diagnostics, ListsTwentyProblemsThenCountsTheRest) {
  Diagnostics diagnostics("big.yaml");
  for (int line = 25; line >= 1; --line) {
    diagnostics.add(line, "k", "bad");
  }
  const std::string message = error_of([&] { diagnostics.throw_if_any(); });
  EXPECT_EQ(message.substr(0, message.find('\n')), "big.yaml:1: k: bad");
  EXPECT_NE(message.find("big.yaml:20: k: bad\nbig.yaml: ... and 5 more problems"), std::string::npos) << message;
  EXPECT_EQ(message.find("big.yaml:21:"), std::string::npos);
}

}  // namespace distsim::io
