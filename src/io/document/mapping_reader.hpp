#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/input_error.hpp"
#include "io/document/diagnostics.hpp"

namespace distsim::io {

//! The range a number read from a file must fall in.
enum class NumberRule { positive, non_negative, fraction, fraction_or_zero };

//! One spelling of an enumerator in input files.
template <class Enum>
struct Choice {
  std::string_view text;
  Enum value;
  bool alias = false;  //!< another name of the value, accepted but not listed in messages
};

//! Reads the keys of one YAML mapping into spec fields. Every problem (unknown key, wrong type,
//! out-of-range value, missing key) is recorded in the Diagnostics with its line and key path,
//! and reading goes on, so that one error lists everything wrong with the file.
//!
//! Each read() leaves `out` unchanged and returns false when the key is absent or its value is
//! invalid, so a spec can be filled in over defaults or a `base:` entry.
class MappingReader {
 public:
  //! `path` is where `mapping` sits in the file: "" for the top level, "intra_node" below it;
  //! `line` is the line of its key (0 for the top level), where problems with it are reported.
  MappingReader(const YAML::Node& mapping, std::string path, Diagnostics& diagnostics, int line = 0);

  //! Records each key that is not in `known` (suggesting the closest) and each repeated key.
  void reject_unknown_keys(std::initializer_list<std::string_view> known);
  void reject_unknown_keys(const std::vector<std::string>& known);

  //! Records each repeated key, for files whose other keys are not all known (Hugging Face configs).
  void reject_duplicate_keys();

  //! Records "missing required key" for each of `keys` that is absent.
  void require(std::initializer_list<std::string_view> keys);

  //! Whether the key is present, even with an empty value.
  bool has(std::string_view key) const { return find(key).has_value(); }
  //! Whether the key is present with a value other than null (Hugging Face writes null for unset).
  bool has_value(std::string_view key) const;

  //! The key's value; an undefined node when the key is absent.
  YAML::Node value(std::string_view key) const;

  //! The key's value when it is a scalar, else "" (for optional keys where "" means unset).
  std::string text_of(std::string_view key) const;

  //! The mapping under `key`; records a problem and returns nothing when it is not a mapping.
  std::optional<MappingReader> child(std::string_view key);

  //! The mappings of the list under `key` ("key[0]", "key[1]", ...); records a problem for a
  //! value that is not a non-empty list and for each item that is not a mapping.
  std::vector<MappingReader> children(std::string_view key);

  //! A positive integer.
  bool read(std::string_view key, int& out);
  //! A non-negative integer: a count that may be zero.
  bool read_count(std::string_view key, int& out);
  bool read(std::string_view key, double& out, NumberRule rule);
  bool read(std::string_view key, bool& out);
  //! A non-empty string.
  bool read(std::string_view key, std::string& out);

  //! One of `choices`, matched by the one name rule (core/name_match.hpp).
  template <class Enum>
  bool read_choice(std::string_view key, Enum& out, const std::vector<Choice<Enum>>& choices) {
    std::string expected = "expected one of ";
    bool first = true;
    for (const auto& choice : choices) {
      if (choice.alias) continue;
      expected += (first ? "" : ", ") + std::string(choice.text);
      first = false;
    }
    const std::optional<std::string> text = scalar(key, expected);
    if (!text) {
      return false;
    }
    for (const auto& choice : choices) {
      if (same_text(*text, choice.text)) {
        out = choice.value;
        return true;
      }
    }
    report(key, expected + ", got '" + *text + "'");
    return false;
  }

  //! Records a problem about `key`, at the line of the key.
  void report(std::string_view key, std::string_view message);
  //! Records a problem about the mapping itself, at the line of its key (none for the top level).
  void report_here(std::string_view message);

  //! The key's path from the top of the file: "intra_node.p2p_gbps".
  std::string path_of(std::string_view key) const;

 private:
  std::optional<std::pair<YAML::Node, YAML::Node>> find(std::string_view key) const;
  //! The key's scalar text; records "<expected>, got ..." when the value is not a scalar.
  std::optional<std::string> scalar(std::string_view key, std::string_view expected);
  int line_of(std::string_view key) const;
  //! Whether the key's value is a quoted scalar: a string, even when its text is a number.
  bool quoted(std::string_view key) const;
  //! The value as a message shows it: '768' for a plain scalar, the string "768" for a quoted one.
  std::string shown(std::string_view key, const std::string& text) const;
  static bool same_text(std::string_view a, std::string_view b);

  YAML::Node mapping_;
  std::string path_;
  Diagnostics* diagnostics_;
  int line_;
};

//! Reads the `base:` key of a mapping and resolves it with `resolve` (a catalog name or a file).
//! A failure is recorded at the key, so that the rest of the file is still checked.
template <class Spec, class Resolve>
std::optional<Spec> read_base(MappingReader& reader, Resolve&& resolve) {
  std::string name;
  if (!reader.read("base", name)) {
    return std::nullopt;
  }
  try {
    return resolve(name);
  } catch (const InputError& e) {
    reader.report("base", e.what());
    return std::nullopt;
  }
}

}  // namespace distsim::io
