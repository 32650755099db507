#include "cost/fallback_cost_model.hpp"

#include "core/input_error.hpp"

namespace distsim::cost {

std::string_view cost_source_name(CostSource source) {
  switch (source) {
    case CostSource::profiled: return "profiled";
    case CostSource::extrapolated: return "extrapolated";
    case CostSource::analytical: return "analytical";
  }
  return "?";
}

std::optional<Cost> FallbackCostModel::try_cost(const events::Event& event) const {
  std::optional<Cost> found;
  for (const auto& model : models_) {
    auto answer = model->try_cost(event);
    if (!answer) continue;
    if (!found) {
      found = answer;
    } else if (!found->host) {
      found->host = answer->host;
    }
    if (found->host) break;
  }
  return found;
}

Cost FallbackCostModel::cost(const events::Event& event) const {
  if (auto found = try_cost(event)) {
    return *found;
  }
  throw InputError("no cost model can price event '" + event.key() + "'");
}

}  // namespace distsim::cost
