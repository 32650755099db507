#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "io/document/mapping_reader.hpp"
#include "model/model_spec.hpp"

namespace distsim::io {

//! Whether a parsed file is a Hugging Face config.json rather than distsim's own schema: it has a
//! `model_type`, or a key only Hugging Face uses (n_embd, num_hidden_layers, d_model, ...).
bool is_hf_config(const YAML::Node& root);

//! Maps a Hugging Face config onto a ModelSpec, by `model_type` (or, without one, by the key
//! names): gpt2, bert, llama and mistral, t5 (docs/reference/formats.md §4), qwen2, qwen3, and the
//! mixture-of-experts types mixtral, qwen3_moe and deepseek_v3 (docs/moe_models.md). Keys that
//! change no cost are ignored, since HF configs carry many; a key that changes the computation in
//! a way distsim does not model (experts under a dense model_type, a sliding window shorter than
//! the sequence, projection biases) is reported at the key, as is an unsupported model_type.
//! The model is named by `_name_or_path`, else by the file's stem (by its folder for a file
//! called config.json). Problems go to the reader's Diagnostics.
model::ModelSpec read_hf_config(MappingReader& reader, const std::string& file);

}  // namespace distsim::io
