#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "io/document/document.hpp"
#include "io/document/text_file.hpp"
#include "io/trace/trace_reader_formats.hpp"

namespace distsim::io::trace_format {

namespace {

using nlohmann::json;

json parse_json(const std::string& path, const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::exception&) {
    check_json(path, text);  // throws the problem with its line and key
    throw;
  }
}

// Kineto writes absolute times, microseconds since 1970 (about 1.7e15 in 2024); bounding both
// start and duration at 4e15 µs keeps every end time and difference inside the nanosecond clock.
constexpr double kLatestMicroseconds = 4e15;

const std::vector<std::string>& phase_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    all.reserve(events::kPhases.size());
    for (const events::Phase phase : events::kPhases) {
      all.emplace_back(events::phase_name(phase));
    }
    return all;
  }();
  return names;
}

//! The categories a trace may use: distsim's trace categories and the stream kinds' identifiers
//! (the CPU runner's), in stream order, each once.
const std::vector<std::string>& category_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    const auto add = [&all](std::string_view name) {
      if (std::find(all.begin(), all.end(), name) == all.end()) {
        all.emplace_back(name);
      }
    };
    for (const auto& stream : events::kStreamKindTable) {
      add(stream.trace_category);
      add(stream.id);
    }
    return all;
  }();
  return names;
}

//! The threads (stream kinds) on which distsim writes `category`, e.g. "2 and 4".
std::string threads_of(std::string_view category) {
  std::string threads;
  for (const auto& stream : events::kStreamKindTable) {
    if (stream.trace_category == category) {
      threads += (threads.empty() ? "" : " and ") + std::to_string(static_cast<int>(stream.kind));
    }
  }
  return threads;
}

//! A category that distsim's traces share between several stream kinds (a pipeline send to the
//! next or to the previous stage): the thread says which.
compare::ActivityKind shared_category_kind(std::string_view category, int tid, const std::string& place) {
  for (const auto& stream : events::kStreamKindTable) {
    if (stream.trace_category == category && static_cast<int>(stream.kind) == tid) {
      return compare::activity_kind(stream.kind);
    }
  }
  throw InputError(fmt::format("{}: category '{}' on thread {}; distsim writes it on threads {} (stream kinds)", place,
                               category, tid, threads_of(category)));
}

}  // namespace

nlohmann::json load_trace_json(const std::string& path, std::string_view what) {
  // A trace of every rank of a long run reaches gigabytes; the machine's memory bounds it.
  constexpr std::size_t kLargestTrace = std::size_t{16} << 30;
  return parse_json(path, read_possibly_gzipped_file(path, what, largest_parsed_file(kLargestTrace), kParsedFileLimit));
}

TraceFile load_trace_file(const std::string& path, std::string_view what) {
  return trace_file(path, load_trace_json(path, what));
}

TraceFile trace_file(const std::string& path, nlohmann::json root) {
  // The Chrome trace format's other form, a bare list of events (its "JSON Array Format"), is what
  // PyTorch's profiler writes when it is built without Kineto.
  if (root.is_array()) root = json{{"traceEvents", std::move(root)}};
  TraceFile file{path, std::move(root)};
  if (!file.root.is_object() || !file.root.contains("traceEvents") || !file.root["traceEvents"].is_array()) {
    throw InputError(path + ": no 'traceEvents' list; a trace is a JSON object whose 'traceEvents' lists Chrome "
                            "trace events, or the list alone");
  }
  return file;
}

std::string where(const TraceFile& file, const TimedEvent& event) {
  return fmt::format("{}: traceEvents[{}] ('{}')", file.path, event.index, event.name);
}

SimTime microseconds_to_ns(double microseconds) { return static_cast<SimTime>(std::llround(microseconds * 1000.0)); }

bool in_clock_range(double microseconds) {
  return std::isfinite(microseconds) && std::abs(microseconds) <= kLatestMicroseconds;
}

[[noreturn]] void out_of_clock_range(double microseconds, std::string_view key, const std::string& place) {
  throw InputError(fmt::format("{}: '{}' {} is out of range; expected microseconds within +-{:g} (127 years)", place,
                               key, microseconds, kLatestMicroseconds));
}

std::vector<TimedEvent> timed_events(const TraceFile& file) {
  std::vector<TimedEvent> result;
  const auto& list = file.root["traceEvents"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& event = list[i];
    if (!event.is_object()) {
      throw InputError(fmt::format("{}: traceEvents[{}] is not an object", file.path, i));
    }
    const std::string place = fmt::format("{}: traceEvents[{}]", file.path, i);
    if (optional_string(event, "ph", place) != "X") {
      continue;
    }
    TimedEvent timed{i, &event, optional_string(event, "name", place), optional_string(event, "cat", place), 0, 0};
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
    for (const auto& [key, value] : {std::pair{"ts", ts}, std::pair{"dur", dur}}) {
      if (!in_clock_range(value->get<double>())) {
        out_of_clock_range(value->get<double>(), key, where(file, timed));
      }
    }
    timed.start = microseconds_to_ns(ts->get<double>());
    timed.end = timed.start + microseconds_to_ns(dur->get<double>());
    result.push_back(std::move(timed));
  }
  return result;
}

events::Phase parse_phase(std::string_view name, const std::string& place) {
  for (const events::Phase phase : events::kPhases) {
    if (events::phase_name(phase) == name) {
      return phase;
    }
  }
  throw InputError(place + ": " + unknown_name_message("phase", name, phase_names()));
}

compare::ActivityKind parse_category(std::string_view category, int tid, const std::string& place) {
  int sharing = 0;
  const events::StreamKindInfo* only = nullptr;
  for (const auto& stream : events::kStreamKindTable) {
    if (stream.id == category) {
      return compare::activity_kind(stream.kind);
    }
    if (stream.trace_category == category) {
      ++sharing;
      only = &stream;
    }
  }
  if (sharing == 1) {
    return compare::activity_kind(only->kind);
  }
  if (sharing > 1) {
    return shared_category_kind(category, tid, place);
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
    throw InputError(place + ": no args.phase (one of " + fmt::format("{}", fmt::join(phase_names(), ", ")) + ")");
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

std::string optional_string(const json& object, std::string_view key, const std::string& place,
                            const std::string& fallback) {
  const auto value = object.find(key);
  if (value == object.end()) {
    return fallback;
  }
  if (!value->is_string()) {
    throw InputError(fmt::format("{}: '{}' is {}; expected a string", place, key, value->dump()));
  }
  return value->get<std::string>();
}

int required_int(const json& object, std::string_view key, const std::string& place) {
  const auto value = object.find(key);
  if (value == object.end() || !value->is_number_integer()) {
    throw InputError(fmt::format("{}: no integer '{}'", place, key));
  }
  if (value->is_number_unsigned()
          ? value->get<std::uint64_t>() > std::numeric_limits<int>::max()
          : value->get<std::int64_t>() < 0 || value->get<std::int64_t>() > std::numeric_limits<int>::max()) {
    throw InputError(fmt::format("{}: '{}' {} is out of range; expected an integer from 0 to {}", place, key,
                                 value->dump(), std::numeric_limits<int>::max()));
  }
  return value->get<int>();
}

SimTime required_microseconds(const json& object, std::string_view key, const std::string& place) {
  const auto value = object.find(key);
  if (value == object.end() || !value->is_number()) {
    throw InputError(fmt::format("{}: no number '{}' (microseconds)", place, key));
  }
  if (!in_clock_range(value->get<double>())) {
    out_of_clock_range(value->get<double>(), key, place);
  }
  return microseconds_to_ns(value->get<double>());
}

}  // namespace distsim::io::trace_format
