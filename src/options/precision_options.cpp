#include "catalog/attention_kernels.hpp"
#include "core/input_error.hpp"
#include "options/option_builders.hpp"

namespace distsim::options::table {

namespace {

using strategy::GemmFormat;

const std::vector<std::pair<std::string, GemmFormat>>& gemm_formats() {
  static const std::vector<std::pair<std::string, GemmFormat>> formats = {
      {"bf16", GemmFormat::none}, {"fp8", GemmFormat::fp8}, {"mxfp8", GemmFormat::mxfp8}, {"nvfp4", GemmFormat::nvfp4}};
  return formats;
}

//! The format of the transformer layers' linear GEMMs. It means something in bf16 training only,
//! so the echo of an fp16 or fp32 job leaves it out.
JobOption precision_option() {
  JobOption precision = strategy_choice<GemmFormat>(
      "precision", "--precision", "precision", &Strategy::gemm_format, gemm_formats(),
      "format of the transformer layers' linear GEMMs as TransformerEngine runs them: bf16, fp8 (per-tensor "
      "scales), mxfp8 (E8M0 scale per 32 elements, Blackwell) or nvfp4 (E4M3 scale per 16 elements, random "
      "Hadamard transform on the weight-gradient GEMM's operands, Blackwell); needs dtype bf16 (default bf16); a "
      "search tries several when they are listed (--precision bf16,fp8, or all)");
  precision.default_value.clear();  // none, unless --fp8 said fp8
  precision.excludes = {"fp8"};
  precision.applies = [](const JobSpec& job) { return job.strategy.dtype == Dtype::bf16; };
  precision.search_values = [read = precision.read](const JobSpec& job) { return std::vector<Value>{read(job)}; };
  precision.searched_when_listed = true;
  // Megatron-Core's --fp8-recipe values, TransformerEngine's recipe classes and Megatron-Bridge's
  // mixed-precision recipe names (bf16_with_<format>_mixed) for the formats distsim prices.
  precision.value_aliases = {{"fp8-cs", "fp8"},
                             {"fp8 current scaling", "fp8"},
                             {"float8currentscaling", "fp8"},
                             {"tensorwise", "fp8"},
                             {"fp8-ds", "fp8"},
                             {"fp8 delayed scaling", "fp8"},
                             {"delayedscaling", "fp8"},
                             {"delayed", "fp8"},
                             {"bf16_with_fp8_current_scaling_mixed", "fp8"},
                             {"bf16_with_fp8_delayed_scaling_mixed", "fp8"},
                             {"fp8-mx", "mxfp8"},
                             {"mxfp8blockscaling", "mxfp8"},
                             {"bf16_with_mxfp8_mixed", "mxfp8"},
                             {"nvfp4blockscaling", "nvfp4"},
                             {"bf16_with_nvfp4_mixed", "nvfp4"}};
  const std::string blockwise =
      "(fp8 with 1x128 and 128x128 block scales: DeepSeek-V3's recipe, TransformerEngine's Float8BlockScaling) is "
      "not modelled";
  precision.unmodelled_values = {
      {"blockwise", blockwise},
      {"fp8 blockwise", blockwise},
      {"float8blockscaling", blockwise},
      {"fp8-sc", blockwise},
      {"bf16_with_fp8_subchannel_scaling_mixed", blockwise},
      {"rowwise", "(fp8 with a scale per row: torchao float8 rowwise) is not modelled"},
      {"fp8 rowwise", "(fp8 with a scale per row: torchao float8 rowwise) is not modelled"},
      {"rowwise_with_gw_hp", "(torchao float8 rowwise with high-precision weight gradients) is not modelled"},
      {"mxfp4", "(fp4 with E8M0 scales per 32 elements) is not modelled"}};
  return precision;
}

//! --fp8 is --precision fp8; the echo writes the precision, never this synonym.
JobOption fp8_option() {
  JobOption fp8 = basic("fp8", "--fp8", ValueType::boolean, "",
                        "the same as --precision fp8 (TransformerEngine fp8 GEMMs, Megatron-Core --fp8-format hybrid)");
  fp8.excludes = {"precision"};
  fp8.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.gemm_format = as_bool(value) ? GemmFormat::fp8 : GemmFormat::none;
  };
  fp8.read = [](const JobSpec& job) -> Value { return job.strategy.gemm_format == GemmFormat::fp8; };
  fp8.applies = [](const JobSpec&) { return false; };
  return fp8;
}

//! A layer count that means something only under a low-precision format and when not zero.
JobOption bf16_layers_option(std::string key, std::string flag, int Strategy::*field, std::string help) {
  JobOption option = strategy_integer(std::move(key), std::move(flag), field, "", std::move(help));
  option.applies = [field](const JobSpec& job) {
    return job.strategy.low_precision_gemms() && job.strategy.*field > 0;
  };
  return option;
}

//! The fused attention library, whose release sets the kernel's rate; only a named one is echoed.
JobOption attention_kernel_option() {
  JobOption option =
      basic("attention_kernel", "--attention-kernel", ValueType::choice, std::string(catalog::kGenericAttentionKernel),
            "fused attention kernel and release, whose measured rate prices attention: generic (a "
            "fixed fraction of the GPU's GEMM ceiling, any GPU) or a kernel measured on the GPU's "
            "architecture (see `distsim list attention-kernels`)");
  option.allowed = catalog::attention_kernel_names();
  option.noun = "attention kernel";
  option.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.attention_kernel = as_text(value);
  };
  option.read = [](const JobSpec& job) -> Value { return job.strategy.attention_kernel; };
  option.applies = [](const JobSpec& job) { return job.strategy.attention_kernel != catalog::kGenericAttentionKernel; };
  return option;
}

//! The training precision; mixed precision (fp32 master weights, the 16-bit type in the GEMMs)
//! is how every 16-bit type trains, so "bf16 mixed" is bf16.
JobOption dtype_option() {
  JobOption dtype = strategy_choice<Dtype>("dtype", "--dtype", "dtype", &Strategy::dtype,
                                           {{"bf16", Dtype::bf16}, {"fp16", Dtype::fp16}, {"fp32", Dtype::fp32}},
                                           "training precision");
  // PyTorch's dtype names, Lightning's precision flags and Megatron-Bridge's recipe names.
  dtype.value_aliases = {{"bfloat16", "bf16"}, {"bf16 mixed", "bf16"}, {"fp16 mixed", "fp16"},
                         {"16-mixed", "fp16"}, {"float16", "fp16"},    {"half", "fp16"},
                         {"float32", "fp32"},  {"32-true", "fp32"},    {"bf16-true", "bf16"}};
  return dtype;
}

}  // namespace

std::vector<JobOption> precision_options() {
  return {dtype_option(),
          fp8_option(),
          precision_option(),
          bf16_layers_option("bf16_layers_at_start", "--bf16-layers-at-start", &Strategy::bf16_layers_at_start,
                             "transformer layers at the start of the model that keep bf16 GEMMs under a low "
                             "precision (Megatron-Core --num-layers-at-start-in-bf16)"),
          bf16_layers_option("bf16_layers_at_end", "--bf16-layers-at-end", &Strategy::bf16_layers_at_end,
                             "transformer layers at the end of the model that keep bf16 GEMMs under a low precision "
                             "(Megatron-Core --num-layers-at-end-in-bf16)"),
          strategy_choice<strategy::Attention>(
              "attention", "--attention", "attention implementation", &Strategy::attention,
              {{"flash", strategy::Attention::flash}, {"unfused", strategy::Attention::unfused}},
              "attention core: flash (one fused kernel, Megatron-LM --use-flash-attn) or unfused (batched GEMMs, "
              "softmax and dropout through memory, Megatron-LM before 2023)"),
          attention_kernel_option()};
}

}  // namespace distsim::options::table
