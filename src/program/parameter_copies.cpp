#include "program/parameter_copies.hpp"

#include <algorithm>

#include "events/event_factory.hpp"
#include "events/gradient_buckets.hpp"

namespace distsim::program {

namespace {

bool holds_copy(const events::ChunkPlacement& chunk, const std::vector<events::ChunkPlacement>& other) {
  return chunk.layers.count > 0 && std::any_of(other.begin(), other.end(), [&chunk](const auto& candidate) {
           return candidate.layers.first == chunk.layers.first && candidate.layers.count == chunk.layers.count;
         });
}

}  // namespace

std::optional<CopyReduction> copy_reduction(const strategy::JobSpec& job, const strategy::RankLayout& layout,
                                            const strategy::RankCoord& coord,
                                            const std::vector<std::vector<events::ChunkPlacement>>& placements,
                                            const events::RankWork& work, events::EventTable& table) {
  const strategy::Strategy& strategy = job.strategy;
  const int stage = coord[strategy::ParallelDim::pp];
  const auto& own = placements[static_cast<size_t>(stage)];
  for (int other = 0; other < static_cast<int>(placements.size()); ++other) {
    if (other == stage) continue;
    std::int64_t parameters = 0;
    for (size_t chunk = 0; chunk < own.size(); ++chunk) {
      if (holds_copy(own[chunk], placements[static_cast<size_t>(other)])) {
        parameters += work.chunks[chunk].parameters;
      }
    }
    if (parameters == 0) continue;
    const int shards = strategy.zero_stage() != strategy::Sharding::none ? strategy.shard_group_size() : 1;
    const std::int64_t bytes = (parameters + shards - 1) / shards * events::gradient_element_bytes(strategy.dtype);
    const events::EventFactory factory(strategy.dtype);
    const auto event =
        table.intern(factory.collective(events::Collective::all_reduce, bytes, layout.stage_link(coord, other), 2));
    return CopyReduction{other, event};
  }
  return std::nullopt;
}

}  // namespace distsim::program
