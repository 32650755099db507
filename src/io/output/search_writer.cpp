#include "io/output/search_writer.hpp"

#include "io/spec/spec_writer.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "core/byte_units.hpp"
#include "io/output/summary_writer.hpp"
#include "search/objective.hpp"

namespace distsim::io {

std::string search_space_description(const search::SearchSpace& space) {
  const auto& job = space.base;
  const std::string hosts = job.cluster.mixed()
                                ? hosts_text(job.cluster)
                                : fmt::format("{} nodes x {} {}", fmt::join(space.cluster_node_counts(), ","),
                                              job.cluster.gpus_per_host, job.cluster.gpu.name);
  return fmt::format("{} on {}, global batch {}, {}", job.model.name, hosts, job.strategy.global_batch_size,
                     job.strategy.precision_name());
}

namespace {

//! ", within 2x the best iteration time" for a front of limited reach; "" for one of every candidate.
std::string front_reach_text(const search::Objectives& objectives) {
  if (!objectives.front_is_limited()) return "";
  return fmt::format(", within {:g}x the best {}", objectives.front_within, search::objective_title(objectives.rank));
}

bool uses_cost(const search::SearchResult& result) {
  return result.objectives.rank == search::Objective::cost || result.objectives.trade_off == search::Objective::cost;
}

//! The columns beyond the standard ones that this search's table has: the GPUs when candidates
//! use different numbers of them, GPU-hours per iteration when cost is an objective, and time
//! and money to train for the user's goal.
struct TableExtras {
  bool gpus = false;
  bool gpu_hours = false;
  std::optional<double> tokens;
  std::optional<double> price;
  bool expected_days = false;  //!< the expected time to train, when it is an objective

  TableExtras(const search::SearchSpace& space, const search::SearchResult& result)
      : gpus(!space.node_counts.empty()),
        gpu_hours(uses_cost(result)),
        tokens(result.goal.tokens),
        price(result.goal.gpu_hour_price),
        expected_days(result.objectives.rank == search::Objective::time_to_train ||
                      result.objectives.trade_off == search::Objective::time_to_train) {}

  std::string header() const {
    std::string text;
    auto out = std::back_inserter(text);
    if (gpus) fmt::format_to(out, " {:>6}", "GPUs");
    if (gpu_hours) fmt::format_to(out, " {:>10}", "GPU-h/it");
    if (tokens) fmt::format_to(out, " {:>9} {:>11}", "days", "GPU-hours");
    if (expected_days) fmt::format_to(out, " {:>9}", "exp. days");
    if (price) fmt::format_to(out, " {:>12}", tokens ? "cost" : "cost/Mtok");
    return text;
  }

  std::string row(const search::Candidate& c) const {
    std::string text;
    auto out = std::back_inserter(text);
    if (gpus) fmt::format_to(out, " {:>6}", c.cluster().total_gpus());
    if (gpu_hours) fmt::format_to(out, " {:>10.4g}", search::gpu_hours_per_iteration(c));
    if (tokens) {
      fmt::format_to(out, " {:>9.2f} {:>11.1f}", search::time_to_train_s(c, *tokens) / kSecondsPerDay,
                     search::gpu_hours_to_train(c, *tokens));
    }
    if (expected_days) fmt::format_to(out, " {:>9.2f}", c.time_to_train_s / kSecondsPerDay);
    if (price) fmt::format_to(out, " {:>12.2f}", *price * hours_priced(c));
    return text;
  }

  //! The GPU-hours that the cost column prices: to train on the tokens, or per million tokens.
  double hours_priced(const search::Candidate& c) const {
    return tokens ? search::gpu_hours_to_train(c, *tokens) : search::gpu_hours_to_train(c, kMillion);
  }
};

nlohmann::json value_json(const options::Value& value) {
  return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

//! Each searched setting's values, or "all" for a free one (every value the search finds valid).
nlohmann::json space_json(const search::SearchSpace& space) {
  nlohmann::json data = nlohmann::json::object();
  for (const auto* option : search::varied_options(space)) {
    const auto listed = space.listed.find(option->key);
    if (listed == space.listed.end()) {
      data[option->key] = std::string(search::kAllValues);
      continue;
    }
    nlohmann::json values = nlohmann::json::array();
    for (const auto& value : listed->second) values.push_back(value_json(value));
    data[option->key] = std::move(values);
  }
  if (!space.node_counts.empty()) data["nodes"] = space.node_counts;
  return data;
}

//! The flags that rerun the same space: "--tp all --micro-batch-size 1,2 ...".
std::string space_flags(const search::SearchSpace& space) {
  std::vector<std::string> flags;
  for (const auto* option : search::varied_options(space)) {
    const auto listed = space.listed.find(option->key);
    std::vector<std::string> values;
    if (listed == space.listed.end()) {
      values.emplace_back(search::kAllValues);
    } else {
      for (const auto& value : listed->second) values.push_back(options::value_text(value));
    }
    flags.push_back(fmt::format("{} {}", option->flag, fmt::join(values, ",")));
  }
  if (!space.node_counts.empty()) flags.push_back(fmt::format("--nodes {}", fmt::join(space.node_counts, ",")));
  return fmt::format("{}", fmt::join(flags, " "));
}

//! Wide enough for every label in the table, and at least 28 characters.
std::size_t label_width(const search::SearchResult& result) {
  std::size_t width = 28;
  for (const std::size_t index : result.ranking) {
    width = std::max(width, result.candidates[index].label().size());
  }
  return width;
}

void append_row(std::string& text, std::size_t position, const search::Candidate& c, std::size_t width,
                const TableExtras& extras) {
  fmt::format_to(std::back_inserter(text),
                 "{:>4}  {:<{}} {:>10.4f} {:>9.3f} {:>10.2f} {:>6.1f}% {:>7.1f}% {:>9.2f}{}{}\n", position, c.label(),
                 width, c.iteration_time_s, c.iterations_per_s(), c.samples_per_s, 100.0 * c.mfu,
                 100.0 * c.bubble_fraction, c.peak_memory_bytes / kGiB, extras.row(c), c.pareto ? "  *" : "");
}

std::string table_header(std::size_t width, const TableExtras& extras) {
  return fmt::format("{:>4}  {:<{}} {:>10} {:>9} {:>10} {:>7} {:>8} {:>9}{}\n", "rank", "candidate", width, "iter s",
                     "it/s", "samples/s", "MFU", "bubble", "peak GiB", extras.header());
}

//! A validation message's first problem, without the "invalid job" heading.
std::string first_problem(const std::string& reason) {
  const std::size_t bullet = reason.find("\n  - ");
  if (bullet != std::string::npos) {
    const std::size_t end = reason.find('\n', bullet + 1);
    return reason.substr(bullet + 5, end == std::string::npos ? std::string::npos : end - bullet - 5);
  }
  const std::string heading = "invalid job: ";
  return reason.rfind(heading, 0) == 0 ? reason.substr(heading.size()) : reason;
}

//! The most common reasons (by each candidate's first problem) with their counts.
std::string invalid_reasons(const search::SearchResult& result) {
  constexpr std::size_t kShown = 5;
  std::map<std::string, int> counts;
  for (const auto& c : result.candidates) {
    if (c.status == search::CandidateStatus::invalid) ++counts[first_problem(c.reason())];
  }
  std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (std::size_t i = 0; i < std::min(kShown, sorted.size()); ++i) {
    fmt::format_to(std::back_inserter(text), "  {:>4} x {}\n", sorted[i].second, sorted[i].first);
  }
  if (sorted.size() > kShown) {
    fmt::format_to(std::back_inserter(text), "       ... {} more reasons (every candidate's is in --csv)\n",
                   sorted.size() - kShown);
  }
  return text;
}

//! A simulated candidate's GPU-hours and, for the user's goal, its time and money to train.
void add_training_json(nlohmann::json& entry, const search::Candidate& c, const search::TrainingGoal& goal) {
  entry["gpu_hours_per_iteration"] = search::gpu_hours_per_iteration(c);
  if (goal.tokens) {
    entry["time_to_train_s"] = search::time_to_train_s(c, *goal.tokens);
    // With the run's failures, checkpoints and restarts (Objective::time_to_train).
    entry["expected_time_to_train_s"] = c.time_to_train_s;
    entry["gpu_hours_to_train"] = search::gpu_hours_to_train(c, *goal.tokens);
    if (goal.gpu_hour_price)
      entry["cost_to_train"] = *goal.gpu_hour_price * search::gpu_hours_to_train(c, *goal.tokens);
  } else if (goal.gpu_hour_price) {
    entry["cost_per_million_tokens"] = *goal.gpu_hour_price * search::gpu_hours_to_train(c, kMillion);
  }
}

}  // namespace

nlohmann::json search_candidate_json(const search::Candidate& c, const search::TrainingGoal& goal) {
  const auto& s = c.strategy;
  nlohmann::json entry = {{"label", c.label()},
                          {"tp", s.tensor_parallel},
                          {"pp", s.pipeline_parallel},
                          {"dp", s.data_parallel},
                          {"cp", s.context_parallel},
                          {"micro_batch_size", s.micro_batch_size},
                          {"schedule", s.schedule},
                          {"virtual_stages", s.virtual_stages},
                          {"recompute", strategy::to_string(s.recompute)},
                          {"sequence_parallel", s.sequence_parallel},
                          {"sharding", strategy::to_string(s.zero_stage())},
                          {"status", search::to_string(c.status)},
                          {"peak_memory_bytes", c.peak_memory_bytes},
                          {"pareto", c.pareto}};
  if (c.model().moe.enabled()) entry["ep"] = s.expert_parallel;
  if (s.sharding == strategy::Sharding::full) entry["shard_group_size"] = s.shard_group_size();
  entry["gpus"] = c.cluster().total_gpus();
  if (!c.reason().empty()) entry["reason"] = c.reason();
  if (c.lower_bound_s > 0) entry["lower_bound_s"] = c.lower_bound_s;
  if (c.simulated) {
    entry["iteration_time_s"] = c.iteration_time_s;
    entry["iterations_per_s"] = c.iterations_per_s();
    entry["samples_per_s"] = c.samples_per_s;
    entry["mfu"] = c.mfu;
    entry["bubble_fraction"] = c.bubble_fraction;
    add_training_json(entry, c, goal);
  }
  return entry;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(text);
  }
  std::string quoted = "\"";
  for (const char ch : text) {
    quoted += ch;
    if (ch == '"') quoted += '"';
  }
  return quoted + "\"";
}

namespace {

//! CSV fields never contain commas or quotes except the reason, which is always quoted.
std::string csv_quoted(const std::string& text) {
  std::string quoted = "\"";
  for (const char ch : text) {
    quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch == '\n' ? ' ' : ch);
  }
  return quoted + "\"";
}

//! GPU-hours per iteration and the goal's columns, each followed by a comma; empty fields for a
//! candidate not simulated.
std::string training_csv(const search::Candidate& c, const search::TrainingGoal& goal) {
  const std::size_t fields = 1 + (goal.tokens ? 3 : 0) + (goal.gpu_hour_price ? 1 : 0);
  if (!c.simulated) return std::string(fields, ',');
  std::string text = fmt::format("{:.9g},", search::gpu_hours_per_iteration(c));
  if (goal.tokens) {
    text += fmt::format("{:.6f},{:.6f},{:.6f},", search::time_to_train_s(c, *goal.tokens),
                        search::gpu_hours_to_train(c, *goal.tokens), c.time_to_train_s);
  }
  if (goal.gpu_hour_price) {
    const double hours = search::gpu_hours_to_train(c, goal.tokens ? *goal.tokens : kMillion);
    text += fmt::format("{:.6f},", *goal.gpu_hour_price * hours);
  }
  return text;
}

}  // namespace

std::string search_memory_advice(const search::SearchResult& result) {
  if (!result.leanest) return "";
  const auto& leanest = result.candidates[*result.leanest];
  std::string text = fmt::format("the leanest, {}, needs {:.2f} GiB of {:.2f} GiB; what would lower it:\n",
                                 leanest.label(), leanest.peak_memory_bytes / kGiB, result.memory_limit_bytes / kGiB);
  for (const auto& remedy : result.memory_remedies) {
    fmt::format_to(std::back_inserter(text), "  {:<22} {} needs {:.2f} GiB{}\n", remedy.change + ":",
                   remedy.changed.label(), remedy.changed.peak_memory_bytes / kGiB, remedy.fits ? " (fits)" : "");
  }
  if (result.memory_remedies.empty()) {
    text += "  nothing: it has every pipeline stage, recomputation and ZeRO stage a valid job allows\n";
  }
  return text;
}

nlohmann::json search_memory_advice_json(const search::SearchResult& result) {
  nlohmann::json advice = nlohmann::json::object();
  if (!result.leanest) return advice;
  const auto& leanest = result.candidates[*result.leanest];
  advice["leanest"] = leanest.label();
  advice["peak_memory_bytes"] = leanest.peak_memory_bytes;
  nlohmann::json remedies = nlohmann::json::array();
  for (const auto& remedy : result.memory_remedies) {
    remedies.push_back({{"change", remedy.change},
                        {"candidate", remedy.changed.label()},
                        {"peak_memory_bytes", remedy.changed.peak_memory_bytes},
                        {"fits", remedy.fits}});
  }
  advice["remedies"] = std::move(remedies);
  return advice;
}

//! The searched keys, and the gradient bucket size and the ZeRO-3 shard group when the default
//! rule sets them: those rules follow each candidate's data-parallel size, which the base job's
//! value would pin.
std::vector<std::string> left_out_of_echo(const search::SearchSpace& space) {
  std::vector<std::string> keys = search::searched_keys();
  // A setting searched only over listed values is the job's own when none are.
  std::erase_if(keys, [&](const std::string& key) {
    const options::JobOption* option = options::find_option(key);
    return option != nullptr && option->searched_when_listed && space.listed.count(key) == 0 &&
           space.freed.count(key) == 0;
  });
  if (!space.node_counts.empty()) keys.emplace_back("nodes");
  if (space.base.strategy.dp_bucket_params == 0) keys.emplace_back("gradient_bucket_size");
  if (space.base.strategy.shard_group == 0) keys.emplace_back("shard_group_size");
  return keys;
}

nlohmann::json search_job_json(const search::SearchSpace& space) {
  nlohmann::json job = job_settings_json(space.base);
  for (const auto& key : left_out_of_echo(space)) job.erase(key);
  return job;
}

std::string search_settings_text(const search::SearchSpace& space) {
  return fmt::format("{}; searched: {}", job_settings_text(space.base, left_out_of_echo(space)), space_flags(space));
}

std::string search_text(const search::SearchSpace& space, const search::SearchResult& result, std::size_t top) {
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "strategy search: {}\n", search_space_description(space));
  fmt::format_to(out, "settings: {}\n", search_settings_text(space));
  fmt::format_to(out,
                 "{} candidates: {} valid, {} invalid; {} do not fit in {:.1f} GiB; {} pruned by bound; {} simulated\n",
                 result.candidates.size(), result.valid, result.invalid, result.out_of_memory,
                 result.memory_limit_bytes / kGiB, result.pruned_by_bound,
                 std::count_if(result.candidates.begin(), result.candidates.end(),
                               [](const search::Candidate& c) { return c.simulated; }));
  if (result.invalid > 0) {
    text += "invalid, by first problem:\n";
    text += invalid_reasons(result);
  }
  if (result.ranking.empty()) {
    text += "no candidate fits in memory\n";
    text += search_memory_advice(result);
    return text;
  }
  text += "\n";
  const std::size_t width = label_width(result);
  const TableExtras extras(space, result);
  if (result.objectives.rank != search::Objective::time) {
    fmt::format_to(out, "ranked by {}\n", search::objective_title(result.objectives.rank));
  }
  text += table_header(width, extras);
  const std::size_t shown = std::min(top, result.ranking.size());
  for (std::size_t i = 0; i < shown; ++i) {
    append_row(text, i + 1, result.candidates[result.ranking[i]], width, extras);
  }
  if (shown < result.ranking.size()) {
    fmt::format_to(out, "      ... {} more (see --csv)\n", result.ranking.size() - shown);
  }
  const auto& best = result.candidates[*result.fastest()];
  const auto& worst = result.candidates[*result.slowest()];
  const bool by_time = result.objectives.rank == search::Objective::time;
  fmt::format_to(out, "\n{} {} at {:.3f} it/s; {} {} at {:.3f} it/s; best/worst {:.2f}x\n",
                 by_time ? "best" : "fastest", best.label(), best.iterations_per_s(), by_time ? "worst" : "slowest",
                 worst.label(), worst.iterations_per_s(), result.best_worst_ratio());
  fmt::format_to(out, "Pareto front ({} vs {}{}, marked *):\n", search::objective_title(result.objectives.rank),
                 search::objective_title(result.objectives.trade_off), front_reach_text(result.objectives));
  for (const std::size_t index : result.pareto_front) {
    const auto& c = result.candidates[index];
    fmt::format_to(out, "  {:<{}} {:>10.4f} s {:>9.2f} GiB", c.label(), width, c.iteration_time_s,
                   c.peak_memory_bytes / kGiB);
    if (extras.gpu_hours) fmt::format_to(out, " {:>10.4g} GPU-h/it", search::gpu_hours_per_iteration(c));
    if (extras.expected_days) fmt::format_to(out, " {:>9.2f} days to train", c.time_to_train_s / kSecondsPerDay);
    text += "\n";
  }
  return text;
}

std::string search_csv_header(const search::TrainingGoal& goal) {
  std::string text = "label,tp,pp,dp,cp,micro_batch_size,schedule,virtual_stages,recompute,sequence_parallel,"
                     "sharding,status,iteration_time_s,iterations_per_s,"
                     "samples_per_s,mfu,bubble_fraction,peak_memory_bytes,pareto,gpus,gpu_hours_per_iteration";
  if (goal.tokens) text += ",time_to_train_s,gpu_hours_to_train,expected_time_to_train_s";
  if (goal.gpu_hour_price) text += goal.tokens ? ",cost_to_train" : ",cost_per_million_tokens";
  return text + ",reason";
}

std::string search_csv_row(const search::Candidate& c, const search::TrainingGoal& goal) {
  const auto& s = c.strategy;
  std::string text = fmt::format(
      "{},{},{},{},{},{},{},{},{},{},{},{},", c.label(), s.tensor_parallel, s.pipeline_parallel, s.data_parallel,
      s.context_parallel, s.micro_batch_size, s.schedule, s.virtual_stages, strategy::to_string(s.recompute),
      s.sequence_parallel ? 1 : 0, strategy::to_string(s.zero_stage()), search::to_string(c.status));
  if (c.simulated) {
    text += fmt::format("{:.9f},{:.6f},{:.6f},{:.6f},{:.6f},", c.iteration_time_s, c.iterations_per_s(),
                        c.samples_per_s, c.mfu, c.bubble_fraction);
  } else {
    text += ",,,,,";
  }
  text += fmt::format("{:.0f},{},{},", c.peak_memory_bytes, c.pareto ? 1 : 0, c.cluster().total_gpus());
  return text + training_csv(c, goal) + csv_quoted(c.reason());
}

void write_search_csv(std::ostream& out, const search::SearchResult& result) {
  out << search_csv_header(result.goal) << "\n";
  for (const auto& c : result.candidates) out << search_csv_row(c, result.goal) << "\n";
}

namespace {

//! Everything search JSON holds but the list of every candidate.
nlohmann::json search_summary_json(const search::SearchSpace& space, const search::SearchResult& result,
                                   std::size_t top) {
  nlohmann::json data;
  data["search"] = search_space_description(space);
  data["job"] = search_job_json(space);
  data["space"] = space_json(space);
  data["candidates_total"] = result.candidates.size();
  data["valid"] = result.valid;
  data["invalid"] = result.invalid;
  data["out_of_memory"] = result.out_of_memory;
  data["memory_limit_bytes"] = result.memory_limit_bytes;
  data["pruned_by_bound"] = result.pruned_by_bound;
  data["objectives"] = {std::string(search::to_string(result.objectives.rank)),
                        std::string(search::to_string(result.objectives.trade_off))};
  data["front_within"] =
      result.objectives.front_is_limited() ? nlohmann::json(result.objectives.front_within) : nlohmann::json("all");
  if (result.goal.tokens) data["tokens"] = *result.goal.tokens;
  if (result.goal.gpu_hour_price) data["gpu_hour_price"] = *result.goal.gpu_hour_price;
  if (result.leanest) data["memory_advice"] = search_memory_advice_json(result);
  data["best_worst_ratio"] = result.best_worst_ratio();
  nlohmann::json ranking = nlohmann::json::array();
  for (std::size_t i = 0; i < std::min(top, result.ranking.size()); ++i) {
    ranking.push_back(search_candidate_json(result.candidates[result.ranking[i]], result.goal));
  }
  data["top"] = std::move(ranking);
  nlohmann::json front = nlohmann::json::array();
  for (const std::size_t index : result.pareto_front) {
    front.push_back(result.candidates[index].label());
  }
  data["pareto_front"] = std::move(front);
  return data;
}

//! `value.dump(2)` as it reads `depth` levels inside the document: each line after the first
//! indented by two spaces per level more.
std::string dump_at_depth(const nlohmann::json& value, int depth) {
  const std::string text = value.dump(2);
  const std::string margin(static_cast<std::size_t>(2 * depth), ' ');
  std::string indented;
  indented.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    indented += c;
    if (c == '\n') indented += margin;
  }
  return indented;
}

void write_candidates(std::ostream& out, const search::SearchResult& result) {
  if (result.candidates.empty()) {
    out << "[]";
    return;
  }
  out << "[";
  for (std::size_t i = 0; i < result.candidates.size(); ++i) {
    out << (i == 0 ? "\n    " : ",\n    ")
        << dump_at_depth(search_candidate_json(result.candidates[i], result.goal), 2);
  }
  out << "\n  ]";
}

}  // namespace

// The document is search_summary_json with "candidates" in its place among the sorted keys, written
// as nlohmann's dump(2) would write it whole; each candidate's entry is built and written alone, so
// that a search of a million candidates does not hold a million JSON objects.
void write_search_json(std::ostream& out, const search::SearchSpace& space, const search::SearchResult& result,
                       std::size_t top) {
  nlohmann::json data = search_summary_json(space, result, top);
  data["candidates"] = nullptr;
  out << "{";
  bool first = true;
  for (const auto& member : data.items()) {
    out << (first ? "\n  " : ",\n  ") << nlohmann::json(member.key()).dump() << ": ";
    first = false;
    if (member.key() == "candidates") {
      write_candidates(out, result);
    } else {
      out << dump_at_depth(member.value(), 1);
    }
  }
  out << "\n}\n";
}

}  // namespace distsim::io
