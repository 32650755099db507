#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/model_spec.hpp"

namespace distsim::io {

//! Settings that a framework's published recipe gives a model and that the published table does
//! not state (the split of layers over pipeline stages, for one): a row of a framework built on
//! Megatron-Core (its framework names Megatron or NeMo) that runs that built-in model is simulated
//! with them, listed as an assumption that names the recipe, and the release it is from when the
//! row names another.
struct RecipeDefaults {
  std::string framework;  //!< the release whose recipe this is
  std::string model;      //!< the built-in model it lays out
  //! Whether the model runs its multi-token prediction modules: 1 with, 0 without, -1 either.
  int with_mtp = -1;
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

//! The recipe for a row of `framework` that runs `model` with `pipeline_parallel` stages of
//! `virtual_stages` chunks, or nullptr.
const RecipeDefaults* find_recipe(std::string_view framework, const model::ModelSpec& model, int pipeline_parallel,
                                  int virtual_stages);

//! Whether a row's framework is one of the Megatron-Core family whose recipes these are.
bool runs_megatron_recipes(std::string_view framework);

}  // namespace distsim::io
