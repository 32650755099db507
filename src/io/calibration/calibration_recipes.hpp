#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace distsim::io {

//! Settings that a framework's published recipe gives a model and that the published table does
//! not state (the split of layers over pipeline stages, for one): a row of that framework and
//! model is simulated with them, listed as an assumption that names the recipe.
struct RecipeDefaults {
  std::string framework;  //!< the table's framework column, matched whole, ignoring case
  std::string model;      //!< the table's model column, likewise
  //! The pipeline parallel size and virtual stages the settings hold for; 0 for any.
  int pipeline_parallel = 0;
  int virtual_stages = 0;
  //! Job settings as option-table keys and value text.
  std::vector<std::pair<std::string, std::string>> settings;
  std::string recipe;  //!< where the settings come from
  //! Non-empty when the recipe has nothing for these sizes and a row must not be simulated with
  //! a split it does not state: why the row is refused.
  std::string refusal;
};

//! Every recipe the calibration reader knows.
const std::vector<RecipeDefaults>& calibration_recipes();

//! The recipe for a row of `framework` and `model` run with `pipeline_parallel` stages of
//! `virtual_stages` chunks, or nullptr.
const RecipeDefaults* find_recipe(std::string_view framework, std::string_view model, int pipeline_parallel,
                                  int virtual_stages);

}  // namespace distsim::io
