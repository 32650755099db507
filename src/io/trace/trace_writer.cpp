#include "io/trace/trace_writer.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "events/phase.hpp"
#include "events/stream_kind.hpp"
#include "io/output/summary_writer.hpp"
#include "io/trace/device_timelines.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::io {

using strategy::ParallelDim;

namespace {

using engine::StreamId;
using engine::TaskId;
using Buffer = fmt::memory_buffer;

void append(Buffer& buffer, std::string_view text) { buffer.append(text.data(), text.data() + text.size()); }

void append_escaped(Buffer& buffer, std::string_view text) {
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      buffer.push_back('\\');
      buffer.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      fmt::format_to(std::back_inserter(buffer), "\\u{:04x}", static_cast<int>(c));
    } else {
      buffer.push_back(c);
    }
  }
}

//! Appends `text` followed by `suffix` as one JSON string literal.
void append_quoted(Buffer& buffer, std::string_view text, std::string_view suffix = {}) {
  buffer.push_back('"');
  append_escaped(buffer, text);
  append_escaped(buffer, suffix);
  buffer.push_back('"');
}

//! Microseconds with exactly three decimals from integer nanoseconds, as Kineto writes them
//! (docs/reference/formats.md §1.3): a double would lose nanoseconds once times grow large.
void append_microseconds(Buffer& buffer, SimTime ns) {
  fmt::format_to(std::back_inserter(buffer), "{}.{:03}", ns / 1000, ns % 1000);
}

//! How a computation slice shows its phase in the two viewers. Perfetto colours a slice by a hash
//! of its name and ignores `cname`, so the backward, weight-gradient and recomputation slices carry
//! their phase in the name (" (B)", " (W)", " (R)", as the zero-bubble schedules call the steps);
//! chrome://tracing colours by `cname`, one of the trace viewer's reserved colour names (catapult,
//! tracing/base/color_scheme.html), one per phase, close to the HTML report's colours.
struct PhaseLook {
  std::string_view name_suffix;
  std::string_view colour;
};

PhaseLook phase_look(events::Phase phase) {
  switch (phase) {
    case events::Phase::forward: return {"", "rail_response"};
    case events::Phase::backward: return {" (B)", "rail_idle"};
    case events::Phase::weight_gradient: return {" (W)", "olive"};
    case events::Phase::recompute: return {" (R)", "thread_state_uninterruptible"};
    case events::Phase::optimizer: return {"", "good"};
  }
  return {"", "generic_work"};
}

//! The parts of an activity's args that depend only on its event, rendered once per event:
//! `head` opens the object with the event key, `tail` adds message size, group and cost source
//! and closes it.
struct EventArgs {
  std::string head;
  std::string tail;
};

std::vector<EventArgs> render_event_args(const program::JobProgram& program) {
  std::vector<EventArgs> result;
  for (events::EventId id = 0; id < program.events.size(); ++id) {
    const auto& event = program.events.at(id);
    Buffer head;
    append(head, R"({"event":)");
    append_quoted(head, event.key());
    Buffer tail;
    if (event.is_communication()) {
      fmt::format_to(std::back_inserter(tail), R"(,"bytes":{},"group":{})", event.bytes, event.group_size);
    }
    fmt::format_to(std::back_inserter(tail), R"(,"source":"{}"}})", cost::cost_source_name(program.costs[id].source));
    result.push_back({fmt::to_string(head), fmt::to_string(tail)});
  }
  return result;
}

class ChromeTraceWriter {
 public:
  ChromeTraceWriter(std::ostream& out, const api::Simulation& simulation)
      : out_(out),
        simulation_(simulation),
        program_(simulation.program),
        layout_(simulation.job.strategy, simulation.job.cluster),
        timelines_(simulation),
        event_args_(render_event_args(simulation.program)) {}

  void write(TraceRanks ranks, const std::function<void(std::size_t, std::size_t)>& progress) {
    const auto ranks_shown = shown_ranks(layout_, ranks == TraceRanks::all);
    std::size_t total = 0;
    for (const int rank : ranks_shown) {
      total += timelines_.of(device_of(rank)).size();
    }
    out_ << "{\"traceEvents\":[\n";
    for (const int rank : ranks_shown) {
      write_rank(rank);
      if (progress) {
        progress(activities_written_, total);
      }
    }
    out_ << "\n],\"displayTimeUnit\":\"ms\",\"otherData\":" << other_data(ranks).dump() << "}\n";
  }

  //! Bytes of the trace: each shown rank's metadata and activities, an activity priced at the mean
  //! size of its device's first kSampled activities rendered (not written) in full.
  TraceSizeEstimate estimate(TraceRanks ranks) {
    constexpr std::size_t kSampled = 64;
    constexpr std::uint64_t kEnvelopeBytes = 4096;  // the opening line and otherData
    TraceSizeEstimate result{0, kEnvelopeBytes, 0};
    std::vector<double> mean_bytes(program_.devices.size(), -1.0);
    for (const int rank : shown_ranks(layout_, ranks == TraceRanks::all)) {
      const std::size_t device = device_of(rank);
      const auto activities = timelines_.of(device);
      if (mean_bytes[device] < 0) {
        const std::uint64_t before = bytes_emitted_;
        const auto sampled = std::min(kSampled, activities.size());
        for (std::size_t i = 0; i < sampled; ++i) {
          write_activity(rank, layout_.coord_of(rank), activities[i]);
        }
        mean_bytes[device] =
            sampled == 0 ? 0.0 : static_cast<double>(bytes_emitted_ - before) / static_cast<double>(sampled);
      }
      const std::uint64_t before = bytes_emitted_;
      write_metadata(rank);
      result.bytes += bytes_emitted_ - before;
      result.bytes += static_cast<std::uint64_t>(mean_bytes[device] * static_cast<double>(activities.size()));
      result.activities += activities.size();
      ++result.ranks;
    }
    return result;
  }

 private:
  std::size_t device_of(int rank) const { return static_cast<size_t>(program_.device_for_rank(layout_, rank)); }

  void emit() {
    if (written_any_) {
      out_.write(",\n", 2);
    }
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    bytes_emitted_ += buffer_.size() + 2;
    buffer_.clear();
    written_any_ = true;
  }

  void write_rank(int rank) {
    write_metadata(rank);
    const auto coord = layout_.coord_of(rank);
    for (const Activity& activity : timelines_.of(device_of(rank))) {
      write_activity(rank, coord, activity);
      ++activities_written_;
    }
  }

  void write_metadata(int rank) {
    const auto coord = layout_.coord_of(rank);
    const auto device = device_of(rank);
    auto out = std::back_inserter(buffer_);
    const std::string context =
        simulation_.job.strategy.context_parallel > 1 ? fmt::format(", cp {}", coord[ParallelDim::cp]) : "";
    fmt::format_to(out,
                   R"({{"ph":"M","name":"process_name","pid":{},"tid":0,"args":{{"name":)"
                   R"json("rank {} (node {}, stage {}, tp {}{}, dp {})"}}}})json",
                   rank, rank, layout_.host_of(rank), coord[ParallelDim::pp], coord[ParallelDim::tp], context,
                   coord[ParallelDim::dp]);
    emit();
    fmt::format_to(out, R"({{"ph":"M","name":"process_sort_index","pid":{},"tid":0,"args":{{"sort_index":{}}}}})", rank,
                   rank);
    emit();
    for (const auto& stream : events::kStreamKindTable) {
      if (!timelines_.uses(device, stream.kind)) {
        continue;
      }
      const int k = static_cast<int>(stream.kind);
      fmt::format_to(out, R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"{}"}}}})", rank, k,
                     stream.label);
      emit();
      fmt::format_to(out, R"({{"ph":"M","name":"thread_sort_index","pid":{},"tid":{},"args":{{"sort_index":{}}}}})",
                     rank, k, k);
      emit();
    }
  }

  void write_activity(int rank, strategy::RankCoord coord, const Activity& activity) {
    const TaskId task = activity.task;
    const auto& info = program_.tasks[task];
    const SimTime start = activity.start;
    const auto kind = program_.streams[activity.stream].kind;
    auto out = std::back_inserter(buffer_);
    // The category is the fixed vocabulary of formats.md §1.9, usable as a filter in the viewer.
    fmt::format_to(out, R"({{"ph":"X","cat":"{}","name":)", events::stream_kind_info(kind).trace_category);
    if (kind == events::StreamKind::compute) {
      const PhaseLook look = phase_look(info.phase);
      append_quoted(buffer_, info.label, look.name_suffix);
      fmt::format_to(out, R"(,"cname":"{}")", look.colour);
    } else {
      append_quoted(buffer_, info.label);
    }
    fmt::format_to(out, R"(,"pid":{},"tid":{},"ts":)", rank, static_cast<int>(kind));
    append_microseconds(buffer_, start);
    append(buffer_, R"(,"dur":)");
    append_microseconds(buffer_, activity.end - start);
    append(buffer_, R"(,"args":)");
    const auto& args = event_args_[info.event];
    append(buffer_, args.head);
    fmt::format_to(out, R"(,"phase":"{}")", events::phase_name(info.phase));
    if (activity.microbatch >= 0) {
      fmt::format_to(out, R"(,"mb":{})", activity.microbatch);
    }
    if (info.layer >= 0) {
      fmt::format_to(out, R"(,"layer":{})", info.layer);
    }
    append(buffer_, args.tail);
    append(buffer_, "}");
    emit();
    const auto streams = program_.program.streams(task);
    if (program_.events.at(info.event).collective == events::Collective::send_recv && streams.size() == 2) {
      write_flow_end(rank, coord, activity, activity.stream == streams[0]);
    }
  }

  //! One end of the arrow from a pipeline send to its receive. A transfer task runs on the
  //! sender's send stream first and the receiver's recv stream second; both ends share an id
  //! made from the task's appearance and the sending rank, so each (transfer, rank pair) gets its
  //! own arrow.
  void write_flow_end(int rank, strategy::RankCoord coord, const Activity& activity, bool sending) {
    const auto streams = program_.program.streams(activity.task);
    const int sender = sending ? rank : peer_rank(coord, static_cast<size_t>(program_.streams[streams[0]].device));
    const std::uint64_t id = timelines_.appearance_id(activity) * static_cast<std::uint64_t>(layout_.world_size()) +
                             static_cast<std::uint64_t>(sender);
    const auto tid = static_cast<int>(program_.streams[sending ? streams[0] : streams[1]].kind);
    auto out = std::back_inserter(buffer_);
    fmt::format_to(out, R"({{"ph":"{}","id":{},"cat":"p2p","name":"p2p","pid":{},"tid":{},"ts":)", sending ? "s" : "f",
                   id, rank, tid);
    append_microseconds(buffer_, activity.start);
    append(buffer_, sending ? "}" : R"(,"bp":"e"})");
    emit();
  }

  //! The rank at the other end of a transfer: the rank of the peer device's stage at this rank's
  //! tensor, context and data position (a device may stand for other ranks than its own).
  int peer_rank(strategy::RankCoord coord, size_t peer_device) const {
    return layout_.rank_of(coord.with(ParallelDim::pp, program_.devices[peer_device].coord[ParallelDim::pp]));
  }

  nlohmann::json other_data(TraceRanks ranks) const {
    nlohmann::json data = job_json(simulation_.job, program_);
    data["job"] = job_settings_json(simulation_.job);
    data["trace_ranks"] = ranks == TraceRanks::all ? "all" : "replica (dp 0)";
    data["iteration_time_ns"] = simulation_.summary.iteration_time;
    return data;
  }

  std::ostream& out_;
  const api::Simulation& simulation_;
  const program::JobProgram& program_;
  strategy::RankLayout layout_;
  DeviceTimelines timelines_;
  std::vector<EventArgs> event_args_;
  Buffer buffer_;
  bool written_any_ = false;
  std::uint64_t bytes_emitted_ = 0;
  std::size_t activities_written_ = 0;
};

}  // namespace

TraceRanks parse_trace_ranks(const std::string& text) {
  if (text == "replica") return TraceRanks::replica;
  if (text == "all") return TraceRanks::all;
  throw InputError("--trace-ranks: " + unknown_name_message("value", text, {"replica", "all"}));
}

void write_chrome_trace(std::ostream& out, const api::Simulation& simulation, TraceRanks ranks,
                        const std::function<void(std::size_t, std::size_t)>& progress) {
  ChromeTraceWriter(out, simulation).write(ranks, progress);
}

TraceSizeEstimate estimate_chrome_trace(const api::Simulation& simulation, TraceRanks ranks) {
  std::ostream nowhere(nullptr);  // rendered to count bytes, written nowhere
  return ChromeTraceWriter(nowhere, simulation).estimate(ranks);
}

}  // namespace distsim::io
