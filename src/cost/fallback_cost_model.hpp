#pragma once

#include <memory>
#include <vector>

#include "cost/cost_model.hpp"

namespace distsim::cost {

//! Asks each model in turn and takes the first answer's duration, and the host time from the first
//! answer that gives one (a profile measures the device alone).
class FallbackCostModel : public CostModel {
 public:
  void add(std::shared_ptr<const CostModel> model) { models_.push_back(std::move(model)); }
  std::optional<Cost> try_cost(const events::Event& event) const override;
  //! Like try_cost, but an event no model prices is an InputError naming its key.
  Cost cost(const events::Event& event) const;

 private:
  std::vector<std::shared_ptr<const CostModel>> models_;
};

}  // namespace distsim::cost
