#pragma once

namespace distsim::model {

//! Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434 §2.1; DeepSeek-V3; Kimi K2): keys
//! and values are projected down to one latent of kv_lora_rank per token and back up per head,
//! queries through a latent of q_lora_rank, and each query and key head has a no-RoPE part and a
//! decoupled RoPE part (the RoPE key is shared by all heads). Hugging Face names kept as is.
struct MlaSpec {
  int q_lora_rank = 0;       //!< 0: queries projected at full rank (DeepSeek-V2-Lite)
  int kv_lora_rank = 0;      //!< 0: the model has no latent attention
  int qk_nope_head_dim = 0;  //!< per-head query/key dimension without RoPE
  int qk_rope_head_dim = 0;  //!< per-head query dimension with RoPE, and the one shared RoPE key's
  int v_head_dim = 0;        //!< per-head value dimension

  bool enabled() const { return kv_lora_rank > 0; }
  int qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }
  bool operator==(const MlaSpec&) const = default;
};

}  // namespace distsim::model
