#include "io/calibration/published_field.hpp"
#include "core/name_match.hpp"
#include "core/plain_text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace distsim::io {

PublishedField read_published_field(std::string_view text) {
  static constexpr std::array<std::string_view, 5> kMissingMarkers{"", "n/a", "na", "none", "-"};
  PublishedField field;
  field.text = std::string(text);
  RemarkedName split = split_remark(text);
  field.value = lowercase(split.name);
  field.remark = std::move(split.remark);
  field.missing = std::find(kMissingMarkers.begin(), kMissingMarkers.end(), field.value) != kMissingMarkers.end();
  field.not_stated = lowercase(text).find("not stated") != std::string::npos;
  return field;
}

}  // namespace distsim::io
