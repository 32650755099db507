#include "io/calibration/published_field.hpp"
#include "core/plain_text.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace distsim::io {

namespace {

//! The text outside parentheses (nested ones too), with runs of spaces made one and no space at
//! either end.
std::string without_remarks(std::string_view text) {
  std::string kept;
  int depth = 0;
  for (const char c : text) {
    if (c == '(') {
      ++depth;
    } else if (c == ')' && depth > 0) {
      --depth;
    } else if (depth == 0) {
      if ((c == ',' || c == ';') && !kept.empty() && kept.back() == ' ') kept.pop_back();
      const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
      if (!space || (!kept.empty() && kept.back() != ' ')) kept += space ? ' ' : c;
    }
  }
  while (!kept.empty() && kept.back() == ' ') kept.pop_back();
  return kept;
}

}  // namespace

PublishedField read_published_field(std::string_view text) {
  static constexpr std::array<std::string_view, 5> kMissingMarkers{"", "n/a", "na", "none", "-"};
  PublishedField field;
  field.text = std::string(text);
  field.value = lowercase(without_remarks(text));
  field.missing = std::find(kMissingMarkers.begin(), kMissingMarkers.end(), field.value) != kMissingMarkers.end();
  field.not_stated = lowercase(text).find("not stated") != std::string::npos;
  return field;
}

}  // namespace distsim::io
