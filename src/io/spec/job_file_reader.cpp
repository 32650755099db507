#include "io/spec/job_file_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <vector>

#include "io/document/diagnostics.hpp"
#include "io/document/document.hpp"
#include "io/document/mapping_reader.hpp"
#include "io/spec/spec_resolver.hpp"

namespace distsim::io {

namespace {

bool names_a_spec(const options::JobOption& option) {
  return option.key == "model" || option.key == "gpu" || option.key == "cluster";
}

//! A spec written inline under its key, as the one-line mapping the resolvers take. It is resolved
//! here once, so that a problem in it is reported at the job file's key.
void read_inline_spec(MappingReader& reader, const options::JobOption& option, const std::string& path,
                      options::JobSettings& settings) {
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out << reader.value(option.key);
  const std::string text = out.c_str();
  try {
    if (option.key == "model") {
      resolve_model(text);
    } else if (option.key == "gpu") {
      resolve_gpu(text);
    } else {
      resolve_cluster(text);
    }
  } catch (const InputError& e) {
    reader.report(option.key, e.what());
    return;
  }
  settings.set(option.key, text, "job file '" + path + "': key " + option.key);
}

//! The key as the file writes it: "tokens" under goodput is "goodput.tokens".
std::string key_path(const options::JobOption& option) {
  return option.section.empty() ? option.key : option.section + "." + option.key;
}

void read_setting(MappingReader& reader, const options::JobOption& option, const std::string& path,
                  options::JobSettings& settings) {
  const YAML::Node value = reader.value(option.key);
  if (value.IsMap() && names_a_spec(option)) {
    read_inline_spec(reader, option, path, settings);
    return;
  }
  if (!value.IsScalar()) {
    reader.report(option.key, "expected a single value, got " + describe(value));
    return;
  }
  const options::ParsedValue parsed = options::parse_value(option, value.Scalar());
  if (!parsed.ok()) {
    reader.report(option.key, parsed.problem);
    return;
  }
  options::Value setting = parsed.value;
  if (names_a_spec(option)) {
    setting = relative_to_file(std::get<std::string>(setting), path);
  }
  settings.set(option.key, setting, "job file '" + path + "': key " + key_path(option));
}

//! The options of `section`, by key.
std::vector<std::string> keys_of(const std::string& section) {
  std::vector<std::string> keys;
  for (const auto& option : options::job_options()) {
    if (option.section == section) keys.push_back(option.key);
  }
  return keys;
}

//! The sections of the option table (JobOption::section), each once, in table order.
std::vector<std::string> section_names() {
  std::vector<std::string> sections;
  for (const auto& option : options::job_options()) {
    if (!option.section.empty() && std::find(sections.begin(), sections.end(), option.section) == sections.end()) {
      sections.push_back(option.section);
    }
  }
  return sections;
}

//! Every option's key, so that a section's option at the top level is told where it goes, and
//! the sections' names.
std::vector<std::string> known_top_level_keys() {
  std::vector<std::string> keys = options::option_keys();
  for (const auto& section : section_names()) keys.push_back(section);
  return keys;
}

void read_section(MappingReader& top, const std::string& section, const std::string& path,
                  options::JobSettings& settings) {
  std::optional<MappingReader> reader = top.child(section);
  if (!reader) return;
  reader->reject_unknown_keys(keys_of(section));
  for (const auto& option : options::job_options()) {
    if (option.section == section && reader->has(option.key)) read_setting(*reader, option, path, settings);
  }
}

}  // namespace

std::string relative_to_file(const std::string& name, const std::string& file_path) {
  if (!looks_like_path(name) || std::filesystem::path(name).is_absolute()) {
    return name;
  }
  return (std::filesystem::path(file_path).parent_path() / name).lexically_normal().string();
}

options::JobSettings read_job_file(const std::string& path) {
  const Document document = load_document(path, "job file");
  Diagnostics diagnostics(path);
  MappingReader reader(document.root, "", diagnostics);
  reader.reject_unknown_keys(known_top_level_keys());
  options::JobSettings settings;
  for (const auto& option : options::job_options()) {
    if (!reader.has(option.key)) continue;
    if (option.section.empty()) {
      read_setting(reader, option, path, settings);
    } else {
      reader.report(option.key, "a " + option.section + " setting: write it under " + option.section + ": (" +
                                    option.section + ": {" + option.key + ": ...})");
    }
  }
  for (const auto& section : section_names()) {
    if (reader.has(section)) read_section(reader, section, path, settings);
  }
  if (reader.has("strategy") && (reader.has("tp") || reader.has("pp") || reader.has("dp"))) {
    reader.report("strategy", "give either strategy or tp/pp/dp, not both");
  }
  diagnostics.throw_if_any();
  return settings;
}

}  // namespace distsim::io
