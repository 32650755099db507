#pragma once

#include <cstdint>

#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace distsim::events {

//! Megatron-Core's capacity of each expert for one rank's `router_tokens` (moe_utils.get_capacity
//! over the rank's routed copies): ceil(router_tokens·top_k / num_experts · capacity_factor). The
//! router drops what an expert receives beyond it, before the dispatch.
std::int64_t moe_expert_capacity(const model::ModelSpec& model, std::int64_t router_tokens);

//! How many routed token copies the busiest expert rank computes per local expert in one MoE
//! layer of a micro-batch, given the `router_tokens` each rank routes. Every rank sends
//! router_tokens·top_k copies (alltoall), or keeps as many of the expert-parallel group's gathered
//! tokens (allgather), so the mean rank computes that many; the busiest computes
//! Strategy::moe_imbalance times the mean, capped by the model's capacity factor when it has one
//! (the surplus is dropped), spread over its num_experts / ep experts. Under expert tensor
//! parallelism each rank computes the rows of its whole expert tensor group (gathered after the
//! dispatch) on a 1/etp slice of each expert: etp times as many. Rounded up. Padded to capacity
//! (Strategy::moe_pad_to_capacity), every expert takes its capacity from each of the ep ranks
//! that send to it, whatever was routed: capacity·ep, times etp.
std::int64_t moe_tokens_per_expert(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                   std::int64_t router_tokens);

//! The routed copies the busiest expert rank receives over the dispatch: router_tokens·top_k
//! times the imbalance, capped by the capacity factor (the router drops the surplus before the
//! dispatch), rounded up; padded to capacity, the capacity of each of the num_experts experts,
//! which every rank sends and receives alike.
std::int64_t moe_dispatched_copies(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                   std::int64_t router_tokens);

//! The ranks of an ep-rank expert-parallel group that one token's top_k experts sit on, expected
//! over routing uniform on the experts (force-balanced benchmark routing; no group limit): each
//! rank holds E/ep of the E experts, and misses all top_k with probability
//! C(E − E/ep, top_k) / C(E, top_k).
double moe_destination_ranks(const model::ModelSpec& model, int expert_parallel);

//! The rows the busiest expert rank receives over the dispatch: moe_dispatched_copies, or with a
//! dispatcher that sends a token once per destination rank (strategy::sends_once_per_rank),
//! router_tokens times moe_destination_ranks times the imbalance, rounded up.
std::int64_t moe_dispatched_rows(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                 std::int64_t router_tokens);

}  // namespace distsim::events
