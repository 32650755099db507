#pragma once

#include <string>

#include "core/input_error.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::strategy {

//! GPT-2 345M's shape: 24 layers, 1024 hidden, 16 heads (all of them KV heads), FFN 4096,
//! vocabulary 50304, s = 1024.
inline model::ModelSpec gpt2_345m_shape() {
  model::ModelSpec model;
  model.name = "gpt2-345m";
  model.num_layers = 24;
  model.hidden_size = 1024;
  model.num_attention_heads = 16;
  model.num_kv_heads = 16;
  model.ffn_hidden_size = 4096;
  model.vocab_size = 50304;
  model.seq_length = 1024;
  return model;
}

//! The message validation throws for `job` (its own rules and its schedule's), or "" when the
//! job is valid.
inline std::string error_of(const JobSpec& job) {
  try {
    schedule::validate_job(job);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace distsim::strategy
