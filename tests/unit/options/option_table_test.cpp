#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

#include "cli/job_flags.hpp"
#include "core/input_error.hpp"
#include "core/name_match.hpp"
#include "io/spec/job_file_reader.hpp"
#include "io/spec/spec_resolver.hpp"
#include "options/job_assembly.hpp"
#include "options/job_option.hpp"

namespace distsim::options {

namespace {

//! A value each option accepts other than its default: built-in names for the names, the paper's
//! notation with a C part for the strategy, 2 for sizes, true for yes/no and the last allowed
//! value of a choice. A new text option without a sample here fails the test.
std::string sample_value(const JobOption& option) {
  static const std::map<std::string, std::string> names{{"model", "bert-large"},
                                                        {"cluster", "dgx-a100"},
                                                        {"gpu", "h100-sxm"},
                                                        {"strategy", "2M2C2P4D"},
                                                        {"moe_imbalance", "1.5"},
                                                        {"pipeline_layout", "Et*4|t*4L"},
                                                        {"slow_ranks", "1:1.5"},
                                                        {"kernel_jitter", "lognormal:0.05"},
                                                        {"stage_gpus", "h100-sxm,a100-80gb"}};
  switch (option.type) {
    case ValueType::positive_integer: return "2";
    case ValueType::boolean: return "true";
    case ValueType::choice: return option.allowed.back();
    case ValueType::positive_number: return "2.5";
    case ValueType::non_negative_number: return "0.5";
    case ValueType::text: break;
  }
  const auto it = names.find(option.key);
  return it == names.end() ? "" : it->second;
}

//! A job file holding `option` with `text`: under its section's mapping when it has one.
std::string job_file_text(const JobOption& option, const std::string& text) {
  if (option.section.empty()) return option.key + ": " + text + "\n";
  return option.section + ":\n  " + option.key + ": " + text + "\n";
}

//! Where a job file names the option, and the line job_file_text writes it on.
std::string key_path(const JobOption& option) {
  return option.section.empty() ? option.key : option.section + "." + option.key;
}
int key_line(const JobOption& option) { return option.section.empty() ? 1 : 2; }

class ScratchFolder {
 public:
  ScratchFolder() : path_(std::filesystem::temp_directory_path() / ("distsim_options_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~ScratchFolder() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    const auto file = path_ / name;
    std::ofstream(file) << text;
    return file.string();
  }

 private:
  std::filesystem::path path_;
};

JobSettings from_flags(const JobOption& option, const std::string& value) {
  CLI::App app;
  cli::JobFlags flags;
  flags.add_to(app);
  std::vector<std::string> arguments{option.flag};
  if (option.type != ValueType::boolean) arguments.push_back(value);
  std::reverse(arguments.begin(), arguments.end());  // CLI11 takes the arguments reversed
  app.parse(arguments);
  return flags.settings();
}

//! The settings an option needs before the echo names it: the bf16 layer counts mean something only
//! under a low-precision format (JobOption::applies).
JobSettings prerequisites(const JobOption& option) {
  JobSettings settings;
  if (option.key == "bf16_layers_at_start" || option.key == "bf16_layers_at_end") {
    settings.set_text("precision", "fp8", "--precision");
  } else if (option.key == "jitter_samples" || option.key == "jitter_seed") {
    // The samples and their seed mean something only under jitter.
    settings.set_text("kernel_jitter", "uniform:0.1", "--kernel-jitter");
  } else if (option.key == "cp_comm_type") {
    // The exchange means something only with context parallelism.
    settings.set("cp", 2, "--cp");
  } else if (option.key == "cp_a2a_size") {
    // The all-to-all level means something only with the hierarchical exchange.
    settings.set("cp", 4, "--cp");
    settings.set_text("cp_comm_type", "a2a+p2p", "--cp-comm-type");
  } else if (option.applies) {
    // A setting that applies to some models only (the experts') is compared on such a model.
    settings.set("model", std::string("mixtral-8x7b"), "test");
  }
  return settings;
}

std::string described(const strategy::JobSpec& job) {
  std::string text;
  for (const auto& [key, value] : describe_job(job)) text += key + "=" + value_text(value) + " ";
  return text;
}

}  // namespace

// Each option parsed from its flag and from its job-file key gives the same setting, and the same
// job once assembled: the table is the one definition both readers use.
TEST(OptionTable, EveryOptionReadsTheSameFromItsFlagAndItsKey) {
  const ScratchFolder folder;
  for (const auto& option : job_options()) {
    SCOPED_TRACE(option.key);
    const std::string value = sample_value(option);
    ASSERT_FALSE(value.empty()) << "no sample value for the text option " << option.key;
    const JobSettings flagged = from_flags(option, value);
    const JobSettings filed = io::read_job_file(folder.write(option.key + ".yaml", job_file_text(option, value)));
    ASSERT_TRUE(flagged.has(option.key));
    ASSERT_TRUE(filed.has(option.key));
    EXPECT_EQ(value_text(flagged.find(option.key)->value), value);
    EXPECT_EQ(value_text(filed.find(option.key)->value), value);
    EXPECT_EQ(flagged.find(option.key)->origin, option.flag);
    EXPECT_EQ(
        filed.find(option.key)->origin,
        "job file '" + folder.write(option.key + ".yaml", job_file_text(option, value)) + "': key " + key_path(option));
    const JobSettings needed = prerequisites(option);
    EXPECT_EQ(described(assemble_job(flagged.over(needed), io::spec_resolvers())),
              described(assemble_job(filed.over(needed), io::spec_resolvers())));
    EXPECT_NE(described(assemble_job(flagged.over(needed), io::spec_resolvers())),
              described(assemble_job(needed, io::spec_resolvers())))
        << "the sample value is the default, so the test would not see the option";
  }
}

// A flag and its key refuse the same values with the same words after the place they name.
TEST(OptionTable, EveryOptionRefusesTheSameFromItsFlagAndItsKey) {
  const ScratchFolder folder;
  for (const auto& option : job_options()) {
    if (option.type == ValueType::boolean || (option.type == ValueType::text && !option.check)) continue;
    SCOPED_TRACE(option.key);
    const std::string bad = option.type == ValueType::positive_integer ? "0" : "nonsense";
    const ParsedValue parsed = parse_value(option, bad);
    ASSERT_FALSE(parsed.ok());
    try {
      from_flags(option, bad);
      ADD_FAILURE() << "the flag took " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), option.flag + ": " + parsed.problem);
    }
    const std::string path = folder.write(option.key + ".yaml", job_file_text(option, bad));
    try {
      io::read_job_file(path);
      ADD_FAILURE() << "the key took " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()),
                path + ":" + std::to_string(key_line(option)) + ": " + key_path(option) + ": " + parsed.problem);
    }
  }
}

// Every key misspelt by one extra letter is refused with the key itself as the suggestion.
TEST(OptionTable, UnknownKeysGetTheClosestKey) {
  const ScratchFolder folder;
  for (const auto& option : job_options()) {
    SCOPED_TRACE(option.key);
    const std::string path = folder.write("typo.yaml", job_file_text(option, "1")
                                                           .replace(job_file_text(option, "1").find(option.key + ":"),
                                                                    option.key.size(), option.key + "x"));
    try {
      io::read_job_file(path);
      ADD_FAILURE();
    } catch (const InputError& e) {
      const std::string place = option.section.empty() ? "" : option.section + ".";
      EXPECT_EQ(std::string(e.what()), path + ":" + std::to_string(key_line(option)) + ": unknown key '" + place +
                                           option.key + "x'; did you mean '" + place + option.key + "'?");
    }
  }
}

TEST(OptionTable, KeysAndFlagsAreUniqueAndFlagsAreTheKeysWithDashes) {
  std::set<std::string> keys;
  for (const auto& option : job_options()) {
    EXPECT_TRUE(keys.insert(option.key).second) << option.key;
    std::string dashed = option.key;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    EXPECT_EQ(option.flag, "--" + dashed);
    EXPECT_FALSE(option.help.empty()) << option.key;
    EXPECT_TRUE(option.apply && option.read) << option.key;
  }
}

// A search changes one job in place and shares its model and cluster among the candidates, which
// holds only while a searched setting sets nothing but the strategy: every value each one offers,
// applied to a dense, an MoE and a latent-attention model, leaves both as they were.
TEST(OptionTable, SearchedOptionsSetTheStrategyOnly) {
  for (const char* model : {"llama-3.1-8b", "mixtral-8x7b", "deepseek-v3"}) {
    JobSettings settings;
    settings.set("model", std::string(model), "test");
    settings.set("nodes", 4, "test");
    const strategy::JobSpec job = assemble_job(settings, io::spec_resolvers());
    std::size_t tried = 0;
    for (const auto& option : job_options()) {
      if (!option.search_values) continue;
      for (const auto& value : option.search_values(job)) {
        strategy::JobSpec changed = job;
        option.apply(value, changed, {});
        EXPECT_TRUE(changed.model == job.model) << model << " " << option.key << "=" << value_text(value);
        EXPECT_TRUE(changed.cluster == job.cluster) << model << " " << option.key << "=" << value_text(value);
        ++tried;
      }
    }
    EXPECT_GT(tried, 20U) << model;
  }
}

// Values match by the one name rule, then the aliases declared beside them (framework names),
// and a value a framework has that distsim does not model is refused with the reason.
TEST(OptionTable, ChoicesMatchByTheNameRuleAndTheirAliases) {
  const auto value_of = [](std::string_view key, std::string_view text) {
    const ParsedValue parsed = parse_value(option(key), text);
    return parsed.ok() ? value_text(parsed.value) : "problem: " + parsed.problem;
  };
  EXPECT_EQ(value_of("precision", "MXFP8"), "mxfp8");
  EXPECT_EQ(value_of("precision", "NV-FP4"), "nvfp4");
  EXPECT_EQ(value_of("precision", "FP8_CS"), "fp8");
  EXPECT_EQ(value_of("precision", "Float8CurrentScaling"), "fp8");
  EXPECT_EQ(value_of("precision", "bf16_with_mxfp8_mixed"), "mxfp8");
  EXPECT_EQ(value_of("sharding", "ZeRO-3"), "zero3");
  EXPECT_EQ(value_of("sharding", "ZeRO Stage 2"), "zero2");
  EXPECT_EQ(value_of("sharding", "FULL_SHARD"), "zero3");
  EXPECT_EQ(value_of("dtype", "bf16-mixed"), "bf16");
  EXPECT_EQ(value_of("dtype", "Float16"), "fp16");
  EXPECT_EQ(value_of("moe_dispatcher", "All-to-All"), "alltoall");
  EXPECT_EQ(value_of("sequence_parallel", "Yes"), "true");
  EXPECT_EQ(value_of("sequence_parallel", "OFF"), "false");
  EXPECT_EQ(value_of("precision", "Float8BlockScaling"),
            "problem: precision 'Float8BlockScaling' (fp8 with 1x128 and 128x128 block scales: DeepSeek-V3's recipe, "
            "TransformerEngine's Float8BlockScaling) is not modelled");
  // Megatron-Core's flex dispatcher runs DeepEP unless its backend flag says otherwise.
  EXPECT_EQ(value_of("moe_dispatcher", "flex"), "deepep");
  EXPECT_EQ(value_of("moe_dispatcher", "Flex/HybridEP"), "hybridep");
  EXPECT_EQ(value_of("precision", "fp9"), "problem: unknown precision 'fp9'; did you mean 'fp8'? (known: bf16, fp8, "
                                          "mxfp8, nvfp4)");
}

// An alias names an allowed value, and no alias or unmodelled value is also an allowed one.
TEST(OptionTable, EveryAliasNamesAnAllowedValue) {
  for (const auto& candidate : job_options()) {
    for (const auto& [alias, value] : candidate.value_aliases) {
      EXPECT_NE(std::find(candidate.allowed.begin(), candidate.allowed.end(), value), candidate.allowed.end())
          << candidate.key << ": " << alias;
      for (const auto& allowed : candidate.allowed) EXPECT_FALSE(same_name(alias, allowed)) << alias;
    }
    for (const auto& [name, why] : candidate.unmodelled_values) {
      EXPECT_FALSE(parse_value(candidate, name).ok()) << candidate.key << ": " << name;
    }
  }
}

}  // namespace distsim::options
