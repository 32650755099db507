#include "io/output/summary_writer.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "tiny_simulation.hpp"

namespace distsim::io {

namespace {

using testing::fixed_costs;
using testing::tiny_job;
using testing::two_stage_job;

void expect_keys(const nlohmann::json& object, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    EXPECT_TRUE(object.contains(key)) << "missing key '" << key << "' in " << object.dump();
  }
}

TEST(SummaryJson, HasEveryRequiredKey) {
  const auto json = summary_json(api::simulate(two_stage_job(), fixed_costs()));
  expect_keys(json, {"job", "strategy", "num_microbatches", "simulated", "iteration_time_s", "throughput_samples_per_s",
                     "tokens_per_s", "tflops_per_gpu", "mfu", "bubble_fraction", "rank_layout", "stages", "events"});
  EXPECT_FALSE(json.contains("devices")) << "the list of ranks is written only on request";
  // The job is echoed as a job file: every key of the option table but the strategy notation,
  // whose sizes come one by one.
  expect_keys(json["job"], {"model",
                            "seq_length",
                            "cluster",
                            "gpu",
                            "gpus_per_node",
                            "tp",
                            "pp",
                            "dp",
                            "cp",
                            "micro_batch_size",
                            "global_batch_size",
                            "schedule",
                            "dtype",
                            "precision",
                            "attention",
                            "virtual_stages",
                            "sequence_parallel",
                            "recompute",
                            "distributed_optimizer",
                            "overlap_grad_reduce",
                            "p2p_scatter_gather",
                            "gradient_bucket_size",
                            "host_time",
                            "nodes"});
  EXPECT_EQ(json["job"].size(), 24u);
  // A named object: a range-for over a member of a temporary would read it after its end.
  const auto with_ranks = summary_json(api::simulate(two_stage_job(), fixed_costs()), RankRecords::every_rank);
  for (const auto& device : with_ranks["devices"]) {
    expect_keys(device,
                {"rank", "node", "stage", "tp", "dp", "busy_compute_s", "busy_comm_s", "idle_s", "host_busy_s"});
  }
  for (const auto& stage : json["stages"]) {
    expect_keys(stage, {"stage", "layers", "busy_compute_s", "busy_comm_s", "idle_s", "host_busy_s"});
    expect_keys(stage["layers"], {"first", "count"});
  }
  expect_keys(json["events"], {"unique", "instances", "profiled", "extrapolated", "analytical", "dedup_ratio"});
  expect_keys(json, {"memory"});
  expect_keys(json["memory"], {"stages", "peak_bytes", "peak_stage", "capacity_bytes", "fits"});
  for (const auto& stage : json["memory"]["stages"]) {
    expect_keys(stage, {"stage", "parameters", "microbatches_in_flight", "weights_bytes", "gradients_bytes",
                        "optimizer_states_bytes", "activations_bytes", "pipeline_buffers_bytes", "overhead_bytes",
                        "total_bytes", "fits"});
  }
}

TEST(SummaryJson, EchoesBuiltInEntriesByName) {
  // gpt2-345m on the A40 nodes as the catalog has them: names reproduce them, so names are echoed.
  auto job = two_stage_job();
  job.model = catalog::find_model("gpt2-345m");
  job.cluster = catalog::find_cluster("pcie-a40");
  job.cluster.num_hosts = 1;
  job.cluster.gpus_per_host = 2;
  const auto echo = job_settings_json(job);
  EXPECT_EQ(echo["model"], "gpt2-345m");
  EXPECT_EQ(echo["gpu"], "a40");
  EXPECT_EQ(echo["cluster"], "pcie-a40");
  EXPECT_EQ(echo["gpus_per_node"], 2);
  // One edited field (a longer sequence is the job's own setting, so it is not an edit).
  job.model.seq_length = 2048;
  EXPECT_EQ(job_settings_json(job)["model"], "gpt2-345m");
  job.model.num_layers = 12;
  EXPECT_EQ(job_settings_json(job)["model"]["num_layers"], 12);
}

TEST(SummaryJson, DescribesTheJob) {
  const auto json = summary_json(api::simulate(two_stage_job(), fixed_costs()));
  const auto& job = json["job"];
  // The test model and GPU are in no catalog, so their names would not rerun the job: each is
  // echoed as its whole mapping (the fixture's 2 layers of width 64, the GPU's 40 GB).
  EXPECT_EQ(job["model"]["name"], "tiny");
  EXPECT_EQ(job["model"]["num_layers"], 2);
  EXPECT_EQ(job["model"]["hidden_size"], 64);
  EXPECT_EQ(job["gpu"]["name"], "test-gpu");
  EXPECT_EQ(job["gpu"]["memory_gb"], 40.0);
  EXPECT_EQ(job["pp"], 2);
  EXPECT_EQ(job["schedule"], "gpipe");
  EXPECT_EQ(job["dtype"], "bf16");
  EXPECT_EQ(json["strategy"], "1M2P1D");
  EXPECT_EQ(json["num_microbatches"], 2);
  EXPECT_EQ(json["simulated"], "symmetric: one rank per stage");
}

// The timeline drawn in tiny_simulation.hpp: 19 µs; stage 0 computes 13 µs and waits 1.5 µs on
// exposed transfers, stage 1 computes 9 µs with 1.5 µs exposed.
TEST(SummaryJson, ReportsTheHandComputedTimeline) {
  const auto json = summary_json(api::simulate(two_stage_job(), fixed_costs()));
  EXPECT_DOUBLE_EQ(json["iteration_time_s"].get<double>(), 19e-6);
  EXPECT_DOUBLE_EQ(json["throughput_samples_per_s"].get<double>(), 2 / 19e-6);
  EXPECT_DOUBLE_EQ(json["tokens_per_s"].get<double>(), 64 / 19e-6);
  EXPECT_DOUBLE_EQ(json["bubble_fraction"].get<double>(), (4500.0 + 8500.0) / 2 / 19000.0);
  const auto& stages = json["stages"];
  ASSERT_EQ(stages.size(), 2U);
  EXPECT_EQ(stages[0]["layers"]["first"], 0);
  EXPECT_EQ(stages[1]["layers"]["first"], 1);
  EXPECT_EQ(stages[1]["layers"]["count"], 1);
  EXPECT_DOUBLE_EQ(stages[0]["busy_compute_s"].get<double>(), 13e-6);
  EXPECT_DOUBLE_EQ(stages[0]["busy_comm_s"].get<double>(), 1.5e-6);
  EXPECT_DOUBLE_EQ(stages[0]["idle_s"].get<double>(), 4.5e-6);
  EXPECT_DOUBLE_EQ(stages[1]["busy_compute_s"].get<double>(), 9e-6);
  EXPECT_DOUBLE_EQ(stages[1]["busy_comm_s"].get<double>(), 1.5e-6);
  EXPECT_DOUBLE_EQ(stages[1]["idle_s"].get<double>(), 8.5e-6);
  const auto& events = json["events"];
  EXPECT_EQ(events["profiled"], events["unique"]);
  EXPECT_EQ(events["analytical"], 0);
  EXPECT_DOUBLE_EQ(events["dedup_ratio"].get<double>(),
                   events["instances"].get<double>() / events["unique"].get<double>());
}

// 2M2P2D on two nodes of four GPUs: tp varies fastest, then dp, then pp (cp is 1), so rank 7 =
// tp 1 + 2·(cp 0 + 1·(dp 1 + 2·pp 1)) and sits on node 7 / 4 = 1. The layout says just that.
TEST(SummaryJson, DescribesTheRankLayoutInsteadOfListingRanks) {
  const auto json = summary_json(api::simulate(tiny_job(2, 2, 2, 4, 2, 4), fixed_costs()));
  EXPECT_EQ(json["rank_layout"], nlohmann::json::parse(R"({"fastest_first": [{"dim": "tp", "size": 2},
      {"dim": "cp", "size": 1}, {"dim": "dp", "size": 2}, {"dim": "pp", "size": 2}], "gpus_per_node": 4})"));
}

TEST(SummaryJson, ListsEveryRankWithItsStageDeviceOnRequest) {
  const auto simulation = api::simulate(tiny_job(2, 2, 2, 4, 2, 4), fixed_costs());
  const auto json = summary_json(simulation, RankRecords::every_rank);
  const auto& devices = json["devices"];
  ASSERT_EQ(devices.size(), 8U);
  // Rank 7 is tp 1, dp 1 of stage 1, on the second node.
  EXPECT_EQ(devices[7]["rank"], 7);
  EXPECT_EQ(devices[7]["node"], 1);
  EXPECT_EQ(devices[7]["stage"], 1);
  EXPECT_EQ(devices[7]["tp"], 1);
  EXPECT_EQ(devices[7]["dp"], 1);
  EXPECT_EQ(devices[7]["busy_compute_s"], json["stages"][1]["busy_compute_s"]);
  EXPECT_EQ(devices[2]["idle_s"], json["stages"][0]["idle_s"]);
}

TEST(SummaryText, ShowsTheMetricsStagesAndEvents) {
  const auto simulation = api::simulate(two_stage_job(), fixed_costs());
  const std::string text = summary_text(simulation);
  EXPECT_NE(text.find("job: tiny on 1 x 2 test-gpu (test-cluster), 1M2P1D"), std::string::npos) << text;
  EXPECT_NE(text.find("iteration time: 0.019 ms\n"), std::string::npos) << text;
  EXPECT_NE(text.find("bubble: 34.21 %\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n    0        0-0       0.013 ( 68.4 %)"), std::string::npos) << text;
  EXPECT_NE(text.find(events_line(simulation.summary.events)), std::string::npos) << text;
}

// The tiny model (tiny_simulation.hpp) on 1M2P1D, gpipe, two micro-batches of one sequence,
// bf16 (docs/memory_model.md). A layer has 12h² + 13h = 49,984 parameters (h = 64).
//   stage 0: layer + embedding 128·64 + 32·64 = 60,224 parameters; ·18 = 1,084,032 bytes of state;
//            activations 2 in flight · (34·s·b·h = 34·2048 + token ids 8·32 + mask 2048) = 143,872;
//            buffers 4 · 2048·2 = 16,384; overhead 2^30 + 0.05·160,256 = 1,073,741,824 + 8,013.
//   stage 1: layer + final norm 128 + tied table copy 8,192 = 58,304 parameters; ·18 = 1,049,472;
//            activations 2 · (69,632 + norm tensors 4·2048 + fp32 softmax 4·32·128) = 188,416;
//            buffers 16,384; overhead 2^30 + 0.05·204,800 = 1,073,752,064; total 1,075,006,336.
TEST(SummaryJson, ReportsTheHandComputedMemory) {
  const auto memory = summary_json(api::simulate(two_stage_job(), fixed_costs()))["memory"];
  const auto& stages = memory["stages"];
  ASSERT_EQ(stages.size(), 2U);
  EXPECT_EQ(stages[0]["parameters"], 60'224);
  EXPECT_EQ(stages[0]["microbatches_in_flight"], 2.0);
  EXPECT_EQ(stages[0]["weights_bytes"], 120'448);
  EXPECT_EQ(stages[0]["gradients_bytes"], 240'896);
  EXPECT_EQ(stages[0]["optimizer_states_bytes"], 722'688);
  EXPECT_EQ(stages[0]["activations_bytes"], 143'872);
  EXPECT_EQ(stages[0]["pipeline_buffers_bytes"], 16'384);
  EXPECT_EQ(stages[0]["overhead_bytes"], 1'073'749'837);
  EXPECT_EQ(stages[0]["total_bytes"], 1'074'994'125);
  EXPECT_EQ(stages[1]["parameters"], 58'304);
  EXPECT_EQ(stages[1]["activations_bytes"], 188'416);
  EXPECT_EQ(stages[1]["total_bytes"], 1'075'006'336);
  EXPECT_EQ(memory["peak_stage"], 1);
  EXPECT_EQ(memory["peak_bytes"], 1'075'006'336);
  EXPECT_EQ(memory["capacity_bytes"], 40LL << 30);
  EXPECT_EQ(memory["fits"], true);
  EXPECT_EQ(stages[1]["fits"], true);
}

TEST(SummaryText, ShowsPeakMemoryPerStage) {
  const std::string text = summary_text(api::simulate(two_stage_job(), fixed_costs()));
  EXPECT_NE(text.find("memory per GPU (GiB):\nstage  in flight   weights"), std::string::npos) << text;
  EXPECT_NE(text.find("\n    1       2.00      0.00"), std::string::npos) << text;
  EXPECT_NE(text.find("peak memory: 1.0 GiB on stage 1, the test-gpu has 40 GiB: fits\n"), std::string::npos) << text;
}

// With 1 GiB both stages' 1.0012 GiB (see ReportsTheHandComputedMemory) are too much; the
// timeline is simulated all the same.
TEST(SummaryText, SaysOutOfMemoryAndStillSimulates) {
  auto job = two_stage_job();
  job.cluster.gpu.memory_gb = 1;
  const auto simulation = api::simulate(job, fixed_costs());
  const std::string text = summary_text(simulation);
  EXPECT_NE(text.find("OUT OF MEMORY: stage 1 needs 1.0 GiB, the test-gpu has 1 GiB (2 of 2 stages do not fit)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("peak memory:"), std::string::npos) << text;
  EXPECT_NE(text.find("iteration time: 0.019 ms\n"), std::string::npos) << text;
  EXPECT_EQ(summary_json(simulation)["memory"]["fits"], false);
}

TEST(MemoryText, NamesTheStageTheNeedAndTheGpu) {
  memory::MemoryEstimate estimate;
  memory::StageMemory stage;
  stage.weights = std::llround(93.1 * (1LL << 30));
  stage.capacity = 40LL << 30;
  stage.gpu = "a100-40gb";
  estimate.stages.push_back(stage);
  estimate.capacity = stage.capacity;
  const std::string text = memory_text(estimate);
  EXPECT_NE(text.find("\nOUT OF MEMORY: stage 0 needs 93.1 GiB, the a100-40gb has 40 GiB\n"), std::string::npos)
      << text;
}

TEST(EventsLine, GroupsThousandsAndShowsTheDedupRatio) {
  analysis::EventCounts counts;
  counts.unique = 123;
  counts.instances = 456'789;
  counts.analytical = 123;
  EXPECT_EQ(events_line(counts),
            "events: 123 unique, 456,789 instances (dedup 3714x): 0 profiled, 0 extrapolated, 123 analytical");
  counts.instances = 246;
  EXPECT_EQ(events_line(counts),
            "events: 123 unique, 246 instances (dedup 2.0x): 0 profiled, 0 extrapolated, 123 analytical");
}

// fp8 GEMMs are named with the precision, and MFU stays relative to the 100 TFLOP/s bf16 peak
// (not the test GPU's 200 fp8): the model FLOPs are the same as in bf16.
TEST(SummaryText, SaysTheGemmsRunInFp8AndKeepsMfuOnTheBf16Peak) {
  strategy::JobSpec job = two_stage_job();
  job.strategy.gemm_format = distsim::strategy::GemmFormat::fp8;
  const auto simulation = api::simulate(job, fixed_costs());
  const std::string text = summary_text(simulation);
  EXPECT_NE(text.find(", gpipe, bf16, fp8 GEMMs; "), std::string::npos) << text;
  EXPECT_NE(text.find(" % (of the 100 TFLOP/s bf16 peak)\n"), std::string::npos) << text;
  const auto json = summary_json(simulation);
  EXPECT_EQ(json["job"]["dtype"], "bf16");
  EXPECT_EQ(json["job"]["precision"], "fp8");  // --fp8 is echoed as the precision it names
  EXPECT_DOUBLE_EQ(json["mfu_peak_tflops"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(json["mfu"].get<double>(), json["tflops_per_gpu"].get<double>() / 100.0);
}

}  // namespace

}  // namespace distsim::io
