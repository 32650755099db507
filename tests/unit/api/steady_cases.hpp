#pragma once

#include <string>
#include <vector>

#include "pipeline_test_jobs.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::api {

//! Jobs whose pipelines reach a steady state (or, for GPipe and DualPipe, do not), for every
//! schedule and feature that shapes one: the tests that compare a steady-state run with simulating
//! every task run them all.
struct SteadyCase {
  std::string name;
  strategy::JobSpec job;
  bool all_ranks = false;
};

inline std::vector<SteadyCase> steady_cases() {
  std::vector<SteadyCase> cases;
  const auto add = [&](const std::string& name, const strategy::JobSpec& job, bool all_ranks = false) {
    cases.push_back({name, job, all_ranks});
  };
  add("gpt2 1f1b pp2", make_job("gpt2-345m", "pcie-a40", 4, 2, 2, 4, 32, "1f1b"));
  add("gpt2 1f1b pp4 all ranks", make_job("gpt2-345m", "pcie-a40", 4, 2, 4, 2, 40, "1f1b"), true);
  add("gpt2 1f1b pp8 dp over the network", make_job("gpt2-345m", "pcie-a40", 8, 1, 8, 4, 64, "1f1b"));
  auto sequence_parallel = make_job("llama-3.1-8b", "dgx-h100", 4, 4, 4, 2, 48, "1f1b");
  sequence_parallel.strategy.sequence_parallel = true;
  sequence_parallel.strategy.distributed_optimizer = true;
  add("llama 8b tp4 sp pp4 zero-1", sequence_parallel);
  auto recompute = make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 36, "1f1b");
  recompute.strategy.recompute = strategy::Recompute::full;
  add("gpt2 full recompute", recompute);
  auto interleaved = make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 96, "interleaved");
  interleaved.strategy.virtual_stages = 2;
  add("gpt2 interleaved pp4 v2", interleaved);
  // The long zero-bubble jobs and DualPipeV run in part only without the host thread: with it,
  // their gpt2 timelines do not repeat within the runs the plan tries, and they are simulated
  // whole (which the equality tests check all the same). The other jobs keep the host modelled.
  const auto device_only = [](strategy::JobSpec job) {
    job.strategy.host_time = strategy::HostTime::none;
    return job;
  };
  add("gpt2 zb-h1", make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 40, "zb-h1"));
  add("gpt2 zb-h1, long", device_only(make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 120, "zb-h1")));
  add("gpt2 zb-h2", make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 48, "zb-h2"));
  add("gpt2 zb-h2, long", device_only(make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 128, "zb-h2")));
  auto zbv = make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 64, "zbv");
  zbv.strategy.virtual_stages = 2;
  add("gpt2 zbv", zbv);
  zbv.strategy.global_batch_size *= 2;
  add("gpt2 zbv, long", zbv);
  auto dualpipev = make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 64, "dualpipev");
  dualpipev.strategy.virtual_stages = 2;
  add("gpt2 dualpipev", device_only(dualpipev));
  auto dualpipe = make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 64, "dualpipe");
  dualpipe.strategy.virtual_stages = 2;
  add("gpt2 dualpipe", dualpipe);
  add("gpt2 gpipe", make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 32, "gpipe"));
  auto context = make_job("llama-3.1-8b", "dgx-h100", 4, 2, 4, 1, 48, "1f1b");
  context.strategy.context_parallel = 4;
  context.model.seq_length = 16384;
  add("llama 8b cp4", context);
  auto experts = make_job("mixtral-8x7b", "dgx-h100", 4, 1, 4, 8, 40, "1f1b");
  experts.strategy.expert_parallel = 8;
  add("mixtral ep8 pp4", experts);
  add("gpt3 175b on 1024 a100", make_job("gpt3-175b", "dgx-a100", 128, 8, 16, 8, 192, "1f1b"));
  auto deepseek = make_job("deepseek-v3", "dgx-h100", 256, 1, 16, 128, 120, "1f1b");
  deepseek.strategy.expert_parallel = 64;
  deepseek.strategy.distributed_optimizer = true;
  add("deepseek-v3 on 2048 h100, ep64", deepseek);
  return cases;
}

}  // namespace distsim::api
