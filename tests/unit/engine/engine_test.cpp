#include "engine/engine.hpp"

#include <gtest/gtest.h>

#include "core/input_error.hpp"

namespace distsim::engine {

TEST(Engine, RunsAStreamsTasksOneAfterAnother) {
  Program program;
  const StreamId stream = program.add_stream();
  const TaskId a = program.add_task(5, {{stream}});
  const TaskId b = program.add_task(7, {{stream}});
  const TaskTimes times = run(program);
  EXPECT_EQ(times.start[a], 0);
  EXPECT_EQ(times.start[b], 5);
  EXPECT_EQ(times.end[b], 12);
  EXPECT_EQ(times.makespan, 12);
}

TEST(Engine, StartsACollectiveWhenAllParticipantsArrive) {
  // Stream 0 is busy for 10, stream 1 for 3; the collective on both starts at 10 and ends at
  // 10 + 4 on both.
  Program program;
  const StreamId s0 = program.add_stream();
  const StreamId s1 = program.add_stream();
  program.add_task(10, {{s0}});
  program.add_task(3, {{s1}});
  const StreamId both[] = {s0, s1};
  const TaskId collective = program.add_task(4, both);
  const TaskId after = program.add_task(1, {{s1}});
  const TaskTimes times = run(program);
  EXPECT_EQ(times.start[collective], 10);
  EXPECT_EQ(times.end[collective], 14);
  EXPECT_EQ(times.start[after], 14);
}

TEST(Engine, HonoursDependenciesAcrossStreams) {
  Program program;
  const StreamId s0 = program.add_stream();
  const StreamId s1 = program.add_stream();
  const TaskId producer = program.add_task(8, {{s0}});
  const TaskId consumer = program.add_task(2, {{s1}});
  program.add_dependency(consumer, producer);
  const TaskTimes times = run(program);
  EXPECT_EQ(times.start[consumer], 8);
  EXPECT_EQ(times.makespan, 10);
}

TEST(Engine, LetsIndependentStreamsOverlap) {
  Program program;
  const StreamId s0 = program.add_stream();
  const StreamId s1 = program.add_stream();
  program.add_task(6, {{s0}});
  const TaskId other = program.add_task(6, {{s1}});
  const TaskTimes times = run(program);
  EXPECT_EQ(times.start[other], 0);
  EXPECT_EQ(times.makespan, 6);
}

TEST(Engine, RunsZeroLengthTasksInOrder) {
  Program program;
  const StreamId stream = program.add_stream();
  const TaskId a = program.add_task(0, {{stream}});
  const TaskId b = program.add_task(0, {{stream}});
  const TaskId c = program.add_task(3, {{stream}});
  const TaskTimes times = run(program);
  EXPECT_EQ(times.end[a], 0);
  EXPECT_EQ(times.end[b], 0);
  EXPECT_EQ(times.end[c], 3);
}

TEST(Engine, ReportsADeadlock) {
  // Each stream's first task waits for the other stream's first task.
  Program program;
  const StreamId s0 = program.add_stream();
  const StreamId s1 = program.add_stream();
  const TaskId a = program.add_task(1, {{s0}});
  const TaskId b = program.add_task(1, {{s1}});
  program.add_dependency(a, b);
  program.add_dependency(b, a);
  try {
    run(program);
    FAIL();
  } catch (const InternalError& e) {
    EXPECT_STREQ(e.what(), "the task program deadlocked: 2 of 2 tasks never started");
  }
}

TEST(Engine, GivesTheSameTimesOnEveryRun) {
  Program program;
  std::vector<StreamId> streams;
  for (int i = 0; i < 4; ++i) {
    streams.push_back(program.add_stream());
  }
  for (int i = 0; i < 100; ++i) {
    const StreamId pair[] = {streams[static_cast<size_t>(i % 4)], streams[static_cast<size_t>((i + 1) % 4)]};
    program.add_task(i % 7, pair);
  }
  const TaskTimes first = run(program);
  const TaskTimes second = run(program);
  EXPECT_EQ(first.start, second.start);
  EXPECT_EQ(first.end, second.end);
}

}  // namespace distsim::engine
