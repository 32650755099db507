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
//! names): gpt2, bert, llama and mistral, t5 (docs/reference/formats.md §4). Keys it does not need are ignored,
//! since HF configs carry many; an unsupported model_type is reported with the supported ones.
//! The model is named by `_name_or_path`, else by the file's stem (by its folder for a file
//! called config.json). Problems go to the reader's Diagnostics.
model::ModelSpec read_hf_config(MappingReader& reader, const std::string& file);

}  // namespace distsim::io
