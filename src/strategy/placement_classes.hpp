#pragma once

#include <vector>

#include "strategy/rank_compute.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::strategy {

//! The data-parallel replicas of a job grouped by how they sit on the machines, so that one
//! replica per group can be simulated for all of them (--all-ranks).
//!
//! A block is the smallest run of consecutive data-parallel indices that holds whole expert
//! groups (along ETP and EP) and whole FSDP shard groups; every group of a rank lies inside its
//! block except those along the data-parallel axis (gradient, expert data-parallel and HSDP replica
//! groups), and each of those holds a member of every block. Two blocks whose ranks fall onto
//! hosts and scale-up domains in the same pattern hold groups placed alike, so they run the same
//! events at the same times: a collective across blocks waits for the latest of them, which is
//! the latest block of some class either way. Blocks are compared by that pattern, and since it
//! repeats whenever the block's first rank moves by a whole domain of GPUs, only one cycle of
//! blocks is looked at: nothing here grows with the number of replicas.
class PlacementClasses {
 public:
  //! `dp_per_shard`: the data-parallel indices of one FSDP shard group, or 0 without FSDP. Without
  //! `merge_alike` every block is a class of its own (to check the merged classes against). With
  //! `compute` where ranks compute differently (GPU types, slow ranks or hosts), blocks are alike
  //! only when their ranks also compute alike, and every block is looked at (how a rank computes
  //! follows its host or its number, not a cycle).
  PlacementClasses(const RankLayout& layout, int dp_per_shard, bool merge_alike = true,
                   const RankCompute* compute = nullptr);

  //! Data-parallel indices per block.
  int block_size() const { return block_size_; }
  int num_blocks() const { return num_blocks_; }
  int num_classes() const { return static_cast<int>(representatives_.size()); }
  //! How many data-parallel indices are simulated: one block per class.
  int simulated_indices() const { return num_classes() * block_size_; }

  //! The position among the simulated data-parallel indices of `dp` itself, or -1 when another
  //! block of its class stands for it.
  int simulated_position(int dp) const;
  //! The position among the simulated data-parallel indices of the index that stands for `dp`.
  int standing_position(int dp) const;
  //! The data-parallel index simulated at `position`.
  int simulated_index(int position) const;
  //! How many data-parallel indices the one simulated at `position` stands for (itself included).
  int indices_standing_for(int position) const;

 private:
  int class_of_block(int block) const { return class_of_cycle_[static_cast<size_t>(block % cycle())]; }
  int cycle() const { return static_cast<int>(class_of_cycle_.size()); }

  int block_size_ = 1;
  int num_blocks_ = 1;
  std::vector<int> class_of_cycle_;   //!< per block of the first cycle, its class
  std::vector<int> representatives_;  //!< per class, its first block (increasing)
};

}  // namespace distsim::strategy
