#pragma once

#include <cstdint>
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
  //! Fused (Flash) attention over `heads` query heads: QKᵀ and PV are 4·b·heads·sq·skv·d FLOPs,
  //! halved when causal since the masked half is skipped. Backward does 2.5× the forward's
  //! matrix work (FlashAttention-2, Dao 2023: five matmuls against two).
  Event attention(bool backward, std::int64_t batch, std::int64_t heads, std::int64_t kv_heads,
                  std::int64_t seq_q, std::int64_t seq_kv, std::int64_t head_dim, bool causal) const;
  //! An elementwise or normalization kernel over `elements` values that reads `reads` and writes
  //! `writes` tensors of that size (plus `extra_bytes`, e.g. a 1-byte dropout mask).
  Event elementwise(const std::string& op, std::int64_t rows, std::int64_t cols, int reads, int writes,
                    double extra_bytes = 0) const;
  //! Mixed-precision Adam over `parameters`: reads fp32 master weight, gradient, momentum and
  //! variance (16 B) and writes master weight, momentum, variance and the bf16 copy (14 B).
  Event adam_step(std::int64_t parameters) const;
  Event collective(Collective collective, std::int64_t bytes, const strategy::GroupPlacement& group,
                   int group_size) const;
  Event send_recv(std::int64_t bytes, const strategy::GroupPlacement& link) const;

 private:
  Dtype dtype_;
  int element_;
};

}  // namespace distsim::events
