#include "io/document/document.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "io/document/text_file.hpp"

namespace distsim::io {

namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// yaml-cpp accepts some invalid JSON (a trailing comma), so nlohmann::json decides what is JSON.
void check_json(const std::string& path, const std::string& text) {
  if (nlohmann::json::accept(text)) {
    return;
  }
  try {
    const nlohmann::json parsed = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // what() starts with "[json.exception.parse_error.101] "; the rest says where and why.
    const std::string detail = e.what();
    const std::size_t start = detail.find("] ");
    throw InputError(path + ": invalid JSON: " + (start == std::string::npos ? detail : detail.substr(start + 2)));
  }
}

YAML::Node parse_yaml(const std::string& path, const std::string& text, std::string_view format) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    std::string where = path;
    if (!e.mark.is_null()) {
      where.append(":").append(std::to_string(e.mark.line + 1)).append(":").append(std::to_string(e.mark.column + 1));
    }
    throw InputError(where + ": invalid " + std::string(format) + ": " + e.msg);
  }
}

}  // namespace

Document load_document(const std::string& path, std::string_view what) {
  const std::string text = read_text_file(path, what);
  const bool json = ends_with(path, ".json");
  if (json) {
    check_json(path, text);
  }
  YAML::Node root = parse_yaml(path, text, json ? "JSON" : "YAML");
  if (root.IsNull()) {
    throw InputError(path + ": the file is empty; expected a mapping of keys to values");
  }
  if (!root.IsMap()) {
    throw InputError(path + ":" + std::to_string(root.Mark().line + 1) +
                     ": expected a mapping of keys to values at the top level, got " + describe(root));
  }
  return {path, root};
}

Document load_inline_document(const std::string& text, const std::string& label) {
  YAML::Node root = parse_yaml(label, text, "mapping");
  if (!root.IsMap()) {
    throw InputError(label + ": expected a mapping of keys to values, got " + describe(root));
  }
  return {label, root};
}

bool is_inline_mapping(std::string_view value) { return !value.empty() && value.front() == '{'; }

bool looks_like_path(std::string_view name_or_path) {
  if (is_inline_mapping(name_or_path)) {
    return false;
  }
  return ends_with(name_or_path, ".yaml") || ends_with(name_or_path, ".yml") || ends_with(name_or_path, ".json") ||
         name_or_path.find('/') != std::string_view::npos;
}

std::string file_stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) {
    return "nothing";
  }
  if (node.IsScalar()) {
    return "'" + node.Scalar() + "'";
  }
  return node.IsSequence() ? "a list" : "a mapping";
}

}  // namespace distsim::io
