#include "cost/fallback_cost_model.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "core/input_error.hpp"
#include "cost/fixed_cost_model.hpp"

namespace distsim::cost {

namespace {

// Prices one operator and nothing else, like a profile database that measured only it.
class OneOpCostModel : public CostModel {
 public:
  OneOpCostModel(events::Operator op, SimTime duration) : op_(op), duration_(duration) {}
  std::optional<Cost> try_cost(const events::Event& event) const override {
    if (event.op != op_) {
      return std::nullopt;
    }
    return Cost{duration_, CostSource::extrapolated};
  }

 private:
  events::Operator op_;
  SimTime duration_;
};

events::Event compute_event(events::Operator op) {
  events::Event event;
  event.event_class = events::EventClass::memory_bound;
  event.op = op;
  event.dims = {{"rows", 4}, {"cols", 8}};
  return event;
}

events::Event all_reduce_event() {
  events::Event event;
  event.event_class = events::EventClass::collective;
  event.op = events::Operator::all_reduce;
  event.bytes = 1024;
  event.group_size = 8;
  return event;
}

}  // namespace

TEST(FixedCostModel, RefusesANameThatIsNoOperator) {
  try {
    FixedCostModel({{"layernrom", 7}}, 100, 200);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("unknown operator 'layernrom'; did you mean 'layernorm'?", 0), 0u) << e.what();
  }
}

TEST(FixedCostModel, PricesByOperatorThenByKind) {
  const FixedCostModel model({{"layernorm", 7}}, 100, 200);
  EXPECT_EQ(model.try_cost(compute_event(events::Operator::layernorm))->duration, 7);
  EXPECT_EQ(model.try_cost(compute_event(events::Operator::gelu))->duration, 100);
  EXPECT_EQ(model.try_cost(all_reduce_event())->duration, 200);
  EXPECT_EQ(model.try_cost(all_reduce_event())->source, CostSource::profiled);
}

TEST(FallbackCostModel, TakesTheFirstModelThatAnswers) {
  FallbackCostModel chain;
  chain.add(std::make_shared<OneOpCostModel>(events::Operator::layernorm, 5));
  chain.add(std::make_shared<FixedCostModel>(std::map<std::string, SimTime>{}, 100, 200));
  const Cost first = chain.cost(compute_event(events::Operator::layernorm));
  EXPECT_EQ(first.duration, 5);
  EXPECT_EQ(first.source, CostSource::extrapolated);
  const Cost second = chain.cost(compute_event(events::Operator::gelu));
  EXPECT_EQ(second.duration, 100);
  EXPECT_EQ(second.source, CostSource::profiled);
}

TEST(FallbackCostModel, NamesTheEventNoModelCanPrice) {
  FallbackCostModel chain;
  chain.add(std::make_shared<OneOpCostModel>(events::Operator::layernorm, 5));
  const events::Event gelu = compute_event(events::Operator::gelu);
  EXPECT_FALSE(chain.try_cost(gelu).has_value());
  try {
    chain.cost(gelu);
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(), "no cost model can price event 'gelu rows=4 cols=8 bf16'");
  }
}

TEST(CostSourceName, SpellsEachSource) {
  EXPECT_EQ(cost_source_name(CostSource::profiled), "profiled");
  EXPECT_EQ(cost_source_name(CostSource::extrapolated), "extrapolated");
  EXPECT_EQ(cost_source_name(CostSource::analytical), "analytical");
}

}  // namespace distsim::cost
