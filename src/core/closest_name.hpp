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

//! The candidate nearest to `name` among those that start with it (ignoring case), else among all:
//! a name typed short ("h10") is more often the start of a name than a misspelling of another.
std::string closest_completion(std::string_view name, const std::vector<std::string>& candidates);

//! "unknown <what> 'name'; did you mean 'x'? (known: a, b, c)", suggesting closest_name.
std::string unknown_name_message(std::string_view what, std::string_view name,
                                 const std::vector<std::string>& candidates);
//! The same message suggesting `suggestion`.
std::string unknown_name_message(std::string_view what, std::string_view name,
                                 const std::vector<std::string>& candidates, std::string_view suggestion);

}  // namespace distsim
