#pragma once

#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

namespace distsim::io {

//! One parsed input file: its path as the user gave it (error messages name it) and its top-level
//! mapping. JSON files are parsed by yaml-cpp as well (YAML is a superset of JSON), so that every
//! value carries a line number; nlohmann::json checks them first, so JSON stays strict.
struct Document {
  std::string path;
  YAML::Node root;
};

//! Reads and parses `path`, a YAML file or, when it ends in .json, a JSON file. `what` names the
//! kind of file in errors ("model file"). Throws InputError when the file cannot be read, does not
//! parse, or its top level is not a mapping.
Document load_document(const std::string& path, std::string_view what);

//! Throws InputError naming `path` when `text` is not JSON: the parser's reason, or, for a number
//! beyond the range of a double ("1e400"), its line and key.
void check_json(const std::string& path, const std::string& text);

//! Parses `text`, a mapping written inline where a name or a path could stand ("{name: tiny,
//! num_layers: 2, ...}", YAML flow style or JSON). `label` names it in errors ("inline model").
//! Throws InputError when the text does not parse or is not a mapping.
Document load_inline_document(const std::string& text, const std::string& label);

//! Whether a value given for a model, GPU or cluster is an inline mapping: it starts with '{'.
bool is_inline_mapping(std::string_view value);

//! Whether a name given on the command line or under `base:` names a file rather than a catalog
//! entry: it is not an inline mapping, and it ends in .yaml, .yml or .json, or contains a '/'.
bool looks_like_path(std::string_view name_or_path);

//! The file name without directories and extension: "models/tiny.yaml" → "tiny".
std::string file_stem(const std::string& path);

//! How a value reads in an error message: 'text' for a scalar, "a list", "a mapping", "nothing".
std::string describe(const YAML::Node& node);

}  // namespace distsim::io
