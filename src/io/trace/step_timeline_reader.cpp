#include "io/trace/step_timeline_reader.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "core/plain_text.hpp"
#include "io/trace/trace_reader_formats.hpp"

namespace distsim::io {

namespace {

using nlohmann::json;

//! Where a thread's operations run: its pipeline stage and tensor-parallel rank.
struct ThreadPlace {
  int stage = 0;
  int tp = 0;
};

struct ReadOp {
  whatif::MeasuredOp op;
  int tp = 0;
};

std::string place(const std::string& path, std::size_t index) {
  return fmt::format("{}: traceEvents[{}]", path, index);
}

//! The number after `label` in a thread name's comma-separated parts ("PP rank 3"), or none.
std::optional<int> rank_in(std::string_view name, std::string_view label) {
  std::size_t from = 0;
  while (from <= name.size()) {
    const std::size_t comma = std::min(name.find(',', from), name.size());
    const std::string part = trimmed(name.substr(from, comma - from));
    if (part.rfind(label, 0) == 0) {
      const std::string number = trimmed(std::string_view(part).substr(label.size()));
      if (!number.empty() && std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
          number.size() < 10) {
        return std::stoi(number);
      }
      return std::nullopt;
    }
    from = comma + 1;
  }
  return std::nullopt;
}

ThreadPlace thread_place(const json& event, const std::string& where) {
  const json* args = event.contains("args") ? &event["args"] : nullptr;
  if (args == nullptr || !args->is_object() || !args->contains("name") || !(*args)["name"].is_string()) {
    throw InputError(where + ": a thread_name event without args.name");
  }
  const std::string name = (*args)["name"].get<std::string>();
  const auto stage = rank_in(name, "PP rank");
  const auto tp = rank_in(name, "TP rank");
  if (!stage || !tp) {
    throw InputError(fmt::format("{}: thread name '{}'; expected 'PP rank S, TP rank T, STREAM' (the stage and "
                                 "tensor-parallel rank of the thread's operations)",
                                 where, name));
  }
  return {*stage, *tp};
}

int whole_number(const json& value, const std::string& where, std::string_view key) {
  if (!value.is_number_integer() || value.get<long long>() < 0 || value.get<long long>() > 2'147'483'647) {
    throw InputError(fmt::format("{}: '{}' {}; expected a whole number of at least 0", where, key, value.dump()));
  }
  return static_cast<int>(value.get<long long>());
}

double microseconds(const json& event, std::string_view key, const std::string& where, bool non_negative) {
  const auto found = event.find(key);
  if (found == event.end() || !found->is_number()) {
    throw InputError(fmt::format("{}: no number '{}' (microseconds)", where, key));
  }
  const double value = found->get<double>();
  if (!trace_format::in_clock_range(value)) trace_format::out_of_clock_range(value, key, where);
  if (non_negative && value < 0) {
    throw InputError(
        fmt::format("{}: '{}' {} is out of range; expected microseconds of at least 0", where, key, found->dump()));
  }
  return value;
}

int arg(const json& event, std::string_view key, const std::string& where) {
  const auto args = event.find("args");
  if (args == event.end() || !args->is_object() || !args->contains(key)) {
    throw InputError(fmt::format("{}: no 'args.{}'", where, key));
  }
  return whole_number((*args)[std::string(key)], where, "args." + std::string(key));
}

whatif::OpRole role_of(const json& event, const std::string& where) {
  const std::string name = trace_format::optional_string(event, "name", where);
  if (const auto role = whatif::find_role(name)) return *role;
  std::vector<std::string> known;
  for (const auto& info : whatif::op_roles()) known.emplace_back(info.name);
  throw InputError(where + ": " + unknown_name_message("operation type", name, known));
}

json events_of(const std::string& path, json root) {
  if (root.is_object() && root.contains("traceEvents")) root = std::move(root["traceEvents"]);
  if (!root.is_array()) {
    throw InputError("trace '" + path + "': expected Chrome trace events, a JSON list or an object with 'traceEvents'");
  }
  return root;
}

std::map<std::pair<int, int>, ThreadPlace> thread_places(const json& events, const std::string& path) {
  std::map<std::pair<int, int>, ThreadPlace> places;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const json& event = events[i];
    const std::string where = place(path, i);
    if (!event.is_object() || trace_format::optional_string(event, "ph", where) != "M" ||
        trace_format::optional_string(event, "name", where) != "thread_name") {
      continue;
    }
    const int pid = whole_number(event.value("pid", json()), where, "pid");
    const int tid = whole_number(event.value("tid", json()), where, "tid");
    places[{pid, tid}] = thread_place(event, where);
  }
  return places;
}

ReadOp read_op(const json& event, const std::map<std::pair<int, int>, ThreadPlace>& places, const std::string& where) {
  const int pid = whole_number(event.value("pid", json()), where, "pid");
  const int tid = whole_number(event.value("tid", json()), where, "tid");
  const auto thread = places.find({pid, tid});
  if (thread == places.end()) {
    throw InputError(
        fmt::format("{}: thread {} of process {} has no thread_name event naming its stage", where, tid, pid));
  }
  ReadOp read;
  read.tp = thread->second.tp;
  read.op.dp = pid;
  read.op.stage = thread->second.stage;
  read.op.role = role_of(event, where);
  read.op.step = arg(event, "step", where);
  read.op.seq = arg(event, "seq_id", where);
  read.op.start_s = microseconds(event, "ts", where, false) * 1e-6;
  // A transfer's time is its end less the last start of its group, which ranks on other hosts
  // timed by other clocks: where those disagree it comes out a little below 0.
  const bool transfer = whatif::role_info(read.op.role).sync != whatif::OpSync::none;
  read.op.duration_s = microseconds(event, "dur", where, !transfer) * 1e-6;
  return read;
}

//! Each step's times from its first operation.
void start_steps_at_zero(whatif::MeasuredTrace& trace) {
  std::map<int, double> first;
  for (const auto& op : trace.ops) {
    const auto [at, added] = first.emplace(op.step, op.start_s);
    if (!added) at->second = std::min(at->second, op.start_s);
  }
  for (auto& op : trace.ops) op.start_s -= first[op.step];
}

}  // namespace

whatif::MeasuredTrace read_step_timeline(const std::string& path) {
  trace_format::TraceFile file{path, trace_format::load_trace_json(path, "trace")};
  if (trace_format::is_distsim_trace(file)) {
    return trace_format::read_distsim_steps(trace_format::trace_file(path, std::move(file.root)));
  }
  const json events = events_of(path, std::move(file.root));
  const auto places = thread_places(events, path);
  std::vector<ReadOp> read;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const json& event = events[i];
    if (!event.is_object()) throw InputError(place(path, i) + ": expected an event object");
    const std::string phase = trace_format::optional_string(event, "ph", place(path, i));
    if (phase == "M") continue;
    if (phase != "X") {
      throw InputError(
          fmt::format("{}: phase '{}'; expected complete events (ph X) and metadata (ph M)", place(path, i), phase));
    }
    read.push_back(read_op(event, places, place(path, i)));
  }
  if (read.empty()) throw InputError("trace '" + path + "' holds no operations (complete events, ph X)");
  const int tp =
      std::min_element(read.begin(), read.end(), [](const ReadOp& a, const ReadOp& b) { return a.tp < b.tp; })->tp;
  whatif::MeasuredTrace trace;
  std::size_t below_zero = 0;
  std::size_t other_tp = 0;
  double lowest = 0;
  for (auto op : read) {
    if (op.tp != tp) {
      ++other_tp;
      continue;
    }
    if (op.op.duration_s < 0) {
      ++below_zero;
      lowest = std::min(lowest, op.op.duration_s);
      op.op.duration_s = 0;
    }
    trace.ops.push_back(op.op);
  }
  if (below_zero > 0) {
    trace.notes.push_back(
        fmt::format("{} transfers measured below 0 (down to {:.1f} us: the clocks of the ranks' hosts "
                    "disagree) are read as 0",
                    below_zero, lowest * 1e6));
  }
  if (other_tp > 0) {
    trace.notes.push_back(fmt::format("{} operations of tensor-parallel ranks other than {} are not read: the "
                                      "lowest tensor-parallel rank stands for its stage",
                                      other_tp, tp));
  }
  start_steps_at_zero(trace);
  return trace;
}

}  // namespace distsim::io
