#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "cost/cost_model.hpp"
#include "profile/profile_record.hpp"

namespace distsim::profile {

//! Prices events from measurements of one hardware: an event whose key was measured takes its
//! median (source profiled). A collective over more ranks than any measured group of the same
//! message is extrapolated from the largest smaller measured group by the ring algorithm's
//! per-rank volume, 2(N-1)/N for all-reduce and (N-1)/N for all-gather and reduce-scatter
//! (source extrapolated), as DistSim does for all-reduce beyond the 8 devices it profiles (Lu et
//! al., CF'23). Everything else is left to the next model in the chain.
//! Immutable after construction, so simulations on several threads may share one.
class ProfileCostModel : public cost::CostModel {
 public:
  //! `records` are one hardware's measurements. Throws InputError for a stored key that does
  //! not parse (a database edited by hand).
  explicit ProfileCostModel(const std::vector<ProfileRecord>& records);

  std::optional<cost::Cost> try_cost(const events::Event& event) const override;

  size_t size() const { return by_key_.size(); }

 private:
  //! Collectives that differ only in group size: collective, bytes, intra-node, and for
  //! inter-node groups the ranks per node (how many NICs the group drives).
  using MessageShape = std::tuple<events::Collective, std::int64_t, bool, int>;
  static MessageShape shape_of(const events::Event& event);

  std::optional<cost::Cost> extrapolate(const events::Event& event) const;

  std::unordered_map<std::string, SimTime> by_key_;
  //! Measured median in nanoseconds by group size, per message shape.
  std::map<MessageShape, std::map<int, double>> collectives_;
};

}  // namespace distsim::profile
