#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"

namespace distsim::catalog::detail {

//! Names are matched ignoring case, so "H100-SXM" finds "h100-sxm" instead of failing with a
//! suggestion that differs only in case.
inline bool same_name(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

template <class Spec>
std::vector<std::string> names_of(const std::vector<Spec>& specs) {
  std::vector<std::string> names;
  names.reserve(specs.size());
  for (const auto& spec : specs) {
    names.push_back(spec.name);
  }
  return names;
}

//! The entry of `specs` called exactly `name` (ignoring case), never one that merely contains it;
//! throws InputError("unknown <what> 'name'; did you mean ...") suggesting the closest name,
//! preferring one that starts with what was typed.
template <class Spec>
const Spec& find_by_name(const std::vector<Spec>& specs, std::string_view name, std::string_view what) {
  for (const auto& spec : specs) {
    if (same_name(spec.name, name)) {
      return spec;
    }
  }
  const std::vector<std::string> names = names_of(specs);
  throw InputError(unknown_name_message(what, name, names, closest_completion(name, names)));
}

}  // namespace distsim::catalog::detail
