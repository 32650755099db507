#include "events/moe_routing.hpp"

#include <algorithm>
#include <cmath>

namespace distsim::events {

std::int64_t moe_expert_capacity(const model::ModelSpec& model, std::int64_t router_tokens) {
  const auto& moe = model.moe;
  return static_cast<std::int64_t>(
      std::ceil(static_cast<double>(router_tokens) * moe.top_k / moe.num_experts * moe.capacity_factor));
}

std::int64_t moe_tokens_per_expert(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                   std::int64_t router_tokens) {
  const auto& moe = model.moe;
  if (strategy.moe_pad_to_capacity) {
    return moe_expert_capacity(model, router_tokens) * std::max(strategy.expert_parallel, 1) *
           std::max(strategy.expert_tensor_parallel, 1);
  }
  const double mean = static_cast<double>(router_tokens) * moe.top_k;
  const double busiest =
      moe.dropless() ? strategy.moe_imbalance : std::min(strategy.moe_imbalance, moe.capacity_factor);
  const auto copies =
      static_cast<std::int64_t>(std::ceil(mean * busiest)) * std::max(strategy.expert_tensor_parallel, 1);
  const std::int64_t local_experts = std::max(1, moe.num_experts / std::max(strategy.expert_parallel, 1));
  return (copies + local_experts - 1) / local_experts;
}

std::int64_t moe_dispatched_copies(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                   std::int64_t router_tokens) {
  const auto& moe = model.moe;
  if (strategy.moe_pad_to_capacity) return moe_expert_capacity(model, router_tokens) * moe.num_experts;
  const double busiest =
      moe.dropless() ? strategy.moe_imbalance : std::min(strategy.moe_imbalance, moe.capacity_factor);
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(router_tokens) * moe.top_k * busiest));
}

double moe_destination_ranks(const model::ModelSpec& model, int expert_parallel) {
  const auto& moe = model.moe;
  const int ranks = std::max(expert_parallel, 1);
  const int elsewhere = moe.num_experts - moe.num_experts / ranks;  // experts not on a given rank
  double misses = 1.0;
  for (int pick = 0; pick < moe.top_k; ++pick) {
    misses *= static_cast<double>(elsewhere - pick) / static_cast<double>(moe.num_experts - pick);
  }
  return ranks * (1.0 - std::max(misses, 0.0));
}

std::int64_t moe_dispatched_rows(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                 std::int64_t router_tokens) {
  if (!strategy::sends_once_per_rank(strategy.moe_dispatcher)) {
    return moe_dispatched_copies(model, strategy, router_tokens);
  }
  const double rows = static_cast<double>(router_tokens) * moe_destination_ranks(model, strategy.expert_parallel) *
                      strategy.moe_imbalance;
  return static_cast<std::int64_t>(std::ceil(rows));
}

}  // namespace distsim::events
