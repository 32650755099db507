#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/document/diagnostics.hpp"
#include "io/spec/launch_script.hpp"
#include "model/ffn_type.hpp"
#include "model/model_spec.hpp"
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

//! What a launch that is not a Megatron-LM command line gives beside its flags (a Megatron-Bridge
//! config has no world, and an override file takes its model from a recipe).
struct MegatronReading {
  std::function<std::optional<int>()> vocabulary;  //!< as read_megatron_args's
  //! The model the shape flags change; none: Megatron-LM's defaults. With one and no shape flag the
  //! launch gives no model.
  std::optional<model::ModelSpec> base_model;
  std::optional<long long> world;            //!< GPUs of the job where no --nnodes and --nproc-per-node say
  std::optional<model::FfnType> activation;  //!< an activation no Megatron-LM switch names (GeGLU)
  std::string model_name = "megatron-args";  //!< the name of the model the flags describe
  //! How the launch writes a flag it does not give, for messages ("--num-layers is not given").
  std::function<std::string(std::string_view flag)> spelled;
  //! Where problems go: the caller's, so that its own and the flags' are reported in one error;
  //! none: the reader's own.
  Diagnostics* diagnostics = nullptr;
};

//! read_megatron_args over flags read already, with what `reading` adds.
LaunchJob read_megatron_flags(const std::vector<LaunchFlag>& flags, const std::string& origin,
                              const MegatronReading& reading);

//! The settings of Megatron-LM flags that describe no whole job (a published table's cell
//! "--overlap-grad-reduce --tp-comm-overlap"): read_megatron_args without the model and the world,
//! a shape flag being a problem.
LaunchJob read_megatron_settings(std::string_view text, const std::string& origin);

}  // namespace distsim::io
