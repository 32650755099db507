#include <algorithm>
#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "io/trace/trace_reader_formats.hpp"

namespace distsim::io::trace_format {

namespace {

using compare::Activity;
using compare::ActivityKind;
using nlohmann::json;

int parse_microbatch(std::string_view text, const std::string& place) {
  int value = -1;
  if (text.starts_with("mb=")) {
    const auto digits = text.substr(3);
    const auto [last, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error != std::errc{} || last != digits.data() + digits.size()) {
      value = -1;
    }
  }
  if (value < 0) {
    throw InputError(place + ": expected an annotation named distsim:<phase>:mb=<micro-batch>, as in distsim:fwd:mb=3");
  }
  return value;
}

//! A record_function range named distsim:<phase>[:mb=<n>] (docs/compare.md).
struct Annotation {
  PassLabel label;
  SimTime start = 0;
  SimTime end = 0;
};

Annotation parse_annotation(const TimedEvent& event, const std::string& place) {
  return {parse_pass_label(event.name, place), event.start, event.end};
}

struct KinetoEvents {
  std::vector<TimedEvent> kernels;
  std::vector<Annotation> gpu_annotations;  //!< cat gpu_user_annotation: when the GPU ran the range
  std::vector<Annotation> cpu_annotations;  //!< cat user_annotation: when the CPU ran it
};

KinetoEvents sort_events(const TraceFile& file) {
  KinetoEvents sorted;
  for (auto& event : timed_events(file)) {
    const bool annotation = std::string_view(event.name).starts_with(kPassLabelPrefix);
    if (event.category == "kernel") {
      sorted.kernels.push_back(std::move(event));
    } else if (annotation && event.category == "gpu_user_annotation") {
      sorted.gpu_annotations.push_back(parse_annotation(event, where(file, event)));
    } else if (annotation && event.category == "user_annotation") {
      sorted.cpu_annotations.push_back(parse_annotation(event, where(file, event)));
    }
  }
  return sorted;
}

//! The innermost annotation whose range holds `time`, or nullptr.
const Annotation* enclosing(const std::vector<Annotation>& annotations, SimTime time) {
  const Annotation* found = nullptr;
  for (const auto& annotation : annotations) {
    if (annotation.start <= time && time < annotation.end && (found == nullptr || annotation.start >= found->start)) {
      found = &annotation;
    }
  }
  return found;
}

//! With annotations, each one is its pass (a compute activity) and NCCL kernels take the label
//! of the range they start in; without, every kernel is an unlabelled activity.
std::vector<Activity> activities_of(const KinetoEvents& events, const std::vector<Annotation>& annotations) {
  std::vector<Activity> activities;
  activities.reserve(annotations.size() + events.kernels.size());
  for (const auto& annotation : annotations) {
    activities.push_back(
        {ActivityKind::compute, annotation.label.phase, annotation.label.microbatch, annotation.start, annotation.end});
  }
  for (const auto& kernel : events.kernels) {
    const bool collective = is_collective_kernel(kernel.name);
    if (!annotations.empty() && !collective) {
      continue;
    }
    Activity activity{collective ? ActivityKind::collective : ActivityKind::compute, std::nullopt, -1, kernel.start,
                      kernel.end};
    if (const Annotation* pass = enclosing(annotations, kernel.start)) {
      activity.phase = pass->label.phase;
      activity.microbatch = pass->label.microbatch;
    }
    activities.push_back(activity);
  }
  return activities;
}

void read_distributed_info(const TraceFile& file, FileTrace& trace, compare::RankTimeline& rank) {
  const auto info = file.root.find("distributedInfo");
  if (info == file.root.end()) {
    return;
  }
  const std::string place = file.path + ": distributedInfo";
  rank.rank = required_int(*info, "rank", place);
  trace.world_size = required_int(*info, "world_size", place);
}

void set_bounds(FileTrace& trace, const KinetoEvents& events, const std::vector<Annotation>& annotations) {
  trace.begin = std::numeric_limits<SimTime>::max();
  trace.end = std::numeric_limits<SimTime>::min();
  const auto widen = [&trace](SimTime start, SimTime end) {
    trace.begin = std::min(trace.begin, start);
    trace.end = std::max(trace.end, end);
  };
  for (const auto& kernel : events.kernels) {
    widen(kernel.start, kernel.end);
  }
  for (const auto& annotation : annotations) {
    widen(annotation.start, annotation.end);
  }
}

}  // namespace

bool is_collective_kernel(std::string_view name) {
  return name.starts_with("ncclKernel") || name.starts_with("ncclDevKernel");
}

PassLabel parse_pass_label(std::string_view name, const std::string& place) {
  const std::string_view rest = name.substr(kPassLabelPrefix.size());
  const auto colon = rest.find(':');
  PassLabel label;
  label.phase = parse_phase(rest.substr(0, colon), place);
  if (colon != std::string_view::npos) {
    label.microbatch = parse_microbatch(rest.substr(colon + 1), place);
  }
  return label;
}

FileTrace read_kineto_trace(const TraceFile& file, int first_rank) {
  FileTrace trace;
  trace.format = "PyTorch profiler (Kineto)";
  compare::RankTimeline rank;
  rank.rank = first_rank;
  rank.file = file.path;
  read_distributed_info(file, trace, rank);
  const KinetoEvents events = sort_events(file);
  const auto& annotations = events.gpu_annotations.empty() ? events.cpu_annotations : events.gpu_annotations;
  if (events.kernels.empty() && annotations.empty()) {
    throw InputError(file.path + ": no GPU kernels (cat 'kernel') and no distsim: annotations, so nothing to compare; "
                                 "a measured trace is a PyTorch profiler trace or a distsim runner trace");
  }
  trace.pass_labels = !annotations.empty();
  rank.activities = activities_of(events, annotations);
  set_bounds(trace, events, annotations);
  trace.ranks.push_back(std::move(rank));
  return trace;
}

}  // namespace distsim::io::trace_format
