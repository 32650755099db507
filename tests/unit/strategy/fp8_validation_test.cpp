#include <gtest/gtest.h>

#include "strategy/job_spec.hpp"
#include "validation_test_jobs.hpp"

namespace distsim::strategy {

namespace {

// GPT-2 345M's shape on one node of 8 GPUs (1M1P8D) that has fp8 tensor cores.
JobSpec fp8_job() {
  JobSpec job;
  job.model = gpt2_345m_shape();
  job.cluster.gpu.name = "hopper";
  job.cluster.gpu.peak_fp8_tflops = 1978.9;
  job.cluster.num_hosts = 1;
  job.cluster.gpus_per_host = 8;
  job.strategy.data_parallel = 8;
  job.strategy.global_batch_size = 8;
  job.strategy.gemm_format = distsim::strategy::GemmFormat::fp8;
  return job;
}

}  // namespace

TEST(ValidateFp8Gemms, AcceptsBf16OnAGpuWithFp8TensorCores) { EXPECT_EQ(error_of(fp8_job()), ""); }

TEST(ValidateFp8Gemms, NeedsFp8TensorCores) {
  JobSpec job = fp8_job();
  job.cluster.gpu.name = "ampere";
  job.cluster.gpu.peak_fp8_tflops = 0;
  // The built-in GPUs with peak_fp8_tflops > 0 (hardware.md §1: Hopper and Blackwell).
  EXPECT_EQ(error_of(job),
            "invalid job: precision: gpu 'ampere' has no fp8 tensor cores (peak_fp8_tflops 0); built-in GPUs with fp8: "
            "h100-sxm, h200, b200, b300, gb200, gb300");
}

TEST(ValidateFp8Gemms, NeedsBf16Training) {
  JobSpec job = fp8_job();
  job.strategy.dtype = Dtype::fp16;
  EXPECT_EQ(error_of(job),
            "invalid job: precision: fp8 GEMMs run inside bf16 training (TransformerEngine), got dtype 'fp16'");
}

TEST(ValidateFp8Gemms, NamesTheSettingAsTheUserGaveIt) {
  JobSpec job = fp8_job();
  job.strategy.dtype = Dtype::fp16;
  try {
    schedule::validate_job(job, {{"fp8", "job file 'a.yaml': key fp8"}});
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "invalid job: job file 'a.yaml': key fp8: fp8 GEMMs run inside bf16 training (TransformerEngine), "
                 "got dtype 'fp16'");
  }
}

TEST(ValidateFp8Gemms, IgnoresTheGpuWithoutFp8Gemms) {
  JobSpec job = fp8_job();
  job.strategy.gemm_format = distsim::strategy::GemmFormat::none;
  job.cluster.gpu.peak_fp8_tflops = 0;
  EXPECT_EQ(error_of(job), "");
}

}  // namespace distsim::strategy
