#include "io/spec/sweep_file_reader.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <string_view>

#include "core/number_text.hpp"
#include "io/document/diagnostics.hpp"
#include "io/document/document.hpp"
#include "io/document/mapping_reader.hpp"
#include "io/spec/job_file_reader.hpp"
#include "io/spec/spec_resolver.hpp"
#include "search/memory_limit.hpp"

namespace distsim::io {

namespace {

//! A top-level list of the file and the job setting its values set.
struct AxisKey {
  std::string_view list;
  std::string_view option;
};

constexpr std::array<AxisKey, 6> kAxes{{{"models", "model"},
                                        {"gpus", "gpu"},
                                        {"clusters", "cluster"},
                                        {"nodes", "nodes"},
                                        {"global_batch_sizes", "global_batch_size"},
                                        {"seq_lengths", "seq_length"}}};

//! The keys of `search` that are not job settings: the search's own flags.
constexpr std::array<std::string_view, 5> kSearchKeys{"memory_headroom", "max_memory_gib", "objectives", "top",
                                                      "simulate_oom"};

const AxisKey* axis_of_option(std::string_view key) {
  const auto* found = std::find_if(kAxes.begin(), kAxes.end(), [&](const AxisKey& axis) { return axis.option == key; });
  return found == kAxes.end() ? nullptr : found;
}

bool is_searched(std::string_view key) {
  const auto keys = search::searched_keys();
  return std::find(keys.begin(), keys.end(), key) != keys.end() && key != "strategy";
}

//! The file's state while reading: where problems go and what setting origins say.
struct SweepFile {
  std::string path;
  Diagnostics& diagnostics;

  std::string origin(const std::string& key_path, const YAML::Node& node) const {
    return "sweep file '" + path + "' line " + std::to_string(node.Mark().line + 1) + ": " + key_path;
  }
  void report(const YAML::Node& node, const std::string& key_path, const std::string& message) const {
    diagnostics.add(node.Mark().line + 1, key_path, message);
  }
};

//! A model, GPU or cluster name resolved once, so that an unknown one is reported at its line.
std::optional<std::string> resolved_spec(const SweepFile& file, const std::string& key, const std::string& name,
                                         const YAML::Node& node, const std::string& key_path) {
  const std::string located = relative_to_file(name, file.path);
  try {
    if (key == "model") {
      resolve_model(located);
    } else if (key == "gpu") {
      resolve_gpu(located);
    } else {
      resolve_cluster(located);
    }
  } catch (const InputError& e) {
    file.report(node, key_path, e.what());
    return std::nullopt;
  }
  return located;
}

//! One value of a list, parsed by the option table's rule; nullopt after reporting a problem.
std::optional<options::Value> list_item(const SweepFile& file, const options::JobOption& option, const YAML::Node& item,
                                        const std::string& key_path) {
  if (!item.IsScalar()) {
    file.report(item, key_path, "expected a single value, got " + describe(item));
    return std::nullopt;
  }
  const options::ParsedValue parsed = options::parse_value(option, item.Scalar());
  if (!parsed.ok()) {
    file.report(item, key_path, parsed.problem);
    return std::nullopt;
  }
  return parsed.value;
}

void read_axis(MappingReader& reader, const SweepFile& file, const AxisKey& key, search::Sweep& sweep) {
  const std::string list(key.list);
  const YAML::Node node = reader.value(list);
  if (!node.IsSequence()) {
    reader.report(list, "expected a list, e.g. [a, b], got " + describe(node));
    return;
  }
  if (node.size() == 0) {
    reader.report(list, "empty list: give at least one value");
    return;
  }
  const options::JobOption& option = options::option(key.option);
  search::SweepAxis axis{std::string(key.option), {}};
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    const std::string key_path = list + "[" + std::to_string(i) + "]";
    std::optional<options::Value> value = list_item(file, option, item, key_path);
    if (!value) continue;
    if (key.option == "model" || key.option == "gpu" || key.option == "cluster") {
      value = resolved_spec(file, axis.key, std::get<std::string>(*value), item, key_path);
      if (!value) continue;
    }
    const bool repeated = std::any_of(axis.values.begin(), axis.values.end(),
                                      [&](const options::Setting& setting) { return setting.value == *value; });
    if (repeated) {
      file.report(item, key_path, "'" + options::value_text(*value) + "' is listed twice");
      continue;
    }
    axis.values.push_back({*value, file.origin(key_path, item)});
  }
  sweep.axes.push_back(std::move(axis));
}

//! A searched setting: one value pins it, a list or `all` lists its values.
void read_searched(MappingReader& reader, const SweepFile& file, const options::JobOption& option,
                   search::Sweep& sweep) {
  const YAML::Node node = reader.value(option.key);
  const std::string key_path = reader.path_of(option.key);
  if (node.IsScalar() && node.Scalar() == search::kAllValues) {
    sweep.lists[option.key] = {std::string(search::kAllValues)};
    return;
  }
  if (!node.IsSequence()) {
    if (const auto value = list_item(file, option, node, key_path)) {
      sweep.settings.set(option.key, *value, file.origin(key_path, node));
    }
    return;
  }
  if (node.size() == 0) {
    reader.report(option.key, "empty list: give at least one value, or all");
    return;
  }
  std::vector<std::string> items;
  for (std::size_t i = 0; i < node.size(); ++i) {
    if (list_item(file, option, node[i], key_path + "[" + std::to_string(i) + "]")) items.push_back(node[i].Scalar());
  }
  if (items.size() == node.size()) sweep.lists[option.key] = items;
}

void read_job_setting(MappingReader& reader, const SweepFile& file, const options::JobOption& option,
                      search::Sweep& sweep) {
  if (const AxisKey* axis = axis_of_option(option.key)) {
    reader.report(option.key, "each point sets it: list its values under the top-level key " + std::string(axis->list));
    return;
  }
  if (option.key == "strategy") {
    reader.report(option.key, "a search varies the parallel sizes itself; pin them with tp, pp, dp and cp");
    return;
  }
  if (is_searched(option.key)) {
    read_searched(reader, file, option, sweep);
    return;
  }
  const YAML::Node node = reader.value(option.key);
  if (const auto value = list_item(file, option, node, reader.path_of(option.key))) {
    sweep.settings.set(option.key, *value, file.origin(reader.path_of(option.key), node));
  }
}

//! The message of an InputError thrown with a flag's name in front, without that name.
std::string without_flag(const std::string& message, std::string_view flag) {
  const std::string prefix = std::string(flag) + ": ";
  return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

void read_objectives(MappingReader& reader, search::Sweep& sweep) {
  const YAML::Node node = reader.value("objectives");
  std::vector<std::string> names;
  if (node.IsScalar()) {
    names.push_back(node.Scalar());
  } else if (node.IsSequence()) {
    for (const auto& item : node) names.push_back(item.IsScalar() ? item.Scalar() : describe(item));
  } else {
    reader.report("objectives", "expected a list such as [time, memory], got " + describe(node));
    return;
  }
  try {
    sweep.objectives = search::parse_objectives(names, "--objectives");
  } catch (const InputError& e) {
    reader.report("objectives", without_flag(e.what(), "--objectives"));
  }
}

void read_memory_limit(MappingReader& reader, search::Sweep& sweep) {
  std::string headroom;
  if (reader.has("memory_headroom") && reader.read("memory_headroom", headroom)) {
    try {
      search::memory_limit_bytes(strategy::JobSpec{}, headroom, std::nullopt);
      sweep.memory_headroom = headroom;
    } catch (const InputError& e) {
      reader.report("memory_headroom", without_flag(e.what(), "--memory-headroom"));
    }
  }
  double max_gib = 0;
  if (reader.has("max_memory_gib") && reader.read("max_memory_gib", max_gib, NumberRule::positive)) {
    sweep.max_memory_gib = max_gib;
  }
  if (reader.has("memory_headroom") && reader.has("max_memory_gib")) {
    reader.report("max_memory_gib", "memory_headroom and max_memory_gib both given; use one or the other");
  }
}

void read_search_flags(MappingReader& reader, search::Sweep& sweep) {
  read_memory_limit(reader, sweep);
  if (reader.has("objectives")) read_objectives(reader, sweep);
  int top = 0;
  if (reader.has("top") && reader.read("top", top)) sweep.top = static_cast<std::size_t>(top);
  if (reader.has("simulate_oom")) reader.read("simulate_oom", sweep.simulate_out_of_memory);
}

void read_search(MappingReader& top, const SweepFile& file, search::Sweep& sweep) {
  std::optional<MappingReader> reader = top.child("search");
  if (!reader) return;
  std::vector<std::string> known = options::option_keys();
  known.insert(known.end(), kSearchKeys.begin(), kSearchKeys.end());
  reader->reject_unknown_keys(known);
  for (const auto& option : options::job_options()) {
    if (reader->has(option.key)) read_job_setting(*reader, file, option, sweep);
  }
  read_search_flags(*reader, sweep);
  // The goal every point's search reports against: the job settings tokens and gpu_hour_price.
  const auto number = [&](const char* key) -> std::optional<double> {
    const options::Setting* setting = sweep.settings.find(key);
    return setting ? std::optional(std::get<double>(setting->value)) : std::nullopt;
  };
  sweep.goal = {number("tokens"), number("gpu_hour_price"), {}};
}

}  // namespace

search::Sweep read_sweep_file(const std::string& path) {
  const Document document = load_document(path, "sweep file");
  Diagnostics diagnostics(path);
  const SweepFile file{path, diagnostics};
  MappingReader reader(document.root, "", diagnostics);
  std::vector<std::string> known{"search"};
  for (const auto& axis : kAxes) known.emplace_back(axis.list);
  reader.reject_unknown_keys(known);
  reader.require({"models"});
  search::Sweep sweep;
  for (const auto& axis : kAxes) {
    if (reader.has(axis.list)) read_axis(reader, file, axis, sweep);
  }
  if (reader.has("search")) read_search(reader, file, sweep);
  diagnostics.throw_if_any();
  return sweep;
}

}  // namespace distsim::io
