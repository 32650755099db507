#pragma once

#include <cstdint>
#include <vector>

#include "events/job_events.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace distsim::memory {

//! How the attention core runs. FlashAttention (strategy::Attention::flash) never writes the s×s
//! scores to memory and rebuilds them in backward from q, k, v and the row statistics (Dao et al.
//! 2022, "FlashAttention", §3.1). `unfused` keeps the softmax output, its dropout mask and the
//! dropout output (Korthikanti et al.'s baseline). A job with strategy.attention = unfused always
//! counts them; `unfused` here asks for them whatever the job says (their Table 2, term by term).
enum class AttentionKernel { fused, unfused };

//! Bytes one layer keeps from its forward pass to its backward pass for one micro-batch on one
//! tensor-parallel rank (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
//! Transformer Models", §4 and Table 2; derivation for GQA and SwiGLU in docs/memory_model.md).
//! 16-bit activations (4-byte in fp32 jobs) and 1-byte dropout masks. Sequence parallelism shards
//! the norm, dropout and GEMM-input tensors over the tensor group too; selective recomputation
//! drops the attention scores; full recomputation keeps only the layer's input. Context
//! parallelism keeps s/cp tokens of every sequence on each rank, so every term divides by cp.
std::int64_t layer_activation_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy, int layer,
                                    AttentionKernel kernel = AttentionKernel::fused);

//! Per micro-batch on the first stage: the int64 token ids (8 bytes per token) and the embedding
//! dropout mask (1 byte per element), as Megatron-LM's theoretical_memory_usage.py counts them;
//! divided over the tensor group with sequence parallelism.
std::int64_t embedding_activation_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy);

//! Per micro-batch on the last stage: the final norm's input and output (the LM head's input) and
//! the fp32 softmax that the vocabulary-parallel cross-entropy keeps for backward, [s·b, V/t].
//! With sequence parallelism this is docs/reference/formats.md §6.5's 4·s·b·h·(1 + V/h)/t.
std::int64_t head_activation_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy);

//! Per micro-batch on the stage of the head, for each multi-token prediction module: the shifted
//! token ids, the inputs of its two norms and of eh_proj (the 2h-wide concatenation), its layer's
//! activations and a second pass through the head (head_activation_bytes).
std::int64_t mtp_activation_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy);

//! Everything a stage whose chunks are `chunks` (PipelineSchedule::stage_chunk_placements) stores
//! for backward at its peak: its layers' activations plus the embedding (first stage) and head
//! (last stage) extras, times `microbatches_in_flight`, what the job's schedule keeps
//! (PipelineSchedule::stage_microbatches_in_flight); with full recomputation, plus one whole layer
//! rebuilt while its backward runs.
std::int64_t stage_activation_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                    const std::vector<events::ChunkPlacement>& chunks, double microbatches_in_flight);

}  // namespace distsim::memory
