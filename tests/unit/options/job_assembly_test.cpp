#include <gtest/gtest.h>

#include "core/input_error.hpp"
#include "io/spec/spec_resolver.hpp"
#include "options/job_assembly.hpp"

namespace distsim::options {

namespace {

std::string error_of(const JobSettings& settings) {
  try {
    assemble_job(settings, io::spec_resolvers());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// The built-in default job (README "Quick start"): GPT-2 345M on the A40's pcie-a40 nodes of 4
// GPUs, 2M2P4D = 16 GPUs, so 16 / 4 = 4 nodes; micro-batch 4, global batch 64.
TEST(JobAssembly, NothingGivenIsTheDefaultJob) {
  const strategy::JobSpec job = assemble_job(JobSettings{}, io::spec_resolvers());
  EXPECT_EQ(job.model.name, "gpt2-345m");
  EXPECT_EQ(job.cluster.gpu.name, "a40");
  EXPECT_EQ(job.cluster.gpus_per_host, 4);
  EXPECT_EQ(job.cluster.num_hosts, 4);
  EXPECT_EQ(job.strategy.notation(), "2M2P4D");
  EXPECT_EQ(job.strategy.micro_batch_size, 4);
  EXPECT_EQ(job.strategy.global_batch_size, 64);
  EXPECT_EQ(job.strategy.schedule, "1f1b");
}

// tp 2 alone leaves pp = dp = 1 (not the default strategy's 2 and 4): 2 GPUs on one node.
TEST(JobAssembly, OneSizeGivenSetsTheOthersToOne) {
  JobSettings settings;
  settings.set("tp", 2, "--tp");
  const strategy::JobSpec job = assemble_job(settings, io::spec_resolvers());
  EXPECT_EQ(job.strategy.notation(), "2M1P1D");
  EXPECT_EQ(job.cluster.num_hosts, 1);
}

TEST(JobAssembly, RefusesTheNotationWithSizesOrAContextPart) {
  JobSettings both;
  both.set("strategy", std::string("2M2P4D"), "--strategy");
  both.set("dp", 4, "job file 'a.yaml': key dp");
  EXPECT_EQ(error_of(both), "--strategy 2M2P4D and job file 'a.yaml': key dp both given; use one or the other");
  JobSettings context;
  context.set("strategy", std::string("2M2C2P4D"), "--strategy");
  context.set("cp", 4, "--cp");
  EXPECT_EQ(error_of(context),
            "--cp 4 and --strategy 2M2C2P4D (context parallel 2) both given; use one or the other");
}

// A later source's tp drops an earlier source's strategy instead of conflicting with it.
TEST(JobAssembly, FlagsOverAFileDropWhatTheyExclude) {
  JobSettings file;
  file.set("strategy", std::string("1M1P8D"), "job file 'a.yaml': key strategy");
  file.set("global_batch_size", 8, "job file 'a.yaml': key global_batch_size");
  JobSettings flags;
  flags.set("tp", 2, "--tp");
  const JobSettings merged = flags.over(file);
  EXPECT_FALSE(merged.has("strategy"));
  EXPECT_EQ(merged.find("global_batch_size")->origin, "job file 'a.yaml': key global_batch_size");
  EXPECT_EQ(assemble_job(merged, io::spec_resolvers()).strategy.notation(), "2M1P1D");
}

// 2M2P8D needs 32 GPUs; nodes of 6 hold 30 or 36, so no node count fits and none is invented.
TEST(JobAssembly, RefusesAWorldThatDoesNotFillWholeNodes) {
  JobSettings settings;
  settings.set("strategy", std::string("2M2P8D"), "--strategy");
  settings.set("gpus_per_node", 6, "--gpus-per-node");
  EXPECT_EQ(error_of(settings),
            "strategy 2M2P8D uses 32 GPUs, which do not fill whole nodes of 6 GPUs; give nodes (--nodes or key "
            "nodes), gpus_per_node or other parallel sizes");
}

// The fp8 rule names the setting as it was given.
TEST(JobAssembly, ValidationNamesTheFlagOrKey) {
  JobSettings settings;
  settings.set("fp8", true, "job file 'a.yaml': key fp8");
  try {
    assemble_valid_job(settings, io::spec_resolvers());
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "invalid job: job file 'a.yaml': key fp8: gpu 'a40' has no fp8 tensor cores (peak_fp8_tflops 0); "
              "built-in GPUs with fp8: h100-sxm, h200, b200, b300, gb200, gb300");
  }
}

// Every option read back from an assembled job and assembled again gives the same job.
TEST(JobAssembly, DescribedJobAssemblesToItself) {
  JobSettings settings;
  settings.set("gpu", std::string("h100-sxm"), "--gpu");
  settings.set("strategy", std::string("2M2C2P2D"), "--strategy");
  settings.set("recompute", std::string("selective"), "--recompute");
  settings.set("sequence_parallel", true, "--sequence-parallel");
  const strategy::JobSpec job = assemble_job(settings, io::spec_resolvers());
  JobSettings echoed;
  for (const auto& [key, value] : describe_job(job)) echoed.set(key, value, key);
  const auto again = describe_job(assemble_job(echoed, io::spec_resolvers()));
  EXPECT_EQ(again, describe_job(job));
}

}  // namespace distsim::options
