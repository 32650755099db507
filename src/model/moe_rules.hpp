#pragma once

#include <string>
#include <vector>

#include "model/model_spec.hpp"

namespace distsim::model {

//! The rules a model's experts must keep, one sentence per broken rule, each starting with the
//! MoeSpec field it is about ("top_k 9 is larger than num_experts 8; expected at most 8"). Empty
//! for a dense model. Readers report these at their `moe` key, job validation for the model.
std::vector<std::string> moe_problems(const ModelSpec& model);

//! The same for multi-head latent attention, each sentence starting with its MlaSpec field.
std::vector<std::string> mla_problems(const ModelSpec& model);

}  // namespace distsim::model
