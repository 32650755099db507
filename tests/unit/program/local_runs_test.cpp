#include "program/local_runs.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace distsim::program {

using events::StreamKind;
using events::TaskTemplate;

namespace {

// Events by id: a gather of 10, a computation of 4, a tensor-parallel collective of 3, one of 6
// and a computation of 2.
constexpr events::EventId kGather = 0;
constexpr events::EventId kCompute = 1;
constexpr events::EventId kCollective = 2;
constexpr events::EventId kLongCollective = 3;
constexpr events::EventId kShortCompute = 4;
const std::vector<cost::Cost> kCosts{{10}, {4}, {3}, {6}, {2}};

TaskTemplate step(events::EventId event, StreamKind stream, int waits_for = -1, int waits_for_parameters = -1) {
  TaskTemplate made;
  made.event = event;
  made.stream = stream;
  made.waits_for = waits_for;
  made.waits_for_parameters = waits_for_parameters;
  return made;
}

TaskTemplate gather() { return step(kGather, StreamKind::dp_comm); }
TaskTemplate reduction(int waits_for = -1) { return step(kGather, StreamKind::dp_reduce, waits_for); }

//! Local: everything but the data-parallel streams.
std::vector<bool> local_of(const std::vector<TaskTemplate>& templates) {
  std::vector<bool> local;
  local.reserve(templates.size());
  for (const auto& made : templates) {
    local.push_back(made.stream != StreamKind::dp_comm && made.stream != StreamKind::dp_reduce);
  }
  return local;
}

std::optional<LocalRuns> runs_of(const std::vector<TaskTemplate>& templates, std::vector<std::size_t> awaited = {}) {
  return local_runs(templates, local_of(templates), kCosts, awaited);
}

}  // namespace

// Two units of a ZeRO-3 forward: gather, then computation 4, collective 3 (after it), computation 4
// (after the collective): 4 + 3 + 4 = 11; the second unit's computation alone, 4. The gathers
// stay tasks, and so does a collective before the pass's first computation.
TEST(LocalRuns, GroupTheWorkBetweenGathers) {
  const std::vector<TaskTemplate> templates{
      step(kCollective, StreamKind::tp_comm),     gather(),
      step(kCompute, StreamKind::compute, 0, 1),  step(kCollective, StreamKind::tp_comm, 2),
      step(kCompute, StreamKind::compute, 3),     gather(),
      step(kCompute, StreamKind::compute, -1, 5), reduction(6)};
  const auto runs = runs_of(templates, {6});
  ASSERT_TRUE(runs.has_value());
  EXPECT_EQ(runs->run_of, (std::vector<int>{-1, -1, 0, 0, 0, -1, 1, -1}));
  ASSERT_EQ(runs->runs.size(), 2U);
  EXPECT_EQ(runs->runs[0].first, 2U);
  EXPECT_EQ(runs->runs[0].end, 5U);
  EXPECT_EQ(runs->runs[0].duration, 11);
  EXPECT_EQ(runs->runs[1].first, 6U);
  EXPECT_EQ(runs->runs[1].end, 7U);
  EXPECT_EQ(runs->runs[1].duration, 4);
}

// A computation that waits for a gather starts a new run even with no gather between: the head's
// parameters gathered before the last layer ran.
TEST(LocalRuns, StartARunAtAComputationThatWaitsForAGather) {
  const std::vector<TaskTemplate> templates{gather(), gather(), step(kCompute, StreamKind::compute, -1, 0),
                                            step(kCompute, StreamKind::compute, -1, 1)};
  const auto runs = runs_of(templates);
  ASSERT_TRUE(runs.has_value());
  EXPECT_EQ(runs->run_of, (std::vector<int>{-1, -1, 0, 1}));
}

// The collective (6) outlasts the computation of 2 that runs beside it: the run's last computation
// ends at 4 + 2 = 6, the run at 4 + 6 = 10, so the next gather, issued after that computation,
// would wait 4 too long.
TEST(LocalRuns, RefuseARunWhoseCommunicationOutlastsItsLastComputation) {
  const std::vector<TaskTemplate> templates{gather(), step(kCompute, StreamKind::compute, -1, 0),
                                            step(kLongCollective, StreamKind::tp_comm, 1),
                                            step(kShortCompute, StreamKind::compute), gather()};
  EXPECT_FALSE(runs_of(templates).has_value());
}

// A reduction that waits for the first of two computations (ending at 4 of 8) cannot wait for the
// run; neither can the pass's successor when it waits for that computation.
TEST(LocalRuns, RefuseARunWhenSomethingOutsideWaitsForItsMiddle) {
  const std::vector<TaskTemplate> waited_by_reduction{gather(), step(kCompute, StreamKind::compute, -1, 0),
                                                      step(kCompute, StreamKind::compute), reduction(1)};
  EXPECT_FALSE(runs_of(waited_by_reduction).has_value());
  const std::vector<TaskTemplate> two_computations{gather(), step(kCompute, StreamKind::compute, -1, 0),
                                                   step(kCompute, StreamKind::compute)};
  EXPECT_FALSE(runs_of(two_computations, {1}).has_value());
  EXPECT_TRUE(runs_of(two_computations, {2}).has_value());
}

// A collective that waits for a gather would open a run and hold back the computation after it,
// which does not wait for the gather.
TEST(LocalRuns, RefuseARunThatOpensWithCommunication) {
  const std::vector<TaskTemplate> templates{gather(), step(kCompute, StreamKind::compute), gather(),
                                            step(kCollective, StreamKind::tp_comm, 2),
                                            step(kCompute, StreamKind::compute)};
  EXPECT_FALSE(runs_of(templates).has_value());
}

}  // namespace distsim::program
