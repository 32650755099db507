#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "options/job_settings.hpp"

namespace distsim::io {

//! A job read from a framework's launch settings, in the option table's terms.
struct LaunchJob {
  //! Every setting the launch gives, each with the flag (or key) it came from as its origin; the
  //! model as an inline model mapping under "model".
  options::JobSettings settings;
  //! Settings that change the computation and that distsim does not model, priced without them,
  //! each naming the flag: "--tp-comm-overlap: ...".
  std::vector<std::string> assumptions;
  //! Flags that do not change a step's time (logging, paths, learning rate), by name.
  std::vector<std::string> ignored;
};

//! Reads Megatron-LM / Megatron-Core `pretrain_gpt.py` arguments, as a launch script or as the
//! argument string (launch_script.hpp says how words and variables are read). The model shape
//! follows Megatron's own defaults where a flag is absent (LayerNorm, learned positions, GELU,
//! tied embeddings, biases; with --swiglu an FFN of int(8h/3 / 64) * 64); the parallel sizes,
//! batches, precision, recomputation, pipeline layout, overlap and MoE flags become job settings
//! through the option table; torchrun's --nnodes and --nproc-per-node give the nodes and the
//! data-parallel size (world / (tp x pp x cp)). The vocabulary comes from --vocab-size, else from
//! `vocabulary` (the user's --model, if any), else from the built-in model --tokenizer-model names.
//! A flag that changes the computation and is not modelled is refused, or listed as an assumption
//! when its effect is a known overlap or fusion; every problem is reported in one InputError
//! naming `origin` and the flag.
LaunchJob read_megatron_args(std::string_view text, const std::string& origin,
                             const std::function<std::optional<int>()>& vocabulary = {});

//! The settings of Megatron-LM flags that describe no whole job (a published table's cell
//! "--overlap-grad-reduce --tp-comm-overlap"): read_megatron_args without the model and the world,
//! a shape flag being a problem.
LaunchJob read_megatron_settings(std::string_view text, const std::string& origin);

}  // namespace distsim::io
