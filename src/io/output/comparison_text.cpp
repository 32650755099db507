#include "io/output/comparison_text.hpp"

#include <cstdlib>
#include <iterator>

#include <fmt/format.h>

namespace distsim::compare {

namespace {

using Out = std::back_insert_iterator<std::string>;

//! Exact microseconds from nanoseconds, with the sign in front of the whole number.
std::string microseconds(SimTime ns) {
  const SimTime magnitude = std::llabs(ns);
  return fmt::format("{}{}.{:03}", ns < 0 ? "-" : "", magnitude / 1000, magnitude % 1000);
}

//! "1 rank", "4 ranks".
std::string count_of(std::size_t count, std::string_view singular, std::string_view plural) {
  return fmt::format("{} {}", count, count == 1 ? singular : plural);
}

std::string percent(double fraction) { return fmt::format("{:.2f}", fraction * 100); }

std::string percent_of(SimTime ns, SimTime iteration) {
  return percent(static_cast<double>(ns) / static_cast<double>(iteration));
}

std::string file_list(const std::vector<std::string>& files) {
  std::string text;
  for (const auto& file : files) {
    text += (text.empty() ? "" : ", ") + file;
  }
  return text;
}

void write_inputs(Out out, const Timeline& predicted, const Timeline& measured, const Comparison& comparison) {
  fmt::format_to(out, "predicted: {} ({}, {}, {} in the trace)\n", file_list(predicted.files), predicted.format,
                 predicted.job.notation(), count_of(predicted.ranks.size(), "rank", "ranks"));
  fmt::format_to(out, "measured: {} ({}, {})\n", file_list(measured.files), measured.format,
                 count_of(measured.ranks.size(), "rank", "ranks"));
  fmt::format_to(out, "rank mapping: {}\n\n", rank_mapping_description(comparison.mapping.kind));
}

void write_batch(Out out, const BatchTimeError& batch) {
  fmt::format_to(out, "batch time: predicted {} us, measured {} us, error {} %\n\n", microseconds(batch.predicted),
                 microseconds(batch.measured), percent(batch.error));
}

void write_activity(Out out, const ActivityErrors& activity) {
  fmt::format_to(out,
                 "activity error per rank ({}; mean |start| and |end| deviation of matched activities, % of the "
                 "measured iteration):\n",
                 granularity_name(activity.granularity));
  fmt::format_to(out, "  {:>4}  {:>9}  {:>7}  {:>9}  {:>9}  {:>7}  {:>7}  {:>7}\n", "rank", "predicted", "matched",
                 "pred only", "meas only", "start %", "end %", "error %");
  for (const auto& rank : activity.ranks) {
    fmt::format_to(out, "  {:>4}  {:>9}  {:>7}  {:>9}  {:>9}  ", rank.measured_rank, rank.predicted_rank, rank.matched,
                   rank.predicted_only, rank.measured_only);
    if (rank.matched == 0) {
      fmt::format_to(out, "no matching activities\n");
    } else {
      fmt::format_to(out, "{:>7}  {:>7}  {:>7}\n", percent(rank.start_error), percent(rank.end_error),
                     percent(rank.error));
    }
  }
  out = '\n';
}

void write_stage_rows(Out out, const StageErrors& stages, SimTime iteration) {
  fmt::format_to(out, "  {:>5}  {:>4}  {:>5}  {:>12}  {:>12}  {:>12}  {:>12}  {:>10}  {:>10}  {:>7}  {:>7}\n", "stage",
                 "mb", "phase", "pred start", "pred end", "meas start", "meas end", "start err", "end err", "start %",
                 "end %");
  for (const auto& row : stages.rows) {
    fmt::format_to(out, "  {:>5}  {:>4}  {:>5}  {:>12}  {:>12}  {:>12}  {:>12}  {:>10}  {:>10}  {:>7}  {:>7}\n",
                   row.stage, row.microbatch, events::phase_name(row.phase), microseconds(row.predicted_start),
                   microseconds(row.predicted_end), microseconds(row.measured_start), microseconds(row.measured_end),
                   microseconds(row.start_error()), microseconds(row.end_error()),
                   percent_of(row.start_error(), iteration), percent_of(row.end_error(), iteration));
  }
  if (stages.predicted_only > 0 || stages.measured_only > 0) {
    fmt::format_to(out, "  passes without a counterpart: {} predicted only, {} measured only\n", stages.predicted_only,
                   stages.measured_only);
  }
}

void write_stages(Out out, const StageErrors& stages, SimTime iteration) {
  if (!stages.available) {
    fmt::format_to(out, "forward/backward per stage and micro-batch: unavailable: {}\n\n", stages.unavailable_reason);
    return;
  }
  fmt::format_to(out, "forward/backward per stage and micro-batch (us from the iteration's begin; error = predicted - "
                      "measured, % of the measured iteration):\n");
  write_stage_rows(out, stages, iteration);
  out = '\n';
}

void write_summary(Out out, const Comparison& comparison) {
  const auto& activity = comparison.activity;
  const auto& stages = comparison.stages;
  fmt::format_to(out, "batch-time error: {} %\n", percent(comparison.batch.error));
  if (activity.ranks_with_matches == 0) {
    fmt::format_to(out, "activity error: unavailable (no rank has matching activities)\n");
  } else {
    fmt::format_to(out, "activity error: {} % (start {} %, end {} %; mean over {}, {})\n", percent(activity.mean_error),
                   percent(activity.mean_start_error), percent(activity.mean_end_error),
                   count_of(static_cast<std::size_t>(activity.ranks_with_matches), "rank", "ranks"),
                   granularity_name(activity.granularity));
  }
  if (!stages.available || stages.rows.empty()) {
    fmt::format_to(out, "stage forward/backward error: unavailable\n");
  } else {
    fmt::format_to(out, "stage forward/backward error: start {} %, end {} % (mean |error| over {}; max {} %)\n",
                   percent(stages.mean_abs_start_error), percent(stages.mean_abs_end_error),
                   count_of(stages.rows.size(), "pass", "passes"), percent(stages.max_abs_error));
  }
}

}  // namespace

std::string comparison_text(const Timeline& predicted, const Timeline& measured, const Comparison& comparison) {
  std::string text;
  const Out out(text);
  write_inputs(out, predicted, measured, comparison);
  write_batch(out, comparison.batch);
  write_activity(out, comparison.activity);
  write_stages(out, comparison.stages, measured.iteration());
  write_summary(out, comparison);
  return text;
}

}  // namespace distsim::compare
