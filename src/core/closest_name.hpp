#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace distsim {

//! Edit distance between two strings (insertions, deletions, substitutions; case-insensitive).
int edit_distance(std::string_view a, std::string_view b);

//! The candidate nearest to `name` by edit distance; ties go to the earlier candidate.
//! Returns an empty string when there are no candidates.
std::string closest_name(std::string_view name, const std::vector<std::string>& candidates);

//! "unknown <what> 'name'; did you mean 'x'? (known: a, b, c)"
std::string unknown_name_message(std::string_view what, std::string_view name,
                                 const std::vector<std::string>& candidates);

}  // namespace distsim
