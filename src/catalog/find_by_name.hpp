#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "core/name_match.hpp"

namespace distsim::catalog {

//! Another name of a built-in entry: the name the ecosystem uses for it (a Hugging Face model id,
//! a framework recipe, a vendor's part name).
struct CatalogAlias {
  std::string alias;
  std::string name;  //!< the entry's own name
};

}  // namespace distsim::catalog

namespace distsim::catalog::detail {

template <class Spec>
std::vector<std::string> names_of(const std::vector<Spec>& specs) {
  std::vector<std::string> names;
  names.reserve(specs.size());
  for (const auto& spec : specs) {
    names.push_back(spec.name);
  }
  return names;
}

//! The entry of `specs` that `name` names by the one name rule (core/name_match.hpp), or one of
//! its `aliases`; nullptr when none does. Never an entry whose name merely contains `name`.
template <class Spec>
const Spec* named_entry(const std::vector<Spec>& specs, std::string_view name,
                        const std::vector<CatalogAlias>& aliases = {}) {
  const std::string key = name_key(name);
  for (const auto& spec : specs) {
    if (name_key(spec.name) == key) return &spec;
  }
  for (const auto& alias : aliases) {
    if (name_key(alias.alias) == key) return named_entry(specs, alias.name);
  }
  return nullptr;
}

//! named_entry, or InputError("unknown <what> 'name'; did you mean ...") suggesting the closest
//! name, preferring one that starts with what was typed.
template <class Spec>
const Spec& find_by_name(const std::vector<Spec>& specs, std::string_view name, std::string_view what,
                         const std::vector<CatalogAlias>& aliases = {}) {
  if (const Spec* found = named_entry(specs, name, aliases)) return *found;
  const std::vector<std::string> names = names_of(specs);
  throw InputError(unknown_name_message(what, name, names, closest_completion(name, names)));
}

}  // namespace distsim::catalog::detail
