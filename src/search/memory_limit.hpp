#pragma once

#include <optional>
#include <string>

#include "strategy/job_spec.hpp"

namespace distsim::search {

//! What counts as fitting in a search: at most `max_memory_gib` GiB, or the GPU's memory less
//! `memory_headroom` (a percentage, "10" or "10%"); unset when neither is given. The names in the
//! messages are the search's flags. Throws InputError for both given or a value out of range.
std::optional<double> memory_limit_bytes(const strategy::JobSpec& base,
                                         const std::optional<std::string>& memory_headroom,
                                         const std::optional<double>& max_memory_gib);

}  // namespace distsim::search
