#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/model_spec.hpp"

namespace distsim::io {

//! The model of a mixture-of-experts row, or why it has none.
struct MoeRowModel {
  std::optional<model::ModelSpec> model;
  std::string refused_because;
  std::vector<std::string> assumptions;
  //! Job settings, by the option table's keys, that a remark on the model's name states (token
  //! dropping pads to capacity).
  std::vector<std::pair<std::string, std::string>> settings;
};

//! The family a model's name names: the letters its name key starts with ("Llama 3.1" and
//! "llama-3.1-8b": llama; "GPT-3": gpt; "gpt-oss-20b": gptoss; "Qwen3-MoE": qwen).
std::string model_family(std::string_view name);

//! A published table describes an MoE model in a few numeric columns and free architecture text,
//! which cannot carry everything that prices it (head size, QK-norm, latent attention, shared
//! expert size). So the row's model name is resolved to the built-in model it names, and every
//! column that describes the model (layers, widths, heads, vocabulary, activation, experts, top-k,
//! expert and shared sizes, which layers are MoE, the facts the arch text states) must agree with
//! that model, or the row is refused naming the column. The sequence length is the row's.
//! `column` gives a field of the row by column name.
MoeRowModel read_moe_row_model(const std::function<std::string(std::string_view)>& column);

}  // namespace distsim::io
