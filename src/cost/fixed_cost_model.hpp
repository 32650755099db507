#pragma once

#include <map>
#include <string>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "cost/cost_model.hpp"

namespace distsim::cost {

//! Durations fixed by operator name, with defaults for compute and communication. It makes
//! hand-computable cases possible (say, 1 ms per attention forward, everything else free) and
//! lets a user pin an operator's time. Its costs count as profiled: they were given, not modelled.
//! Every event takes the same host time to issue, 0 unless given.
class FixedCostModel : public CostModel {
 public:
  //! Throws InputError when a name of `by_op` is not an operator of the operator table.
  FixedCostModel(std::map<std::string, SimTime> by_op, SimTime compute_default, SimTime communication_default,
                 SimTime host = 0)
      : by_op_(std::move(by_op)),
        compute_default_(compute_default),
        communication_default_(communication_default),
        host_(host) {
    for (const auto& [name, duration] : by_op_) {
      if (!events::find_operator(name)) {
        throw InputError(unknown_name_message("operator", name, events::operator_names()));
      }
    }
  }

  std::optional<Cost> try_cost(const events::Event& event) const override {
    const auto found = by_op_.find(std::string(events::operator_name(event.op)));
    if (found != by_op_.end()) {
      return Cost{found->second, CostSource::profiled, host_};
    }
    return Cost{event.is_communication() ? communication_default_ : compute_default_, CostSource::profiled, host_};
  }

 private:
  std::map<std::string, SimTime> by_op_;
  SimTime compute_default_;
  SimTime communication_default_;
  SimTime host_;
};

}  // namespace distsim::cost
