#include "io/document/document.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "io/document/text_file.hpp"

namespace distsim::io {

namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

//! Walks a JSON text for nlohmann's parser, keeping the path of keys to the current value, so that
//! a number too large for a double ("1e400") is reported with the key it belongs to.
class JsonChecker {
 public:
  using Json = nlohmann::json;

  bool null() { return true; }
  bool boolean(bool /*value*/) { return true; }
  bool number_integer(Json::number_integer_t /*value*/) { return true; }
  bool number_unsigned(Json::number_unsigned_t /*value*/) { return true; }
  bool number_float(Json::number_float_t /*value*/, const Json::string_t& /*text*/) { return true; }
  bool string(Json::string_t& /*value*/) { return true; }
  bool binary(Json::binary_t& /*value*/) { return true; }
  bool start_object(std::size_t /*size*/) { return open(); }
  bool end_object() { return close(); }
  bool start_array(std::size_t /*size*/) { return open(); }
  bool end_array() { return close(); }
  bool key(Json::string_t& name) {
    keys_.back() = name;
    return true;
  }
  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& error) {
    position_ = position;
    token_ = token;
    error_id_ = error.id;
    const std::string detail = error.what();
    // what() starts with "[json.exception.parse_error.101] "; the rest says where and why.
    const std::size_t start = detail.find("] ");
    detail_ = start == std::string::npos ? detail : detail.substr(start + 2);
    return false;
  }

  //! The problem, naming the file and, for an out-of-range number, its line and key.
  std::string problem(const std::string& path, const std::string& text) const {
    if (error_id_ != kNumberOverflow) {
      return path + ": invalid JSON: " + detail_;
    }
    const auto end = text.begin() + static_cast<std::ptrdiff_t>(std::min(position_, text.size()));
    const long line = 1 + std::count(text.begin(), end, '\n');
    std::string key;
    for (const auto& name : keys_) {
      key += name.empty() ? "" : (key.empty() ? "" : ".") + name;
    }
    return path + ":" + std::to_string(line) + ": " + (key.empty() ? "" : key + ": ") +
           "expected a finite number, got '" + token_ + "' (beyond the range of a double)";
  }

 private:
  // nlohmann's out_of_range.406: a number that does not fit a double.
  static constexpr int kNumberOverflow = 406;

  bool open() {
    keys_.emplace_back();
    return true;
  }
  bool close() {
    keys_.pop_back();
    return true;
  }

  std::vector<std::string> keys_;
  std::size_t position_ = 0;
  std::string token_;
  std::string detail_;
  int error_id_ = 0;
};

// yaml-cpp's parser limit (DepthGuard in its single-document parser).
constexpr int kDeepestNesting = 500;

//! Notes where the first node of a document starts; the rest of the parse it ignores.
class FirstNode final : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> mark;

  void OnDocumentStart(const YAML::Mark& /*at*/) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& /*at*/, YAML::anchor_t /*anchor*/) override {}
  void OnAlias(const YAML::Mark& at, YAML::anchor_t /*anchor*/) override { note(at); }
  void OnScalar(const YAML::Mark& at, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                const std::string& /*value*/) override {
    note(at);
  }
  void OnSequenceStart(const YAML::Mark& at, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                       YAML::EmitterStyle::value /*style*/) override {
    note(at);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& at, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                  YAML::EmitterStyle::value /*style*/) override {
    note(at);
  }
  void OnMapEnd() override {}

 private:
  void note(const YAML::Mark& at) {
    if (!mark) mark = at;
  }
};

//! The one document of `text`; a second one with content ("---" and more) would be dropped
//! unread, so it is refused at its line. The parser is asked for the document after the first
//! once only: yaml-cpp's LoadAll loops forever on some malformed text, its parser answering that
//! another (empty) document follows each time it is asked.
YAML::Node only_document(const std::string& path, const std::string& text, std::string_view format) {
  YAML::Node root = YAML::Load(text);
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  FirstNode first;
  FirstNode second;
  if (parser.HandleNextDocument(first) && parser.HandleNextDocument(second) && second.mark) {
    throw InputError(path + ":" + std::to_string(second.mark->line + 1) + ": a second " + std::string(format) +
                     " document; distsim reads one document a file (remove the '---' and what follows, or give each "
                     "document its own file)");
  }
  return root;
}

YAML::Node parse_yaml(const std::string& path, const std::string& text, std::string_view format) {
  try {
    return only_document(path, text, format);
  } catch (const YAML::DeepRecursion& e) {  // yaml-cpp stops at depth 500 with the message "bad file"
    throw InputError(path + ":" + std::to_string(e.mark.line + 1) + ": invalid " + std::string(format) +
                     ": nested more than " + std::to_string(kDeepestNesting) +
                     " levels deep; distsim's files nest a few levels at most");
  } catch (const YAML::Exception& e) {
    std::string where = path;
    if (!e.mark.is_null()) {
      where.append(":").append(std::to_string(e.mark.line + 1)).append(":").append(std::to_string(e.mark.column + 1));
    }
    throw InputError(where + ": invalid " + std::string(format) + ": " + e.msg);
  }
}

}  // namespace

void check_json(const std::string& path, const std::string& text) {
  JsonChecker checker;
  if (!nlohmann::json::sax_parse(text, &checker)) {
    throw InputError(checker.problem(path, text));
  }
}

Document load_document(const std::string& path, std::string_view what) {
  const std::string text = read_text_file(path, what);
  const bool json = ends_with(path, ".json");
  if (json) {  // yaml-cpp accepts some invalid JSON (a trailing comma), so nlohmann::json decides
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
