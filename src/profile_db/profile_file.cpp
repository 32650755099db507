#include "profile_db/profile_file.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "io/document/document.hpp"
#include "io/document/text_file.hpp"

namespace distsim::profile_db {

using profile::ProfileRecord;

namespace {

using Json = nlohmann::json;

const std::vector<std::string> kTopFields = {"format",  "version",     "hardware",       "profiler",
                                             "library", "measured_at", "device_seconds", "events"};
const std::vector<std::string> kEventFields = {"key",      "median_us", "mean_us",  "min_us",  "max_us",
                                               "stdev_us", "samples",   "profiler", "library", "measured_at"};
const std::set<std::string> kOptionalEventFields = {"profiler", "library", "measured_at"};

std::string json_type(const Json& value) {
  if (value.is_number_integer() || value.is_number_unsigned()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  if (value.is_array()) return "a list";
  return "an object";
}

//! Reads the fields of one JSON object, refusing unknown and missing ones. `place` starts every
//! error message.
class FieldReader {
 public:
  FieldReader(const Json& object, std::string place, const std::vector<std::string>& known)
      : object_(object), place_(std::move(place)) {
    for (const auto& [name, value] : object.items()) {
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        throw InputError(place_ + ": " + unknown_name_message("field", name, known));
      }
    }
  }

  bool has(const std::string& name) const { return object_.contains(name); }

  std::string text(const std::string& name) const {
    const Json& value = field(name);
    if (!value.is_string()) {
      throw wrong_type(name, "a string", value);
    }
    return value.get<std::string>();
  }

  double number(const std::string& name) const {
    const Json& value = field(name);
    if (!value.is_number()) {
      throw wrong_type(name, "a number", value);
    }
    return value.get<double>();
  }

  std::int64_t integer(const std::string& name) const {
    const Json& value = field(name);
    if (!value.is_number_integer() && !value.is_number_unsigned()) {
      throw wrong_type(name, "an integer", value);
    }
    return value.get<std::int64_t>();
  }

  const Json& field(const std::string& name) const {
    if (!object_.contains(name)) {
      throw InputError(place_ + ": missing field '" + name + "'");
    }
    return object_.at(name);
  }

 private:
  InputError wrong_type(const std::string& name, const std::string& expected, const Json& value) const {
    return InputError(place_ + ": field '" + name + "' must be " + expected + ", got " + json_type(value) + " " +
                      value.dump());
  }

  const Json& object_;
  std::string place_;
};

std::string optional_text(const FieldReader& reader, const std::string& name, const std::string& fallback) {
  return reader.has(name) ? reader.text(name) : fallback;
}

ProfileRecord read_record(const Json& entry, size_t index, const ProfileFile& file, const std::string& source) {
  const bool has_key = entry.is_object() && entry.contains("key") && entry.at("key").is_string();
  const std::string place = has_key ? record_place(source, index, entry.at("key").get<std::string>())
                                    : "profile '" + source + "': events[" + std::to_string(index) + "]";
  if (!entry.is_object()) {
    throw InputError(place + ": expected an object, got " + json_type(entry));
  }
  const FieldReader reader(entry, place, kEventFields);
  ProfileRecord record;
  record.hardware = file.hardware;
  record.key = reader.text("key");
  record.median_us = reader.number("median_us");
  record.mean_us = reader.number("mean_us");
  record.min_us = reader.number("min_us");
  record.max_us = reader.number("max_us");
  record.stdev_us = reader.number("stdev_us");
  record.samples = reader.integer("samples");
  record.profiler = optional_text(reader, "profiler", file.profiler);
  record.library = optional_text(reader, "library", file.library);
  record.measured_at = optional_text(reader, "measured_at", file.measured_at);
  return record;
}

void check_format(const FieldReader& reader, const std::string& place) {
  const std::string format = reader.text("format");
  if (format != ProfileFile::kFormat) {
    throw InputError(place + ": format must be '" + std::string(ProfileFile::kFormat) + "', got '" + format + "'");
  }
  const std::int64_t version = reader.integer("version");
  if (version != ProfileFile::kVersion) {
    throw InputError(place + ": version " + std::to_string(version) + " is not supported; this distsim reads version " +
                     std::to_string(ProfileFile::kVersion));
  }
}

}  // namespace

std::string record_place(const std::string& source, size_t index, const std::string& key) {
  return "profile '" + source + "': events[" + std::to_string(index) + "] ('" + key + "')";
}

void check_hardware_name(const std::string& name) {
  if (name.empty() || name.find_first_of(" \t\n'\"") != std::string::npos) {
    throw InputError("hardware must be a GPU name without spaces or quotes, like 'a40', got '" + name + "'");
  }
}

void check_profile_records(const ProfileFile& file, const std::string& source) {
  try {
    check_hardware_name(file.hardware);
  } catch (const InputError& e) {
    throw InputError("profile '" + source + "': " + e.what());
  }
  std::set<std::string> seen;
  for (size_t index = 0; index < file.records.size(); ++index) {
    const ProfileRecord& record = file.records[index];
    try {
      check_hardware_name(record.hardware);
      profile::check_record(record);
    } catch (const InputError& e) {
      throw InputError(record_place(source, index, record.key) + ": " + e.what());
    }
    if (!seen.insert(record.key).second) {
      throw InputError(record_place(source, index, record.key) + ": the same key appears earlier in the file");
    }
  }
}

ProfileFile parse_profile_file(const std::string& text, const std::string& source) {
  const std::string place = "profile '" + source + "'";
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw InputError(place + ": not valid JSON (" + e.what() + ")");
  } catch (const Json::out_of_range&) {  // 406: a number beyond the range of a double ("1e400")
    io::check_json(source, text);        // throws, naming the line and the key
    throw;
  }
  if (!root.is_object()) {
    throw InputError(place + ": expected a JSON object at the top, got " + json_type(root));
  }
  const FieldReader reader(root, place, kTopFields);
  check_format(reader, place);
  ProfileFile file;
  file.hardware = reader.text("hardware");
  try {
    check_hardware_name(file.hardware);
  } catch (const InputError& e) {
    throw InputError(place + ": " + e.what());
  }
  file.profiler = reader.text("profiler");
  file.library = reader.text("library");
  file.measured_at = reader.text("measured_at");
  file.device_seconds = reader.number("device_seconds");
  if (!(file.device_seconds >= 0)) {
    throw InputError(fmt::format("{}: device_seconds must not be negative, got {}", place, file.device_seconds));
  }
  const Json& events = reader.field("events");
  if (!events.is_array()) {
    throw InputError(place + ": field 'events' must be a list, got " + json_type(events));
  }
  for (size_t index = 0; index < events.size(); ++index) {
    file.records.push_back(read_record(events[index], index, file, source));
  }
  return file;
}

ProfileFile read_profile_file(const std::string& path) {
  // A profile holds an entry of about 200 bytes an event: far below this for any real one.
  constexpr std::size_t kLargestProfile = std::size_t{1} << 30;
  return parse_profile_file(
      io::read_text_file(path, "profile", io::largest_parsed_file(kLargestProfile), io::kParsedFileLimit), path);
}

nlohmann::ordered_json profile_file_json(const ProfileFile& file) {
  using Ordered = nlohmann::ordered_json;
  Ordered events = Ordered::array();
  for (const auto& record : file.records) {
    Ordered entry = {{"key", record.key},        {"median_us", record.median_us}, {"mean_us", record.mean_us},
                     {"min_us", record.min_us},  {"max_us", record.max_us},       {"stdev_us", record.stdev_us},
                     {"samples", record.samples}};
    if (record.profiler != file.profiler) entry["profiler"] = record.profiler;
    if (record.library != file.library) entry["library"] = record.library;
    if (record.measured_at != file.measured_at) entry["measured_at"] = record.measured_at;
    events.push_back(std::move(entry));
  }
  Ordered root = Ordered::object();
  root["format"] = ProfileFile::kFormat;
  root["version"] = ProfileFile::kVersion;
  root["hardware"] = file.hardware;
  root["profiler"] = file.profiler;
  root["library"] = file.library;
  root["measured_at"] = file.measured_at;
  root["device_seconds"] = file.device_seconds;
  root["events"] = std::move(events);
  return root;
}

}  // namespace distsim::profile_db
