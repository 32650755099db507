#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/model_spec.hpp"

namespace distsim::catalog {

//! Every built-in model, in the order `distsim list models` prints them. Each entry cites the
//! paper or config file its shape comes from in `source`.
const std::vector<model::ModelSpec>& builtin_models();

//! The built-in model called `name`; throws InputError naming the closest one when none is.
const model::ModelSpec& find_model(std::string_view name);

//! The names of the built-in models, in catalog order.
std::vector<std::string> model_names();

}  // namespace distsim::catalog
