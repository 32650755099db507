#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/name_match.hpp"
#include "events/operator.hpp"
#include "io/trace/trace_reader_formats.hpp"

namespace distsim::io::trace_format {

namespace {

using compare::Activity;
using compare::ActivityKind;
using compare::MeasuredGroup;
using nlohmann::json;

//! The digits at the front of `text`, consumed; nullopt when there are none or too many.
std::optional<int> leading_number(std::string_view& text) {
  int value = 0;
  const auto [last, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || last == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(last - text.data()));
  return value;
}

int parse_microbatch(std::string_view text, const std::string& place) {
  std::optional<int> value;
  if (text.starts_with("mb=")) {
    text.remove_prefix(3);
    value = leading_number(text);
  }
  if (!value || *value < 0 || !text.empty()) {
    throw InputError(place + ": expected an annotation named distsim:<phase>:mb=<micro-batch>, as in distsim:fwd:mb=3");
  }
  return *value;
}

//! A range that marks a pass: its label and where it ran (on the GPU for gpu_user_annotation, on
//! the host otherwise). `by_order`: the trace does not number its micro-batch, its order does.
struct PassRange {
  PassLabel label;
  SimTime start = 0;
  SimTime end = 0;
  bool by_order = false;
};

//! PyTorch's pipelining schedules name each action's range PP:<stage><action><micro-batch>
//! (torch/distributed/pipelining/schedules.py, _get_profiler_function_name): F forward, B full
//! backward, I backward for inputs, W backward for weights. Other actions (SEND_F, RECV_B,
//! UNSHARD, ...) and ranges without a micro-batch are not passes.
std::optional<PassLabel> pipelining_action(std::string_view name) {
  name.remove_prefix(kPipeliningRangePrefix.size());
  if (!leading_number(name) || name.empty()) return std::nullopt;
  const char action = name.front();
  name.remove_prefix(1);
  const auto microbatch = leading_number(name);
  if (!microbatch || *microbatch < 0 || !name.empty()) return std::nullopt;
  switch (action) {
    case 'F': return PassLabel{events::Phase::forward, *microbatch};
    case 'B':
    case 'I': return PassLabel{events::Phase::backward, *microbatch};
    case 'W': return PassLabel{events::Phase::weight_gradient, *microbatch};
    default: return std::nullopt;
  }
}

//! The function a python_function event ran: the profiler names them "<file>(<line>): <function>".
std::string_view python_function(std::string_view name) {
  const auto at = name.rfind("): ");
  return at == std::string_view::npos ? name : name.substr(at + 3);
}

//! Megatron's pipeline schedules run each micro-batch's forward and backward pass in the functions
//! forward_step and backward_step (megatron/core/pipeline_parallel/schedules.py), which the
//! profiler records as python_function events when it records stacks.
std::optional<events::Phase> schedule_step(std::string_view name) {
  const std::string_view function = python_function(name);
  if (function == "forward_step") return events::Phase::forward;
  if (function == "backward_step") return events::Phase::backward;
  return std::nullopt;
}

struct KinetoEvents {
  //! GPU kernels; in a trace without any, the host's gloo collectives, which are then the run's
  //! communication (a run on CPUs).
  std::vector<TimedEvent> kernels;
  std::vector<TimedEvent> host_collectives;  //!< ProcessGroupGloo's ops, gloo:<collective>
  std::map<std::int64_t, SimTime> launches;  //!< a CUDA runtime or driver call's correlation id: when it ran
  std::vector<PassRange> gpu_ranges;         //!< cat gpu_user_annotation: when the GPU ran the range
  std::vector<PassRange> cpu_ranges;         //!< on the host: user_annotation and python_function
};

std::optional<std::int64_t> correlation_of(const TimedEvent& event, const std::string& place) {
  const auto args = event.event->find("args");
  if (args == event.event->end() || !args->is_object()) return std::nullopt;
  const auto id = args->find("correlation");
  if (id == args->end()) return std::nullopt;
  if (!id->is_number_integer()) {
    throw InputError(fmt::format("{}: args.correlation is {}; expected an integer", place, id->dump()));
  }
  return id->get<std::int64_t>();
}

void sort_event(const TraceFile& file, TimedEvent event, KinetoEvents& sorted) {
  const std::string_view name = event.name;
  const bool annotation = name.starts_with(kPassLabelPrefix);
  // A profiler built without Kineto writes every host event without a category.
  const bool host_range = event.category == "user_annotation" || event.category.empty();
  if (event.category == "kernel") {
    sorted.kernels.push_back(std::move(event));
  } else if (event.category == "cuda_runtime" || event.category == "cuda_driver") {
    if (const auto id = correlation_of(event, where(file, event))) sorted.launches.emplace(*id, event.start);
  } else if (annotation && event.category == "gpu_user_annotation") {
    sorted.gpu_ranges.push_back({parse_pass_label(name, where(file, event)), event.start, event.end});
  } else if (annotation && host_range) {
    sorted.cpu_ranges.push_back({parse_pass_label(name, where(file, event)), event.start, event.end});
  } else if (host_range && name.starts_with(kPipeliningRangePrefix)) {
    if (const auto label = pipelining_action(name)) sorted.cpu_ranges.push_back({*label, event.start, event.end});
  } else if ((event.category == "cpu_op" || event.category.empty()) && name.starts_with(kGlooOpPrefix)) {
    sorted.host_collectives.push_back(std::move(event));
  } else if (event.category == "python_function") {
    if (const auto phase = schedule_step(name))
      sorted.cpu_ranges.push_back({{*phase, -1}, event.start, event.end, true});
  }
}

//! Ranges numbered by their order: a function that calls one of the same name (Megatron's
//! forward_step calls the model's own forward_step) is one pass, the outer call; the k-th of a
//! phase on the rank is micro-batch k.
void number_by_order(std::vector<PassRange>& ranges) {
  std::stable_sort(ranges.begin(), ranges.end(), [](const PassRange& a, const PassRange& b) {
    return std::tie(a.start, b.end) < std::tie(b.start, a.end);  // outer before inner at the same start
  });
  std::vector<PassRange> kept;
  std::map<events::Phase, int> count;
  for (const auto& range : ranges) {
    if (range.by_order) {
      const bool nested = std::any_of(kept.begin(), kept.end(), [&range](const PassRange& outer) {
        return outer.by_order && outer.label.phase == range.label.phase && outer.start <= range.start &&
               range.end <= outer.end;
      });
      if (nested) continue;
      kept.push_back(range);
      kept.back().label.microbatch = count[range.label.phase]++;
    } else {
      kept.push_back(range);
    }
  }
  ranges = std::move(kept);
}

KinetoEvents sort_events(const TraceFile& file) {
  KinetoEvents sorted;
  for (auto& event : timed_events(file)) sort_event(file, std::move(event), sorted);
  if (sorted.kernels.empty()) sorted.kernels = std::move(sorted.host_collectives);
  number_by_order(sorted.cpu_ranges);
  return sorted;
}

//! The innermost range whose span holds `time`, or nullptr.
const PassRange* enclosing(const std::vector<PassRange>& ranges, SimTime time) {
  const PassRange* found = nullptr;
  for (const auto& range : ranges) {
    if (range.start <= time && time < range.end && (found == nullptr || range.start >= found->start)) {
      found = &range;
    }
  }
  return found;
}

//! When the kernel's launch ran, if the trace links them (args.correlation on both).
std::optional<SimTime> launch_of(const TraceFile& file, const KinetoEvents& events, const TimedEvent& kernel) {
  const auto id = correlation_of(kernel, where(file, kernel));
  if (!id) return std::nullopt;
  const auto found = events.launches.find(*id);
  return found == events.launches.end() ? std::nullopt : std::optional<SimTime>(found->second);
}

//! The members a process group's ranks text names, "[0, 1, 2]"; nullopt when PyTorch truncated it
//! ("[0, 1, ..., ]" past 30 ranks, torch/csrc/profiler/util.cpp) or it is empty.
std::optional<std::vector<int>> parse_rank_list(std::string_view text, const std::string& place) {
  const auto bad = [&] {
    return InputError(
        fmt::format("{}: 'Process Group Ranks' is \"{}\"; expected a list of ranks such as \"[0, 1]\"", place, text));
  };
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') throw bad();
  std::vector<int> ranks;
  std::string_view rest = text.substr(1, text.size() - 2);
  while (!rest.empty()) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == ',')) rest.remove_prefix(1);
    if (rest.empty()) break;
    if (rest.starts_with("...")) return std::nullopt;
    const auto rank = leading_number(rest);
    if (!rank) throw bad();
    ranks.push_back(*rank);
  }
  if (ranks.empty()) return std::nullopt;
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

//! distributedInfo.pg_config (torch/profiler/profiler.py, _get_distributed_info, from
//! torch.distributed's _get_all_pg_configs): each process group's pg_name and ranks.
std::map<std::string, std::vector<int>> process_groups(const TraceFile& file) {
  std::map<std::string, std::vector<int>> groups;
  const auto info = file.root.find("distributedInfo");
  if (info == file.root.end() || !info->is_object() || !info->contains("pg_config")) return groups;
  const json& config = (*info)["pg_config"];
  if (!config.is_array() && !config.is_object()) {
    throw InputError(file.path + ": distributedInfo.pg_config is not a list of process groups");
  }
  for (const auto& group : config) {
    const std::string place = file.path + ": distributedInfo.pg_config";
    if (!group.is_object()) throw InputError(fmt::format("{}: {} is not a process group", place, group.dump()));
    const std::string name = optional_string(group, "pg_name", place);
    const auto ranks = group.find("ranks");
    if (ranks == group.end()) continue;
    const std::string entry = fmt::format("{}[pg_name {}].ranks", place, name);
    if (!ranks->is_array()) throw InputError(fmt::format("{}: {} is not a list of ranks", entry, ranks->dump()));
    std::vector<int> members;
    for (const auto& rank : *ranks) {
      if (!rank.is_number_integer() || rank.get<std::int64_t>() < 0 ||
          rank.get<std::int64_t>() > std::numeric_limits<int>::max()) {
        throw InputError(fmt::format("{}: {} is not a rank", entry, rank.dump()));
      }
      members.push_back(rank.get<int>());
    }
    std::sort(members.begin(), members.end());
    groups[name] = std::move(members);
  }
  return groups;
}

//! An integer kernel argument, or nullopt when absent.
std::optional<int> optional_int(const json& args, std::string_view key, const std::string& place) {
  if (!args.contains(key)) return std::nullopt;
  return required_int(args, key, place + ": args");
}

//! The group's members: the ranks list unless PyTorch truncated it, then the process group's
//! entry in pg_config, then the evenly strided group newer PyTorch describes by its first rank,
//! stride and size; empty when none of them says.
std::vector<int> group_members(const json& args, const std::map<std::string, std::vector<int>>& groups,
                               const std::string& place) {
  const std::string ranks = optional_string(args, "Process Group Ranks", place + ": args");
  if (!ranks.empty()) {
    if (auto members = parse_rank_list(ranks, place)) return *members;
  }
  const auto named = groups.find(optional_string(args, "Process Group Name", place + ": args"));
  if (named != groups.end()) return named->second;
  const auto start = optional_int(args, "Global rank start", place);
  const auto stride = optional_int(args, "Global rank stride", place);
  const auto size = optional_int(args, "Group size", place);
  std::vector<int> members;
  if (start && stride && size && *stride > 0) {
    for (int k = 0; k < *size; ++k) members.push_back(*start + k * *stride);
  }
  return members;
}

//! PyTorch names an all-to-all all_to_all, all_to_allv or alltoall_base: distsim's operator name
//! by the one name rule, with a suffix.
bool names_all_to_all(std::string_view collective) {
  return name_key(collective).starts_with(name_key(events::collective_name(events::Collective::all_to_all)));
}

//! What a NCCL kernel's arguments say of its partners (record_param_comms' metadata, which the
//! profiler copies onto the kernel: torch/csrc/profiler/util.h lists the keys). A send names its
//! destination ("Dst Rank") and a receive its source ("Src Rank"), as global ranks.
std::optional<MeasuredGroup> measured_group(const TraceFile& file, const TimedEvent& kernel,
                                            const std::map<std::string, std::vector<int>>& groups) {
  const auto args = kernel.event->find("args");
  const std::string place = where(file, kernel);
  if (args == kernel.event->end() || !args->is_object() || !args->contains("Collective name")) return std::nullopt;
  const std::string collective = optional_string(*args, "Collective name", place + ": args");
  MeasuredGroup group;
  group.members = group_members(*args, groups, place);
  group.all_to_all = names_all_to_all(collective);
  if (collective == "send" || collective == "recv") {
    group.transfer = true;
    group.sends = collective == "send";
    group.peer = optional_int(*args, group.sends ? "Dst Rank" : "Src Rank", place);
  }
  return group;
}

struct RankActivities {
  std::vector<Activity> activities;
  std::vector<ActivityGroup> groups;
};

//! Each range's pass spans the computation kernels launched in it, as the GPU ran them.
std::vector<PassRange> placed_on_gpu(const TraceFile& file, const KinetoEvents& events) {
  std::map<const PassRange*, PassRange> placed;
  for (const auto& kernel : events.kernels) {
    if (is_collective_kernel(kernel.name)) continue;
    const auto launch = launch_of(file, events, kernel);
    const PassRange* range = launch ? enclosing(events.cpu_ranges, *launch) : nullptr;
    if (range == nullptr) continue;
    const auto [it, inserted] = placed.emplace(range, PassRange{range->label, kernel.start, kernel.end});
    it->second.start = std::min(it->second.start, kernel.start);
    it->second.end = std::max(it->second.end, kernel.end);
  }
  std::vector<PassRange> passes;
  for (const auto& range : events.cpu_ranges) {
    if (const auto found = placed.find(&range); found != placed.end()) {
      passes.push_back(found->second);
      passes.back().by_order = range.by_order;
    }
  }
  return passes;
}

//! With ranges, each one is its pass (a compute activity) and NCCL kernels take the label of the
//! range they were launched in (or, without launches, start in); without, every kernel is an
//! unlabelled activity. Host ranges are placed on the GPU through the kernels' launches.
RankActivities activities_of(const TraceFile& file, const KinetoEvents& events,
                             const std::map<std::string, std::vector<int>>& groups) {
  const bool launched = !events.launches.empty() && events.gpu_ranges.empty();
  const std::vector<PassRange> passes =
      !events.gpu_ranges.empty() ? events.gpu_ranges : (launched ? placed_on_gpu(file, events) : events.cpu_ranges);
  RankActivities result;
  for (const auto& pass : passes) {
    result.activities.push_back(
        {ActivityKind::compute, pass.label.phase, pass.label.microbatch, pass.start, pass.end, pass.by_order});
  }
  for (const auto& kernel : events.kernels) {
    const bool collective = is_collective_kernel(kernel.name);
    if (!passes.empty() && !collective) continue;
    Activity activity{collective ? ActivityKind::collective : ActivityKind::compute, std::nullopt, -1, kernel.start,
                      kernel.end};
    const auto launch = launched ? launch_of(file, events, kernel) : std::nullopt;
    const PassRange* pass = launch ? enclosing(events.cpu_ranges, *launch) : enclosing(passes, kernel.start);
    if (pass != nullptr) {
      activity.phase = pass->label.phase;
      activity.microbatch = pass->label.microbatch;
      activity.microbatch_by_order = pass->by_order;
    }
    if (collective) {
      if (auto group = measured_group(file, kernel, groups)) {
        result.groups.push_back({result.activities.size(), std::move(*group)});
      }
    }
    result.activities.push_back(activity);
  }
  return result;
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

void set_bounds(FileTrace& trace, const KinetoEvents& events, const std::vector<Activity>& activities) {
  trace.begin = std::numeric_limits<SimTime>::max();
  trace.end = std::numeric_limits<SimTime>::min();
  const auto widen = [&trace](SimTime start, SimTime end) {
    trace.begin = std::min(trace.begin, start);
    trace.end = std::max(trace.end, end);
  };
  for (const auto& kernel : events.kernels) widen(kernel.start, kernel.end);
  for (const auto& activity : activities) widen(activity.start, activity.end);
}

bool has_by_order_ranges(const KinetoEvents& events) {
  return events.gpu_ranges.empty() && std::any_of(events.cpu_ranges.begin(), events.cpu_ranges.end(),
                                                  [](const PassRange& range) { return range.by_order; });
}

}  // namespace

bool is_collective_kernel(std::string_view name) {
  return name.starts_with("ncclKernel") || name.starts_with("ncclDevKernel") || name.starts_with(kGlooOpPrefix);
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
  trace.communication = compare::CommunicationDetail::groups;
  compare::RankTimeline rank;
  rank.rank = first_rank;
  rank.file = file.path;
  read_distributed_info(file, trace, rank);
  const KinetoEvents events = sort_events(file);
  if (events.kernels.empty() && events.gpu_ranges.empty() && events.cpu_ranges.empty()) {
    throw InputError(file.path + ": no GPU kernels (cat 'kernel'), no gloo collectives and no ranges that mark "
                                 "passes, so nothing to compare; a measured trace is a PyTorch profiler trace or a "
                                 "distsim runner trace");
  }
  auto [activities, groups] = activities_of(file, events, process_groups(file));
  trace.pass_labels = std::any_of(activities.begin(), activities.end(),
                                  [](const Activity& activity) { return activity.phase.has_value(); });
  trace.microbatches_by_order = has_by_order_ranges(events);
  set_bounds(trace, events, activities);
  rank.activities = std::move(activities);
  trace.ranks.push_back(std::move(rank));
  trace.groups.push_back(std::move(groups));
  return trace;
}

}  // namespace distsim::io::trace_format
