#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "io/text_file.hpp"
#include "io/trace_reader_formats.hpp"

namespace distsim::io::trace_format {

namespace {

using nlohmann::json;

json parse_json(const std::string& path, const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // what() starts with "[json.exception.parse_error.101] "; the rest says where and why.
    const std::string detail = e.what();
    const std::size_t start = detail.find("] ");
    throw InputError(path + ": invalid JSON: " + (start == std::string::npos ? detail : detail.substr(start + 2)));
  }
}

const std::vector<std::string>& phase_names() {
  static const std::vector<std::string> names{"fwd", "bwd", "recompute", "optim"};
  return names;
}

const std::vector<std::string>& category_names() {
  static const std::vector<std::string> names{"comp",          "compute",      "tp_comm",      "pp_send",
                                              "pp_recv",       "pp_send_next", "pp_recv_prev", "pp_send_prev",
                                              "pp_recv_next",  "dp_comm",      "cp_comm"};
  return names;
}

std::optional<compare::ActivityKind> kind_of_stream_tid(int tid) {
  if (tid < 0 || tid >= events::kStreamKinds) {
    return std::nullopt;
  }
  return static_cast<compare::ActivityKind>(tid);
}

//! distsim's merged pipeline categories: the thread says which direction.
compare::ActivityKind pipeline_kind(std::string_view category, int tid, const std::string& place) {
  using compare::ActivityKind;
  const auto kind = kind_of_stream_tid(tid);
  const bool send = category == "pp_send";
  if (kind && (send ? (*kind == ActivityKind::pp_send_next || *kind == ActivityKind::pp_send_prev)
                    : (*kind == ActivityKind::pp_recv_prev || *kind == ActivityKind::pp_recv_next))) {
    return *kind;
  }
  throw InputError(fmt::format("{}: category '{}' on thread {}; distsim writes it on threads {} (stream kinds)", place,
                               category, tid, send ? "2 and 4" : "3 and 5"));
}

}  // namespace

TraceFile load_trace_file(const std::string& path, std::string_view what) {
  TraceFile file{path, parse_json(path, read_text_file(path, what))};
  if (!file.root.is_object() || !file.root.contains("traceEvents") || !file.root["traceEvents"].is_array()) {
    throw InputError(path + ": no 'traceEvents' list; a trace is a JSON object whose 'traceEvents' lists Chrome "
                            "trace events");
  }
  return file;
}

std::string where(const TraceFile& file, const TimedEvent& event) {
  return fmt::format("{}: traceEvents[{}] ('{}')", file.path, event.index, event.name);
}

SimTime microseconds_to_ns(double microseconds) { return static_cast<SimTime>(std::llround(microseconds * 1000.0)); }

std::vector<TimedEvent> timed_events(const TraceFile& file) {
  std::vector<TimedEvent> result;
  const auto& list = file.root["traceEvents"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& event = list[i];
    if (!event.is_object()) {
      throw InputError(fmt::format("{}: traceEvents[{}] is not an object", file.path, i));
    }
    if (event.value("ph", "") != "X") {
      continue;
    }
    TimedEvent timed{i, &event, event.value("name", ""), event.value("cat", ""), 0, 0};
    const auto ts = event.find("ts");
    const auto dur = event.find("dur");
    for (const auto& [key, value] : {std::pair{"ts", ts}, std::pair{"dur", dur}}) {
      if (value == event.end() || !value->is_number()) {
        throw InputError(fmt::format("{}: no numeric '{}'; a complete (\"X\") event needs ts and dur in microseconds",
                                     where(file, timed), key));
      }
    }
    if (dur->get<double>() < 0) {
      throw InputError(fmt::format("{}: negative dur {}", where(file, timed), dur->get<double>()));
    }
    timed.start = microseconds_to_ns(ts->get<double>());
    timed.end = timed.start + microseconds_to_ns(dur->get<double>());
    result.push_back(std::move(timed));
  }
  return result;
}

events::Phase parse_phase(std::string_view name, const std::string& place) {
  const auto& names = phase_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) {
      return static_cast<events::Phase>(i);
    }
  }
  throw InputError(place + ": " + unknown_name_message("phase", name, names));
}

compare::ActivityKind parse_category(std::string_view category, int tid, const std::string& place) {
  using compare::ActivityKind;
  if (category == "comp") {
    return ActivityKind::compute;
  }
  if (category == "pp_send" || category == "pp_recv") {
    return pipeline_kind(category, tid, place);
  }
  for (int k = 0; k < events::kStreamKinds; ++k) {
    const auto kind = static_cast<ActivityKind>(k);
    if (compare::activity_kind_name(kind) == category) {
      return kind;
    }
  }
  throw InputError(place + ": " + unknown_name_message("category", category, category_names()));
}

compare::Activity labelled_activity(const TimedEvent& event, compare::ActivityKind kind, const std::string& place) {
  compare::Activity activity{kind, std::nullopt, -1, event.start, event.end};
  static const json no_args = json::object();
  const auto found = event.event->find("args");
  const json& args = found != event.event->end() ? *found : no_args;
  const auto phase = args.find("phase");
  if (!args.is_object() || phase == args.end() || !phase->is_string()) {
    throw InputError(place + ": no args.phase (one of fwd, bwd, recompute, optim)");
  }
  activity.phase = parse_phase(phase->get<std::string>(), place);
  if (const auto mb = args.find("mb"); mb != args.end()) {
    if (!mb->is_number_integer() || mb->get<int>() < 0) {
      throw InputError(fmt::format("{}: args.mb is {}; expected a micro-batch index (0, 1, ...)", place, mb->dump()));
    }
    activity.microbatch = mb->get<int>();
  }
  return activity;
}

int required_int(const json& object, std::string_view key, const std::string& place) {
  const auto value = object.find(key);
  if (value == object.end() || !value->is_number_integer()) {
    throw InputError(fmt::format("{}: no integer '{}'", place, key));
  }
  return value->get<int>();
}

SimTime required_microseconds(const json& object, std::string_view key, const std::string& place) {
  const auto value = object.find(key);
  if (value == object.end() || !value->is_number()) {
    throw InputError(fmt::format("{}: no number '{}' (microseconds)", place, key));
  }
  return microseconds_to_ns(value->get<double>());
}

}  // namespace distsim::io::trace_format
