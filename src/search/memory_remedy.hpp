#pragma once

#include <string>
#include <vector>

#include "search/candidate.hpp"

namespace distsim::search {

//! A change that lowers a candidate's peak memory, and the peak the changed candidate needs.
struct MemoryRemedy {
  std::string change;  //!< "more pipeline stages", "full recomputation", "more sharding", or all three
  Candidate changed;   //!< the candidate with the change, its peak estimated
  bool fits = false;   //!< within the search's memory limit
};

//! What would bring the leanest of `candidates` (the one with the smallest peak) under
//! `memory_limit_bytes`: twice the pipeline stages (for half the data-parallel size, else half
//! the tensor- or context-parallel size), full
//! recomputation, the deepest ZeRO stage modelled for the model, and the three together, each when the candidate
//! does not have it already, the changed job is valid and needs less memory. Pure: memory
//! estimates only.
std::vector<MemoryRemedy> memory_remedies(const Candidate& leanest, double memory_limit_bytes);

}  // namespace distsim::search
