#pragma once

#include <cstdint>

#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace distsim::events {

//! How many routed token copies the busiest expert rank computes per local expert in one MoE
//! layer of a micro-batch, given the `router_tokens` each rank routes. Every rank sends
//! router_tokens·top_k copies (alltoall), or keeps as many of the expert-parallel group's gathered
//! tokens (allgather), so the mean rank computes that many; the busiest computes
//! Strategy::moe_imbalance times the mean, capped by the model's capacity factor when it has one
//! (the surplus is dropped), spread over its num_experts / ep experts. Under expert tensor
//! parallelism each rank computes the rows of its whole expert tensor group (gathered after the
//! dispatch) on a 1/etp slice of each expert: etp times as many. Rounded up.
std::int64_t moe_tokens_per_expert(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                   std::int64_t router_tokens);

//! The routed copies the busiest expert rank receives over the dispatch: router_tokens·top_k
//! times the imbalance, rounded up (the surplus over a capacity is dropped after dispatch).
std::int64_t moe_dispatched_copies(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                   std::int64_t router_tokens);

}  // namespace distsim::events
