#include "io/output/goodput_writer.hpp"

#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "core/plain_text.hpp"
#include "core/sim_time.hpp"
#include "strategy/training_run.hpp"

namespace distsim::io {

namespace {

nlohmann::json failure_rates_json(const goodput::GoodputEstimate& e) {
  nlohmann::json rates = nlohmann::json::object();
  for (const auto& component : strategy::failure_components()) {
    rates[component.name] = e.failure_rates_per_hour[static_cast<std::size_t>(component.component)];
  }
  return rates;
}

nlohmann::json time_to_train_json(const goodput::TimeToTrain& time) {
  nlohmann::json json = {{"tokens", time.tokens},
                         {"healthy_s", time.healthy_s},
                         {"expected_s", time.expected_s},
                         {"gpu_hours", time.gpu_hours}};
  if (time.cost) json["cost"] = *time.cost;
  return json;
}

std::string percent(double share) { return fmt::format("{:.2f} %", share * 100); }

//! "2.84 s", "10.0 min", "3.09 h", "52.3 days": a duration in the unit that reads best.
std::string duration(double seconds) {
  if (!std::isfinite(seconds)) return "unbounded";
  if (seconds < 120) return fmt::format("{:.3g} s", seconds);
  if (seconds < 2 * kSecondsPerHour) return fmt::format("{:.3g} min", seconds / 60);
  if (seconds < 2 * kSecondsPerDay) return fmt::format("{:.3g} h", seconds / kSecondsPerHour);
  return fmt::format("{:.3g} days", seconds / kSecondsPerDay);
}

void append_failures(std::string& text, const goodput::GoodputEstimate& e) {
  auto out = std::back_inserter(text);
  if (std::isfinite(e.mtbf_s)) {
    fmt::format_to(out, "  failures: {:.3g} an hour over {} GPUs in {} hosts, one every {}", e.failures_per_hour,
                   digits_grouped(e.gpus), digits_grouped(e.hosts), duration(e.mtbf_s));
  } else {
    fmt::format_to(out, "  failures: none expected over {} GPUs in {} hosts", digits_grouped(e.gpus),
                   digits_grouped(e.hosts));
  }
  std::string rates;
  for (const auto& component : strategy::failure_components()) {
    rates += fmt::format("{}{} {:.3g}", rates.empty() ? "" : ", ", component.name,
                         e.failure_rates_per_hour[static_cast<std::size_t>(component.component)]);
  }
  fmt::format_to(out, " (per unit-hour: {})\n", rates);
}

void append_checkpoint(std::string& text, const goodput::GoodputEstimate& e) {
  auto out = std::back_inserter(text);
  fmt::format_to(out, "  checkpoint: {:.4g} GB written in {} at {:.4g} GB/s; {} save stops training {}\n",
                 static_cast<double>(e.checkpoint_bytes) / 1e9, duration(e.write_s), e.storage_bytes_per_s / 1e9,
                 to_string(e.save), duration(e.blocking_s));
  if (e.interval_iterations > 0) {
    fmt::format_to(out, "  interval: every {} iterations ({}{}); Young's optimum {}, Daly's {}\n",
                   digits_grouped(e.interval_iterations), duration(e.interval_s), e.interval_given ? ", given" : "",
                   duration(e.young_s), duration(e.daly_s));
  } else {
    text += "  interval: none (no failure expected: Young's and Daly's optima are unbounded)\n";
  }
  if (!std::isfinite(e.mtbf_s)) return;
  fmt::format_to(out, "  per failure: {} of work redone and a restart of {} ({} re-initialising, {} reloading)\n",
                 duration(e.lost_work_per_failure_s), duration(e.restart_s), duration(e.reinit_s),
                 duration(e.reload_s));
}

void append_time_to_train(std::string& text, const goodput::GoodputEstimate& e) {
  auto out = std::back_inserter(text);
  if (e.time_to_train) {
    const auto& time = *e.time_to_train;
    fmt::format_to(out, "  time to train {:g} tokens: {} expected ({} healthy), {:.4g} GPU-hours", time.tokens,
                   duration(time.expected_s), duration(time.healthy_s), time.gpu_hours);
    if (time.cost) fmt::format_to(out, ", cost {:.4g}", *time.cost);
    text += '\n';
  } else if (e.cost_per_million_tokens) {
    fmt::format_to(out, "  cost per million tokens: {:.4g}\n", *e.cost_per_million_tokens);
  }
}

}  // namespace

nlohmann::json goodput_json(const goodput::GoodputEstimate& e) {
  nlohmann::json json = {{"ettr", e.shares.training},
                         {"goodput_tokens_per_s", e.goodput_tokens_per_s},
                         {"shares",
                          {{"training", e.shares.training},
                           {"checkpoints", e.shares.checkpoints},
                           {"redone_work", e.shares.redone},
                           {"restarts", e.shares.restarts}}},
                         {"failures",
                          {{"rates_per_unit_hour", failure_rates_json(e)},
                           {"gpus", e.gpus},
                           {"hosts", e.hosts},
                           {"per_hour", e.failures_per_hour},
                           {"mtbf_s", e.mtbf_s}}},
                         {"checkpoint",
                          {{"bytes", e.checkpoint_bytes},
                           {"storage_bytes_per_s", e.storage_bytes_per_s},
                           {"write_s", e.write_s},
                           {"save", to_string(e.save)},
                           {"staging_s", e.staging_s},
                           {"blocking_s", e.blocking_s},
                           {"interval_iterations", e.interval_iterations},
                           {"interval_s", e.interval_s},
                           {"interval_given", e.interval_given},
                           {"young_interval_s", e.young_s},
                           {"daly_interval_s", e.daly_s}}},
                         {"per_failure",
                          {{"lost_work_s", e.lost_work_per_failure_s},
                           {"restart_s", e.restart_s},
                           {"reinit_s", e.reinit_s},
                           {"reload_s", e.reload_s}}}};
  if (e.time_to_train) json["time_to_train"] = time_to_train_json(*e.time_to_train);
  if (e.cost_per_million_tokens) json["cost_per_million_tokens"] = *e.cost_per_million_tokens;
  json["assumptions"] = e.assumptions;
  return json;
}

std::string goodput_text(const goodput::GoodputEstimate& e) {
  std::string text = "goodput (docs/goodput.md):\n";
  auto out = std::back_inserter(text);
  append_failures(text, e);
  append_checkpoint(text, e);
  fmt::format_to(out, "  ETTR: {} of the wall time trains (checkpoints {}, redone work {}, restarts {})\n",
                 percent(e.shares.training), percent(e.shares.checkpoints), percent(e.shares.redone),
                 percent(e.shares.restarts));
  fmt::format_to(out, "  goodput: {:.0f} tokens/s\n", e.goodput_tokens_per_s);
  append_time_to_train(text, e);
  for (const auto& assumption : e.assumptions) fmt::format_to(out, "  assumed: {}\n", assumption);
  return text;
}

}  // namespace distsim::io
