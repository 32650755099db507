#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "events/event.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::events {

//! Builds the events of one operator each, with the FLOPs and bytes the shapes imply. Byte counts
//! are reads plus writes of the operator's tensors in device memory.
class EventFactory {
 public:
  explicit EventFactory(Dtype dtype) : dtype_(dtype), element_(dtype_bytes(dtype)) {}

  //! C[m×n] = A[m×k]·B[k×n]: 2mnk FLOPs.
  Event gemm(std::int64_t m, std::int64_t n, std::int64_t k) const;
  //! `batch` independent products C[m×n] = A[m×k]·B[k×n] in one kernel (cuBLAS strided batched
  //! GEMM, as torch.bmm and torch.baddbmm run): 2·batch·m·n·k FLOPs, op "batched_gemm".
  Event batched_gemm(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k) const;
  //! One product per local expert, `groups` of them with m tokens each, in one grouped kernel
  //! (TransformerEngine's GroupedLinear): 2·groups·m·n·k FLOPs; inputs in the low-precision
  //! `format` when given, as low_precision_gemm; op "grouped_gemm".
  Event grouped_gemm(std::int64_t groups, std::int64_t m, std::int64_t n, std::int64_t k,
                     std::optional<Dtype> format) const;
  //! The same product with fp8 inputs, as TransformerEngine runs a linear layer's GEMMs with
  //! --fp8-format hybrid: 2mnk FLOPs, A and B read at 1 byte per element, C written in the
  //! factory's dtype (bf16); dtype fp8.
  Event fp8_gemm(std::int64_t m, std::int64_t n, std::int64_t k) const;
  //! The same product in a low-precision format (fp8, mxfp8 or nvfp4): A and B read at the
  //! format's storage_bytes (block scales included), C written in the factory's dtype.
  Event low_precision_gemm(Dtype format, std::int64_t m, std::int64_t n, std::int64_t k) const;
  //! Fused (Flash) attention over `heads` query heads: QKᵀ and PV are 4·b·heads·sq·skv·d FLOPs,
  //! halved when causal since the masked half is skipped (with sq < skv the mask is bottom-right:
  //! sq·skv − sq²/2 query-key pairs). Backward does 2.5× the forward's
  //! matrix work (FlashAttention-2, Dao 2023: five matmuls against two). A causal sliding window
  //! `window` < sq (with sq = skv) leaves query i min(i + 1, window) keys: sq·w − w(w − 1)/2 pairs,
  //! counted exactly as the causal half is (docs/cost_models.md: kernels compute whole tiles).
  Event attention(bool backward, std::int64_t batch, std::int64_t heads, std::int64_t kv_heads, std::int64_t seq_q,
                  std::int64_t seq_kv, std::int64_t head_dim, bool causal, std::int64_t window = 0) const;
  //! Fused attention of multi-head latent attention over `heads` heads, query/key heads of `dqk`
  //! and value heads of `dv` (TransformerEngine's DotProductAttention with k_channels dqk and
  //! v_channels dv, as Megatron-Core's MLASelfAttention builds it). Forward: QKᵀ is 2·b·heads·sq·skv·dqk
  //! FLOPs and PV 2·b·heads·sq·skv·dv, halved when causal. Backward (FlashAttention-2's five
  //! matmuls): QKᵀ recomputed, dQ and dK use dqk, dP and dV use dv: 2·b·heads·sq·skv·(3·dqk + 2·dv),
  //! which is 2.5× the forward when dqk = dv. Bytes: forward reads Q, K, V and writes O; backward
  //! reads Q, K, V, O and dO, writes dQ, dK and dV, and reads O and dO once more for the row sums.
  Event latent_attention(bool backward, std::int64_t batch, std::int64_t heads, std::int64_t seq_q, std::int64_t seq_kv,
                         std::int64_t qk_head_dim, std::int64_t v_head_dim, bool causal) const;
  //! An elementwise or normalization kernel over `elements` values that reads `reads` and writes
  //! `writes` tensors of that size (plus `extra_bytes`, e.g. a 1-byte dropout mask).
  Event elementwise(Operator op, std::int64_t rows, std::int64_t cols, int reads, int writes,
                    double extra_bytes = 0) const;
  //! The MoE router's scoring and top-k over `experts` logits of `rows` tokens (op moe_router) or
  //! its backward (moe_router_bwd). Forward reads the logits and writes the probabilities and the
  //! routing map, each rows·experts; backward reads two such tensors and writes the logits' gradient.
  Event moe_router(bool backward, std::int64_t rows, std::int64_t experts, std::int64_t top_k) const;
  //! TransformerEngine's fp8_cast_transpose of a [rows × cols] tensor in the factory's dtype: one
  //! read, then its fp8 copy and the fp8 copy's transpose written (Hopper's fp8 GEMMs take only
  //! the TN layout, so the backward GEMMs need the transposed operand): rows·cols·(element + 1 + 1)
  //! bytes; op "fp8_cast_transpose".
  Event fp8_cast_transpose(std::int64_t rows, std::int64_t cols) const;
  //! A norm that writes its output in fp8, the cast fused into the norm kernel as in
  //! TransformerEngine's LayerNormLinear: reads the input once and writes the fp8 output and its
  //! transpose, rows·cols·(element + 1 + 1) bytes; op layernorm_fp8 or rmsnorm_fp8.
  Event norm_to_fp8(Operator norm, std::int64_t rows, std::int64_t cols) const;
  //! TransformerEngine's quantization of a [rows × cols] GEMM input in the factory's dtype into a
  //! block-scaled format: one read, then a rowwise and a columnwise copy written, each computed
  //! from the input because block scales run along one direction (TE's MXFP8 and NVFP4 recipes):
  //! rows·cols·(element + 2·storage_bytes) bytes; op mxfp8_quantize or nvfp4_quantize (fp8 is
  //! fp8_cast_transpose).
  Event block_quantize(Dtype format, std::int64_t rows, std::int64_t cols) const;
  //! Megatron-LM's optimizer step over `parameters` whose model copy is in this factory's dtype
  //! (MixedPrecisionOptimizer.step with fp32 main gradients): for fp16, unscale the gradients and
  //! check them for inf/NaN (read and write 4 B); the gradient norm for clipping (read 4 B); Adam
  //! on the fp32 main parameters (read parameter, gradient, momentum, variance, write parameter,
  //! momentum, variance: 28 B); for fp16/bf16, copy the main parameters into the model's
  //! (read 4, write 2 B). fp16 46 B, bf16 38 B, fp32 32 B per parameter.
  Event adam_step(std::int64_t parameters) const;
  Event collective(Collective collective, std::int64_t bytes, const strategy::GroupPlacement& group,
                   int group_size) const;
  Event send_recv(std::int64_t bytes, const strategy::GroupPlacement& link) const;
  //! One step of a ring over `ring` (group_size ranks): every rank sends `bytes` to its successor
  //! and receives `bytes` from its predecessor at once, a point-to-point event.
  Event ring_exchange(std::int64_t bytes, const strategy::GroupPlacement& ring, int group_size) const;

 private:
  Dtype dtype_;
  int element_;
};

}  // namespace distsim::events
