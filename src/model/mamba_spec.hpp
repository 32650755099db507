#pragma once

#include <cstdint>

namespace distsim::model {

//! The Mamba-2 mixer of a hybrid model's Mamba layers (Dao and Gu, "Transformers are SSMs",
//! arXiv 2405.21060; Megatron-Core's MambaMixer). Hugging Face NemotronH names in comments.
//! Per token, the input projection writes the gate z and the input x (num_heads × head_dim each),
//! B and C (groups × state_size each) and one step size dt per head; a causal depthwise
//! convolution of conv_kernel taps runs over x, B and C; the state-space scan runs in chunks of
//! chunk_size tokens (the SSD algorithm); a gated RMSNorm over groups of the heads precedes the
//! output projection.
struct MambaSpec {
  int num_heads = 0;    //!< mamba_num_heads; 0: the model has no Mamba layers
  int head_dim = 0;     //!< mamba_head_dim
  int state_size = 0;   //!< ssm_state_size (N)
  int groups = 0;       //!< n_groups: heads share B and C within a group
  int conv_kernel = 0;  //!< conv_kernel
  int chunk_size = 0;   //!< chunk_size of the SSD scan

  bool enabled() const { return num_heads > 0; }
  //! The inner width d_inner: every head's channels.
  std::int64_t inner() const { return std::int64_t{num_heads} * head_dim; }
  //! The channels the convolution runs over: x, B and C.
  std::int64_t conv_channels() const { return inner() + 2 * std::int64_t{groups} * state_size; }
  //! The input projection's output: z, x, B, C and dt.
  std::int64_t in_projection() const { return inner() + conv_channels() + num_heads; }
  bool operator==(const MambaSpec&) const = default;
};

}  // namespace distsim::model
