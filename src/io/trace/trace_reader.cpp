#include "io/trace/trace_reader.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "io/trace/trace_reader_formats.hpp"

namespace distsim::io {

namespace {

using namespace trace_format;

//! nlohmann throws type_error when a key holds the wrong kind of value (a string where a number
//! belongs); that is bad input, reported with the file.
template <class Read>
auto reading(const std::string& path, Read&& read) {
  try {
    return read();
  } catch (const nlohmann::json::exception& e) {
    const std::string detail = e.what();
    const std::size_t start = detail.find("] ");
    throw InputError(path + ": unexpected value: " + (start == std::string::npos ? detail : detail.substr(start + 2)));
  }
}

void sort_activities(compare::RankTimeline& rank) {
  std::stable_sort(rank.activities.begin(), rank.activities.end(),
                   [](const compare::Activity& a, const compare::Activity& b) {
                     return std::tie(a.start, a.end) < std::tie(b.start, b.end);
                   });
}

//! `first_rank`: the ranks the files before this one hold.
FileTrace read_measured_file(const std::string& path, int first_rank) {
  if (is_nsys_export(path)) return read_nsys_trace(path, first_rank);
  return reading(path, [&] {
    const TraceFile file = load_trace_file(path, "measured trace");
    if (is_runner_trace(file)) {
      return read_runner_trace(file);
    }
    return is_distsim_trace(file) ? read_distsim_trace(file) : read_kineto_trace(file, first_rank);
  });
}

bool same_sizes(const strategy::Strategy& a, const strategy::Strategy& b) {
  return a.tensor_parallel == b.tensor_parallel && a.pipeline_parallel == b.pipeline_parallel &&
         a.data_parallel == b.data_parallel && a.context_parallel == b.context_parallel;
}

void check_same_job(const std::string& path, const FileTrace& trace, const compare::Timeline& predicted) {
  const auto& job = predicted.job;
  if (trace.job && !same_sizes(*trace.job, job)) {
    throw InputError(fmt::format("{}: the measured job is {} but the predicted trace '{}' is {}", path,
                                 trace.job->notation(), predicted.files.front(), job.notation()));
  }
  if (trace.world_size && *trace.world_size != job.world_size()) {
    throw InputError(fmt::format("{}: world size {} but the predicted job ({}, '{}') has {} ranks", path,
                                 *trace.world_size, job.notation(), predicted.files.front(), job.world_size()));
  }
}

//! "rank 0" or "ranks 0, 1, 3".
std::string rank_list(const std::map<int, std::string>& ranks) {
  std::string text;
  for (const auto& [rank, file] : ranks) {
    text += (text.empty() ? "" : ", ") + std::to_string(rank);
  }
  return (ranks.size() == 1 ? "rank " : "ranks ") + text;
}

//! Every rank of the job exactly once: names both files of a duplicate, and the missing ranks.
void check_rank_set(const compare::Timeline& measured, int world_size) {
  std::map<int, std::string> seen;
  for (const auto& rank : measured.ranks) {
    if (rank.rank < 0 || rank.rank >= world_size) {
      throw InputError(
          fmt::format("{}: rank {} is not a rank of the predicted job's {} ranks", rank.file, rank.rank, world_size));
    }
    const auto [it, inserted] = seen.emplace(rank.rank, rank.file);
    if (!inserted) {
      throw InputError(fmt::format("--measured: '{}' and '{}' both hold rank {}", it->second, rank.file, rank.rank));
    }
  }
  std::string missing;
  for (int rank = 0; rank < world_size; ++rank) {
    if (!seen.contains(rank)) {
      missing += (missing.empty() ? "" : ", ") + std::to_string(rank);
    }
  }
  if (!missing.empty()) {
    throw InputError(fmt::format("--measured: missing rank{} {}: the predicted job has {} ranks and the traces given "
                                 "hold {}",
                                 missing.find(',') == std::string::npos ? "" : "s", missing, world_size,
                                 rank_list(seen)));
  }
}

//! Each communication whose trace names its group takes the kind of that group in the job.
void classify_communication(compare::RankTimeline& rank, const std::vector<ActivityGroup>& groups,
                            const strategy::RankLayout& layout, const strategy::Strategy& job) {
  for (const auto& [activity, group] : groups) {
    rank.activities[activity].kind = compare::measured_communication_kind(layout, job, rank.rank, group);
  }
}

void add_file(compare::Timeline& measured, FileTrace trace, const compare::Timeline& predicted) {
  const strategy::RankLayout layout(
      strategy::parallel_dims(predicted.job), {},
      strategy::ExpertFolding{predicted.job.expert_parallel, predicted.job.expert_tensor_parallel});
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) {
    auto& rank = trace.ranks[r];
    if (!trace.coords_known) {
      rank.coord = layout.coord_of(rank.rank);  // Megatron's rank order, as distsim lays ranks out
    }
    const bool grouped = r < trace.groups.size() && !trace.groups[r].empty();
    if (grouped) classify_communication(rank, trace.groups[r], layout, predicted.job);
    sort_activities(rank);
    if (grouped && trace.pass_labels && compare::label_pipeline_transfers(rank)) trace.microbatches_by_order = true;
    measured.ranks.push_back(std::move(rank));
  }
  measured.begin = std::min(measured.begin, trace.begin);
  measured.end = std::max(measured.end, trace.end);
  measured.pass_labels = measured.pass_labels && trace.pass_labels;
  measured.microbatches_by_order = measured.microbatches_by_order || trace.microbatches_by_order;
  measured.communication = std::min(measured.communication, trace.communication);
  if (measured.format.find(trace.format) == std::string::npos) {
    measured.format += (measured.format.empty() ? "" : " + ") + trace.format;
  }
}

}  // namespace

compare::Timeline read_predicted_trace(const std::string& path) {
  const FileTrace trace = reading(path, [&] {
    const TraceFile file = load_trace_file(path, "predicted trace");
    if (!is_distsim_trace(file)) {
      throw InputError(path + ": not a distsim trace (no otherData.iteration_time_ns); --predicted takes the trace "
                              "that distsim simulate --trace writes");
    }
    return read_distsim_trace(file);
  });
  compare::Timeline timeline;
  timeline.format = trace.format;
  timeline.files = {path};
  timeline.job = *trace.job;
  timeline.begin = trace.begin;
  timeline.end = trace.end;
  timeline.ranks = trace.ranks;
  for (auto& rank : timeline.ranks) {
    sort_activities(rank);
  }
  return timeline;
}

compare::Timeline read_measured_traces(const std::vector<std::string>& paths, const compare::Timeline& predicted) {
  compare::Timeline measured;
  measured.files = paths;
  measured.job = predicted.job;
  measured.begin = std::numeric_limits<SimTime>::max();
  measured.end = std::numeric_limits<SimTime>::min();
  for (const std::string& path : paths) {
    FileTrace trace = read_measured_file(path, static_cast<int>(measured.ranks.size()));
    check_same_job(path, trace, predicted);
    add_file(measured, std::move(trace), predicted);
  }
  std::stable_sort(measured.ranks.begin(), measured.ranks.end(),
                   [](const compare::RankTimeline& a, const compare::RankTimeline& b) { return a.rank < b.rank; });
  check_rank_set(measured, predicted.job.world_size());
  return measured;
}

}  // namespace distsim::io
