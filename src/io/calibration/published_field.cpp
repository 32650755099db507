#include "io/calibration/published_field.hpp"
#include "core/name_match.hpp"
#include "core/plain_text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace distsim::io {

PublishedField read_published_field(std::string_view text) {
  // "N/A", "n_a" and "None" by the name rule; a dash alone, not "--" (a flag's start).
  static constexpr std::array<std::string_view, 3> kMissingMarkers{"n/a", "na", "none"};
  PublishedField field;
  field.text = std::string(text);
  RemarkedName split = split_remark(text);
  field.value = lowercase(split.name);
  field.remark = std::move(split.remark);
  field.missing =
      field.value.empty() || field.value == "-" ||
      std::find(kMissingMarkers.begin(), kMissingMarkers.end(), name_key(field.value)) != kMissingMarkers.end();
  field.not_stated = name_key(text).find("notstated") != std::string::npos;
  return field;
}

}  // namespace distsim::io
