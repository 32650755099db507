#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/measured_group.hpp"
#include "compare/timeline.hpp"
#include "whatif/measured_trace.hpp"

//! The parts of trace_reader shared by its per-format readers; not for use outside them.
namespace distsim::io::trace_format {

//! One parsed trace file: its path as given, and its top level, checked to be an object with a
//! "traceEvents" list.
struct TraceFile {
  std::string path;
  nlohmann::json root;
};

//! Reads and parses a trace, plain or gzip-compressed, held to a share of the machine's memory;
//! `what` names it in errors ("predicted trace"). Throws InputError when the file cannot be read or
//! is not JSON (with the line).
nlohmann::json load_trace_json(const std::string& path, std::string_view what);
//! load_trace_json, its top level checked to be an object with a traceEvents list.
TraceFile load_trace_file(const std::string& path, std::string_view what);
//! A parsed trace, its top level checked as load_trace_file checks it.
TraceFile trace_file(const std::string& path, nlohmann::json root);

//! A complete ("X") event with its times checked and converted to nanoseconds.
struct TimedEvent {
  std::size_t index = 0;  //!< position in traceEvents, for messages
  const nlohmann::json* event = nullptr;
  std::string name;
  std::string category;  //!< "cat", or "" when absent
  SimTime start = 0;
  SimTime end = 0;
};

//! Every "X" event of the trace, in file order. Throws InputError naming the file and the event
//! when an entry is not an object, or an X event lacks a numeric ts or a non-negative dur.
std::vector<TimedEvent> timed_events(const TraceFile& file);

//! "x.json: traceEvents[7] ('qkv')": the place of an event in messages.
std::string where(const TraceFile& file, const TimedEvent& event);

//! Microseconds (as traces write them) to whole nanoseconds.
SimTime microseconds_to_ns(double microseconds);
//! Whether a time in microseconds is one the nanosecond clock holds as a difference and an end.
bool in_clock_range(double microseconds);
//! Throws InputError at `place` saying that `key`'s time is outside in_clock_range.
[[noreturn]] void out_of_clock_range(double microseconds, std::string_view key, const std::string& place);

//! The phase named in a trace (fwd, bwd, recompute, optim); throws InputError at `place`,
//! suggesting the closest name.
events::Phase parse_phase(std::string_view name, const std::string& place);

//! The activity kind of an event with category `category` on thread `tid`: distsim's own
//! categories (comp, tp_comm, pp_send, pp_recv, dp_comm; the pipeline direction comes from the
//! tid, which is the stream kind) and the CPU runner's (one per stream kind: compute, tp_comm,
//! pp_send_next, ...) both map to the stream kinds. Throws InputError at `place`.
compare::ActivityKind parse_category(std::string_view category, int tid, const std::string& place);

//! The phase and micro-batch of a distsim or runner activity from its "args"; throws
//! InputError at `place` when args.phase is missing or unknown, or args.mb is not a count.
compare::Activity labelled_activity(const TimedEvent& event, compare::ActivityKind kind, const std::string& place);

//! An integer member of `object`; throws InputError naming `place` and `key` when missing or not an integer.
int required_int(const nlohmann::json& object, std::string_view key, const std::string& place);
//! A string member of `object`, or `fallback` when it is absent; throws InputError naming `place`
//! and `key` when it holds something other than a string.
std::string optional_string(const nlohmann::json& object, std::string_view key, const std::string& place,
                            const std::string& fallback = "");
//! A number member of `object` (in µs) as nanoseconds; throws InputError like required_int.
SimTime required_microseconds(const nlohmann::json& object, std::string_view key, const std::string& place);

//! A communication activity's partners as its trace states them: `activity` indexes its rank's
//! activities as read (before any sorting).
struct ActivityGroup {
  std::size_t activity = 0;
  compare::MeasuredGroup group;
};

//! What one measured or predicted file says: its ranks' activities, the job when it states it,
//! and the bounds of its iteration.
struct FileTrace {
  std::string format;
  std::optional<strategy::Strategy> job;  //!< tp, pp, dp when the file states them
  std::optional<int> world_size;          //!< when the file states it
  bool coords_known = false;              //!< whether the ranks' coordinates are filled in
  bool pass_labels = true;
  bool microbatches_by_order = false;  //!< compare::Timeline::microbatches_by_order
  compare::CommunicationDetail communication = compare::CommunicationDetail::streams;
  SimTime begin = 0;
  SimTime end = 0;
  std::vector<compare::RankTimeline> ranks;  //!< ordered by rank
  //! Per rank of `ranks` (or none), the communication whose kind its group decides
  //! (compare::measured_communication_kind, once the job is known).
  std::vector<std::vector<ActivityGroup>> groups;
};

//! Ranges a program names distsim:<phase>[:mb=<n>] mark its passes (docs/compare.md).
inline constexpr std::string_view kPassLabelPrefix = "distsim:";
//! The pass a range names.
struct PassLabel {
  events::Phase phase = events::Phase::forward;
  int microbatch = -1;
};
//! PyTorch's pipelining schedules name each action's range PP:<stage><action>[<micro-batch>].
inline constexpr std::string_view kPipeliningRangePrefix = "PP:";
//! Reads a range name that starts with kPassLabelPrefix; throws InputError at `place` when the
//! phase or the micro-batch is not one.
PassLabel parse_pass_label(std::string_view name, const std::string& place);
//! ProcessGroupGloo names the host op of each collective gloo:<collective> (gloo:send, gloo:all_reduce).
inline constexpr std::string_view kGlooOpPrefix = "gloo:";
//! Whether a GPU kernel is one of NCCL's (its name starts ncclKernel or ncclDevKernel), or a host
//! op one of gloo's, the communication of a run on CPUs.
bool is_collective_kernel(std::string_view name);

//! Whether the file is a CPU runner trace (it has "distsim_runner") or distsim's own (it has
//! otherData.iteration_time_ns); anything else is read as a PyTorch profiler trace.
bool is_runner_trace(const TraceFile& file);
bool is_distsim_trace(const TraceFile& file);

FileTrace read_distsim_trace(const TraceFile& file);
//! The operations of a Megatron step that distsim's own trace makes, for `whatif`
//! (whatif::simulated_operations, docs/whatif.md).
whatif::MeasuredTrace read_distsim_steps(const TraceFile& file);
FileTrace read_runner_trace(const TraceFile& file);
//! `first_rank` is the rank when the trace has no distributedInfo: the count of ranks the files
//! before it hold, so that file order gives the rank.
FileTrace read_kineto_trace(const TraceFile& file, int first_rank);
//! Whether the file is an SQLite database (it starts with SQLite's header string), which measured
//! traces are only as Nsight Systems exports.
bool is_nsys_export(const std::string& path);
//! An Nsight Systems SQLite export (nsys export --type sqlite): one rank per GPU it traced, in the
//! order of their device ids from `first_rank`; kernels are activities, NCCL kernels collectives;
//! NVTX ranges named distsim:<phase>[:mb=<n>] are passes, placed on the GPU through the kernels
//! they launched (docs/compare.md). Times are aligned by the session's start.
FileTrace read_nsys_trace(const std::string& path, int first_rank);

}  // namespace distsim::io::trace_format
