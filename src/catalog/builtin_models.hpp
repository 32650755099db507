#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/find_by_name.hpp"
#include "model/model_spec.hpp"

namespace distsim::catalog {

//! Every built-in model, in the order `distsim list models` prints them. Each entry cites the
//! paper or config file its shape comes from in `source`.
const std::vector<model::ModelSpec>& builtin_models();

//! Every alias of a built-in model (Hugging Face ids, recipe names).
const std::vector<CatalogAlias>& model_aliases();

//! The built-in model called `name` or an alias of it (by the one name rule, core/name_match.hpp),
//! or either followed by the model's total parameter count ("DeepSeek-V3 671B"); throws InputError
//! naming the closest one when none is.
const model::ModelSpec& find_model(std::string_view name);

//! The names of the built-in models, in catalog order.
std::vector<std::string> model_names();

}  // namespace distsim::catalog
