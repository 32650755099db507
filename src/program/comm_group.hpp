#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "events/event.hpp"
#include "events/stream_kind.hpp"
#include "strategy/rank_layout.hpp"
#include "strategy/strategy.hpp"

namespace distsim::program {

//! The ranks a communication task joins, named by the parallel dimensions it spans: what a rank's
//! part of a collective needs to know of its partners when the program simulates one device per
//! stage (its collective tasks then have one member a stage). Each is a group of the rank layout
//! (strategy::RankLayout), the same the events were placed on.
enum class CommGroup : std::uint8_t {
  none,           //!< not a collective: computation, a pipeline transfer, a host launch
  tensor,         //!< the tensor-parallel group
  context,        //!< the context-parallel group, or one level of it under a2a+p2p
  expert,         //!< the expert-parallel group
  expert_tensor,  //!< the expert tensor-parallel group
  expert_data,    //!< the expert data-parallel group (the ranks that hold the same experts)
  gradient,       //!< the data-parallel group with every context rank (Megatron-Core's dp-with-cp)
  shard,          //!< FSDP's shard group (RankLayout::shard_group_members)
  replica,        //!< HSDP's replica group (RankLayout::replica_group_members)
  stages,         //!< the rank's position on each stage the task spans (embedding, parameter copies)
};

//! The group of a communication step inside a pass, which runs on the stream of its kind:
//! tensor, context, expert and expert-tensor exchanges on theirs, ZeRO-3's parameter gathers and
//! gradient reduce-scatters on the shard group, HSDP's all-reduce on the replica group.
CommGroup in_pass_group(events::StreamKind stream);

//! The stream a collective over `group` runs on outside the passes, and the one a measured
//! collective over that group is compared on: the in-pass groups' own streams, every data-parallel
//! group (gradient, shard, expert data, and the stage pairs that reduce tied embeddings and copied
//! parameters) on dp_comm, HSDP's replica group on dp_replica. compute for CommGroup::none.
events::StreamKind comm_group_stream(CommGroup group);

//! The ranks, in rank order, of the group `group` of the rank at `coord` for a task of `event`
//! (whose collective says which level of a hierarchical context group it runs on). `stages`: for
//! CommGroup::stages, the stages the task spans. Empty for CommGroup::none.
std::vector<int> comm_group_members(const strategy::RankLayout& layout, const strategy::Strategy& strategy,
                                    const strategy::RankCoord& coord, CommGroup group, const events::Event& event,
                                    std::span<const int> stages = {});

}  // namespace distsim::program
