#pragma once

#include <optional>
#include <string_view>

#include "core/sim_time.hpp"
#include "events/event.hpp"

namespace distsim::cost {

//! Where an event's duration came from; the summary counts events per source.
enum class CostSource { profiled, extrapolated, analytical };

std::string_view cost_source_name(CostSource source);

struct Cost {
  SimTime duration = 0;
  CostSource source = CostSource::analytical;
  //! How long the host thread takes to issue the event (docs/host_time.md); none when the model
  //! that priced the duration does not say, and a later model of the chain then does.
  std::optional<SimTime> host = std::nullopt;
  //! The host time, 0 when no model said.
  SimTime host_time() const { return host.value_or(0); }
};

//! Gives an event its duration. A model that cannot price an event returns nothing, so models
//! chain: profile database first, then extrapolation, then the analytical model.
class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual std::optional<Cost> try_cost(const events::Event& event) const = 0;
};

}  // namespace distsim::cost
