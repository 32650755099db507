#include "profile_db/profile_file.hpp"

#include <gtest/gtest.h>

#include "core/input_error.hpp"
#include "profile_db_test_support.hpp"

namespace distsim::profile_db {

namespace {

using profile::ProfileRecord;
using testing::a40_file;
using testing::record;

const char* kGoodFile = R"({"format": "distsim-profile", "version": 1, "hardware": "a40",
  "profiler": "distsim-profile 0.1.0", "library": "torch 1.13.1+gloo",
  "measured_at": "2026-11-22T21:30:00Z", "device_seconds": 12.5,
  "events": [{"key": "gemm m=8 n=8 k=8 bf16", "median_us": 10.5, "mean_us": 10.7, "min_us": 10.1,
              "max_us": 12.0, "stdev_us": 0.3, "samples": 20},
             {"key": "layernorm rows=8 cols=8 bf16", "median_us": 2, "mean_us": 2, "min_us": 2,
              "max_us": 2, "stdev_us": 0, "samples": 1, "library": "torch 2.1"}]})";

std::string error_of(const std::string& text) {
  try {
    parse_profile_file(text, "p.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

//! kGoodFile with `from` replaced by `to` once.
std::string good_file_with(const std::string& from, const std::string& to) {
  std::string text = kGoodFile;
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace

TEST(ProfileFile, ReadsTopLevelAndEvents) {
  const ProfileFile file = parse_profile_file(kGoodFile, "p.json");
  EXPECT_EQ(file.hardware, "a40");
  EXPECT_EQ(file.device_seconds, 12.5);
  ASSERT_EQ(file.records.size(), 2u);
  ProfileRecord expected = record("gemm m=8 n=8 k=8 bf16", 10.5);
  expected.mean_us = 10.7;
  expected.min_us = 10.1;
  expected.max_us = 12.0;
  expected.stdev_us = 0.3;
  expected.samples = 20;
  EXPECT_EQ(file.records[0], expected);
  EXPECT_EQ(file.records[1].library, "torch 2.1");  // the event's own value wins
  EXPECT_EQ(file.records[1].profiler, "distsim-profile 0.1.0");
}

TEST(ProfileFile, RefusesWrongFormatAndVersion) {
  EXPECT_EQ(error_of(good_file_with("\"distsim-profile\", \"version\"", "\"other\", \"version\"")),
            "profile 'p.json': format must be 'distsim-profile', got 'other'");
  EXPECT_EQ(error_of(good_file_with("\"version\": 1", "\"version\": 2")),
            "profile 'p.json': version 2 is not supported; this distsim reads version 1");
  EXPECT_EQ(error_of("[1, 2]"), "profile 'p.json': expected a JSON object at the top, got a list");
  EXPECT_NE(error_of("{\"format\": ").find("profile 'p.json': not valid JSON ("), std::string::npos);
}

TEST(ProfileFile, NamesTheRecordIndexAndKeyOfAStructuralError) {
  EXPECT_EQ(error_of(good_file_with("\"samples\": 20", "\"samples\": 2.5")),
            "profile 'p.json': events[0] ('gemm m=8 n=8 k=8 bf16'): field 'samples' must be an integer, got a number 2.5");
  EXPECT_EQ(error_of(good_file_with(", \"stdev_us\": 0, \"samples\": 1", ", \"samples\": 1")),
            "profile 'p.json': events[1] ('layernorm rows=8 cols=8 bf16'): missing field 'stdev_us'");
  EXPECT_EQ(error_of(good_file_with("\"median_us\": 2,", "\"median\": 2,")),
            "profile 'p.json': events[1] ('layernorm rows=8 cols=8 bf16'): unknown field 'median'; did you mean "
            "'median_us'? (known: key, median_us, mean_us, min_us, max_us, stdev_us, samples, profiler, library, "
            "measured_at)");
  EXPECT_EQ(error_of(good_file_with("\"key\": \"gemm m=8 n=8 k=8 bf16\"", "\"key\": 7")),
            "profile 'p.json': events[0]: field 'key' must be a string, got an integer 7");
}

TEST(ProfileFile, RefusesABadTopLevel) {
  EXPECT_EQ(error_of(good_file_with("\"hardware\": \"a40\"", "\"hardware\": \"\"")),
            "profile 'p.json': hardware must be a GPU name without spaces or quotes, like 'a40', got ''");
  EXPECT_EQ(error_of(good_file_with("\"device_seconds\": 12.5", "\"device_seconds\": -1")),
            "profile 'p.json': device_seconds must not be negative, got -1");
  EXPECT_EQ(error_of(good_file_with("\"device_seconds\": 12.5,", "")),
            "profile 'p.json': missing field 'device_seconds'");
}

TEST(ProfileFile, WritesWhatItReads) {
  ProfileRecord older = record("gemm m=1 n=2 k=3 bf16", 4.25);
  older.measured_at = "2025-01-01T00:00:00Z";
  const ProfileFile file = a40_file({older, record("all_reduce bytes=64 group=2 intra", 7)});
  const auto json = profile_file_json(file);
  EXPECT_EQ(json["events"][0]["measured_at"], "2025-01-01T00:00:00Z");
  EXPECT_FALSE(json["events"][1].contains("measured_at"));  // same as the top level
  const ProfileFile again = parse_profile_file(json.dump(2), "again.json");
  EXPECT_EQ(again.records, file.records);
  EXPECT_EQ(again.device_seconds, 12.5);
}

}  // namespace distsim::profile_db
