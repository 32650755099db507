#include "engine/engine.hpp"

#include <gtest/gtest.h>

#include <random>

#include "core/input_error.hpp"

namespace distsim::engine {

TEST(Program, LinksEachStreamsTasksInTheOrderTheyWereAdded) {
  // s0: a, c; s1: b, c, d; s2: nothing. c's successors follow the order of its streams.
  Program program;
  const StreamId s0 = program.add_stream();
  const StreamId s1 = program.add_stream();
  const StreamId s2 = program.add_stream();
  const TaskId a = program.add_task(1, {{s0}});
  const TaskId b = program.add_task(1, {{s1}});
  const StreamId both[] = {s0, s1};
  const TaskId c = program.add_task(1, both);
  const TaskId d = program.add_task(1, {{s1}});
  EXPECT_EQ(program.first_on_stream(s0), a);
  EXPECT_EQ(program.first_on_stream(s1), b);
  EXPECT_EQ(program.first_on_stream(s2), kNoTask);
  EXPECT_EQ(std::vector<TaskId>(program.next_on_streams(a).begin(), program.next_on_streams(a).end()),
            std::vector<TaskId>{c});
  EXPECT_EQ(std::vector<TaskId>(program.next_on_streams(c).begin(), program.next_on_streams(c).end()),
            (std::vector<TaskId>{kNoTask, d}));
  EXPECT_EQ(program.next_on_streams(d).front(), kNoTask);
}

// a (5 ns) then b (7 ns) on one stream, c (4 ns) on another after a: 12 ns; a lengthened to 10 ns
// gives 17 ns on the same conditions, as a fresh run finds.
TEST(Engine, RepeatedRunsFollowTheChangedDurations) {
  Program program;
  const StreamId first = program.add_stream();
  const StreamId second = program.add_stream();
  const TaskId a = program.add_task(5, {{first}});
  program.add_task(7, {{first}});
  const TaskId c = program.add_task(4, {{second}});
  program.add_dependency(c, a);
  const RepeatedRuns runs(program);
  EXPECT_EQ(runs.run().makespan, 12);
  program.set_duration(a, 10);
  EXPECT_EQ(runs.run().makespan, 17);
  EXPECT_EQ(runs.run().end, run(program).end);
}

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

constexpr SimTime kMs = 1'000'000;

TEST(SharedResources, TwoTasksStartingTogetherEachGetHalf) {
  // Both need 10 ms alone and run at 1/2 from 0 on: each ends at 10 / (1/2) = 20 ms. The task
  // after the first on its stream starts there.
  Program program;
  const ResourceId link = program.add_resource();
  const StreamId s0 = program.add_stream();
  const StreamId s1 = program.add_stream();
  const TaskId a = program.add_task(10 * kMs, {{s0}});
  const TaskId b = program.add_task(10 * kMs, {{s1}});
  const TaskId after = program.add_task(1 * kMs, {{s0}});
  program.add_resource_use(a, link);
  program.add_resource_use(b, link);
  const TaskTimes times = run(program);
  EXPECT_EQ(times.end[a], 20 * kMs);
  EXPECT_EQ(times.end[b], 20 * kMs);
  EXPECT_EQ(times.start[after], 20 * kMs);
  EXPECT_EQ(times.makespan, 21 * kMs);
}

TEST(SharedResources, ALaterTaskSlowsTheFirstOnlyWhileTheyOverlap) {
  // A runs alone 0-5 ms (5 of its 10 ms done). From 5 ms both run at 1/2: A's last 5 ms take 10,
  // so A ends at 15 ms, when B has done 10 / 2 = 5 of its 10 ms; B runs its last 5 ms alone and
  // ends at 20 ms.
  Program program;
  const ResourceId link = program.add_resource();
  const StreamId s0 = program.add_stream();
  const StreamId s1 = program.add_stream();
  const TaskId a = program.add_task(10 * kMs, {{s0}});
  program.add_task(5 * kMs, {{s1}});
  const TaskId b = program.add_task(10 * kMs, {{s1}});
  program.add_resource_use(a, link);
  program.add_resource_use(b, link);
  const TaskTimes times = run(program);
  EXPECT_EQ(times.start[b], 5 * kMs);
  EXPECT_EQ(times.end[a], 15 * kMs);
  EXPECT_EQ(times.end[b], 20 * kMs);
}

TEST(SharedResources, AShortTaskLeavesTheWholeResourceWhenItEnds) {
  // A needs 10 ms, B 4 ms, both from 0 at 1/2: B ends at 8 ms, when A has done 4 ms; A's last
  // 6 ms run alone and it ends at 14 ms.
  Program program;
  const ResourceId link = program.add_resource();
  const StreamId s0 = program.add_stream();
  const StreamId s1 = program.add_stream();
  const TaskId a = program.add_task(10 * kMs, {{s0}});
  const TaskId b = program.add_task(4 * kMs, {{s1}});
  program.add_resource_use(a, link);
  program.add_resource_use(b, link);
  const TaskTimes times = run(program);
  EXPECT_EQ(times.end[b], 8 * kMs);
  EXPECT_EQ(times.end[a], 14 * kMs);
}

namespace {

//! X, Y, Z and W need 10 ms each and start at 0; X uses R1 and R2, Y R1, Z and W R2. `uses` says in
//! which order the uses are declared, as (task, resource) indices; their ends, X's first.
std::vector<SimTime> ends_on_two_resources(const std::vector<std::pair<int, int>>& uses) {
  Program program;
  const std::vector<ResourceId> resources{program.add_resource(), program.add_resource()};
  std::vector<TaskId> tasks;
  for (int i = 0; i < 4; ++i) {
    const StreamId stream = program.add_stream();
    tasks.push_back(program.add_task(10 * kMs, {{stream}}));
  }
  for (const auto& [task, resource] : uses) {
    program.add_resource_use(tasks[static_cast<size_t>(task)], resources[static_cast<size_t>(resource)]);
  }
  const TaskTimes times = run(program);
  return {times.end[tasks[0]], times.end[tasks[1]], times.end[tasks[2]], times.end[tasks[3]]};
}

}  // namespace

TEST(SharedResources, ATaskOnTwoResourcesRunsAtItsSlowestShare) {
  // R1 has 2 tasks, R2 has 3: X runs at min(1/2, 1/3) = 1/3, Y at 1/2, Z and W at 1/3. Y ends
  // at 20 ms; X, Z and W have 10 − 20/3 = 10/3 ms left. R1 now holds X alone, but R2 still
  // holds 3, so X stays at 1/3 and X, Z, W end at 20 + 3 · 10/3 = 30 ms.
  const std::vector<SimTime> expected{30 * kMs, 20 * kMs, 30 * kMs, 30 * kMs};
  EXPECT_EQ(ends_on_two_resources({{0, 0}, {0, 1}, {1, 0}, {2, 1}, {3, 1}}), expected);
}

TEST(SharedResources, ReadUsesDeclaredInAnyOrder) {
  // The same uses with X's two apart and one of them declared twice: the same sharing.
  const std::vector<SimTime> expected{30 * kMs, 20 * kMs, 30 * kMs, 30 * kMs};
  EXPECT_EQ(ends_on_two_resources({{3, 1}, {0, 1}, {1, 0}, {2, 1}, {0, 0}, {0, 1}}), expected);
}

TEST(SharedResources, LeaveTasksWithoutResourcesAndLoneUsersUnchanged) {
  // The plain 10 ms task overlaps the sharing pair but uses no resource; C uses a resource of
  // its own and is alone on it; both last exactly their duration.
  Program program;
  const ResourceId shared = program.add_resource();
  const ResourceId own = program.add_resource();
  std::vector<StreamId> streams;
  for (int i = 0; i < 4; ++i) streams.push_back(program.add_stream());
  const TaskId a = program.add_task(10 * kMs, {{streams[0]}});
  const TaskId b = program.add_task(10 * kMs, {{streams[1]}});
  const TaskId plain = program.add_task(10 * kMs, {{streams[2]}});
  const TaskId c = program.add_task(7 * kMs, {{streams[3]}});
  program.add_resource_use(a, shared);
  program.add_resource_use(b, shared);
  program.add_resource_use(c, own);
  const TaskTimes times = run(program);
  EXPECT_EQ(times.end[plain], 10 * kMs);
  EXPECT_EQ(times.end[c], 7 * kMs);
  EXPECT_EQ(times.end[a], 20 * kMs);
}

TEST(SharedResources, CountAUseDeclaredTwiceOnce) {
  // A declares the link twice but is one of two users: both end at 20 ms, as if declared once.
  Program program;
  const ResourceId link = program.add_resource();
  const StreamId s0 = program.add_stream();
  const StreamId s1 = program.add_stream();
  const TaskId a = program.add_task(10 * kMs, {{s0}});
  const TaskId b = program.add_task(10 * kMs, {{s1}});
  program.add_resource_use(a, link);
  program.add_resource_use(a, link);
  program.add_resource_use(b, link);
  const TaskTimes times = run(program);
  EXPECT_EQ(times.end[a], 20 * kMs);
  EXPECT_EQ(times.end[b], 20 * kMs);
}

TEST(SharedResources, RoundEndsToTheNearestNanosecond) {
  // A, B and C need 10 ns each from 0, D 10 ns from 1 ns (after a 1 ns task without resources).
  // In the first ns three share: A, B, C have 9 2/3 ns left. From 1 ns four share, so A, B, C
  // end at 1 + 4 · 9 2/3 = 39 2/3, reported 40; D has done 38 2/3 / 4 = 9 2/3 by then and its
  // last 1/3 ns alone ends at 40 in the fluid solution too.
  Program program;
  const ResourceId link = program.add_resource();
  std::vector<TaskId> tasks;
  for (int i = 0; i < 4; ++i) {
    const StreamId stream = program.add_stream();
    if (i == 3) program.add_task(1, {{stream}});
    tasks.push_back(program.add_task(10, {{stream}}));
    program.add_resource_use(tasks.back(), link);
  }
  const TaskTimes times = run(program);
  EXPECT_EQ(times.start[tasks[3]], 1);
  for (TaskId task : tasks) {
    EXPECT_EQ(times.end[task], 40) << "task " << task;
  }
}

TEST(SharedResources, HandTheResourceToTasksStartingWhenOthersEnd) {
  // On one link: A and B need 1 ns each from 0, C 1 ns from 1 ns and D 3 ns from 3 ns (C and D
  // behind tasks without resources of 1 and 3 ns). At 1 ns A and B have 1/2 ns left and three
  // share, so they end at 1 + 3 · 1/2 = 2 1/2, reported 3. C has 1/3 ns left at 3 ns, which rounds
  // to 3 ns alone. D starts at 3 ns after all three have handed the link back and runs alone to
  // 6 ns. Had D started before they ended, it would have shared with C and ended at 7. Added in
  // either order, the tasks get the same times.
  for (bool reversed : {false, true}) {
    Program program;
    const ResourceId link = program.add_resource();
    const SimTime lead[] = {0, 0, 1, 3};
    const SimTime work[] = {1, 1, 1, 3};
    TaskId tasks[4];
    for (int k = 0; k < 4; ++k) {
      const int i = reversed ? 3 - k : k;
      const StreamId stream = program.add_stream();
      if (lead[i] > 0) program.add_task(lead[i], {{stream}});
      tasks[i] = program.add_task(work[i], {{stream}});
      program.add_resource_use(tasks[i], link);
    }
    const TaskTimes times = run(program);
    EXPECT_EQ(times.end[tasks[0]], 3) << "reversed " << reversed;
    EXPECT_EQ(times.end[tasks[1]], 3) << "reversed " << reversed;
    EXPECT_EQ(times.end[tasks[2]], 3) << "reversed " << reversed;
    EXPECT_EQ(times.start[tasks[3]], 3) << "reversed " << reversed;
    EXPECT_EQ(times.end[tasks[3]], 6) << "reversed " << reversed;
  }
}

TEST(SharedResources, GiveTheSameTimesOnEveryRun) {
  Program program;
  std::vector<StreamId> streams;
  for (int i = 0; i < 6; ++i) streams.push_back(program.add_stream());
  std::vector<ResourceId> links;
  for (int i = 0; i < 3; ++i) links.push_back(program.add_resource());
  for (int i = 0; i < 200; ++i) {
    const StreamId pair[] = {streams[static_cast<size_t>(i % 6)], streams[static_cast<size_t>((i + 1) % 6)]};
    const TaskId task = program.add_task(1000 + (i * 7919) % 3001, pair);
    if (i % 4 != 0) program.add_resource_use(task, links[static_cast<size_t>(i % 3)]);
    if (i % 5 == 0) program.add_resource_use(task, links[static_cast<size_t>((i + 1) % 3)]);
  }
  const TaskTimes first = run(program);
  const TaskTimes second = run(program);
  EXPECT_EQ(first.start, second.start);
  EXPECT_EQ(first.end, second.end);
  EXPECT_EQ(first.makespan, second.makespan);
}

TEST(SharedResources, SettleTheUsersThatEndBeforeTheFirstOverlap) {
  // On one link: A and then B (10 ms each) on one stream, C (10 ms) behind a 15 ms task without
  // resources on another. A runs alone 0-10 ms and B from 10 ms; C starts at 15 ms, when B has
  // 5 ms left: both run at 1/2, so B ends at 15 + 2 · 5 = 25 ms, when C has done 5 ms; C's last
  // 5 ms run alone and it ends at 30 ms.
  Program program;
  const ResourceId link = program.add_resource();
  const StreamId s0 = program.add_stream();
  const StreamId s1 = program.add_stream();
  const TaskId a = program.add_task(10 * kMs, {{s0}});
  const TaskId b = program.add_task(10 * kMs, {{s0}});
  program.add_task(15 * kMs, {{s1}});
  const TaskId c = program.add_task(10 * kMs, {{s1}});
  for (const TaskId task : {a, b, c}) program.add_resource_use(task, link);
  const TaskTimes times = run(program);
  EXPECT_EQ(times.end[a], 10 * kMs);
  EXPECT_EQ(times.start[b], 10 * kMs);
  EXPECT_EQ(times.end[b], 25 * kMs);
  EXPECT_EQ(times.start[c], 15 * kMs);
  EXPECT_EQ(times.end[c], 30 * kMs);
  EXPECT_EQ(times.makespan, 30 * kMs);
}

TEST(SharedResources, KeepDurationsWhenNoUsersOverlap) {
  // A uses the link 0-10 ms and B from A's end, on other streams; Z, of no duration, uses it at
  // 5 ms, in the middle of A, which it leaves as it was: 10 and 20 ms.
  Program program;
  const ResourceId link = program.add_resource();
  const StreamId s0 = program.add_stream();
  const StreamId s1 = program.add_stream();
  const StreamId s2 = program.add_stream();
  const TaskId a = program.add_task(10 * kMs, {{s0}});
  const TaskId b = program.add_task(10 * kMs, {{s1}});
  program.add_dependency(b, a);
  program.add_task(5 * kMs, {{s2}});
  const TaskId z = program.add_task(0, {{s2}});
  for (const TaskId task : {a, b, z}) program.add_resource_use(task, link);
  const TaskTimes times = run(program);
  EXPECT_EQ(times.end[a], 10 * kMs);
  EXPECT_EQ(times.start[z], 5 * kMs);
  EXPECT_EQ(times.end[z], 5 * kMs);
  EXPECT_EQ(times.end[b], 20 * kMs);
}

namespace {

//! Streams of tasks of random lengths, each task behind a random earlier one on another stream
//! now and then, every other task on one or two of three links, and a long task without resources
//! at the head of some streams so that users first overlap at different times.
Program random_program(std::mt19937& random) {
  Program program;
  std::vector<StreamId> streams;
  for (int i = 0; i < 6; ++i) streams.push_back(program.add_stream());
  std::vector<ResourceId> links;
  for (int i = 0; i < 3; ++i) links.push_back(program.add_resource());
  const auto draw = [&](int n) { return static_cast<int>(random() % static_cast<unsigned>(n)); };
  for (const StreamId stream : streams) {
    if (draw(2) == 0) program.add_task(draw(5000), {{stream}});
  }
  const int tasks = 20 + draw(60);
  for (int i = 0; i < tasks; ++i) {
    const StreamId stream = streams[static_cast<size_t>(draw(6))];
    const TaskId task = program.add_task(draw(4) == 0 ? 0 : 1 + draw(1000), {{stream}});
    if (task > 0 && draw(3) == 0) program.add_dependency(task, static_cast<TaskId>(draw(static_cast<int>(task))));
    if (draw(2) == 0) {
      program.add_resource_use(task, links[static_cast<size_t>(draw(3))]);
      if (draw(4) == 0) program.add_resource_use(task, links[static_cast<size_t>(draw(3))]);
    }
  }
  return program;
}

}  // namespace

TEST(SharedResources, RunAsIfEveryUserSharedFromTheStart) {
  // run() settles the tasks that end before two users of a resource first overlap without the
  // queue; the times must be those of the queue for every task (run_sharing_throughout), on
  // programs whose first overlap comes at any point, or never.
  std::mt19937 random(20261128);
  int never_overlap = 0;
  for (int n = 0; n < 2000; ++n) {
    const Program program = random_program(random);
    const TaskTimes expected = run_sharing_throughout(program);
    const TaskTimes times = run(program);
    ASSERT_EQ(times.start, expected.start) << "program " << n;
    ASSERT_EQ(times.end, expected.end) << "program " << n;
    ASSERT_EQ(times.makespan, expected.makespan) << "program " << n;
    bool stretched = false;
    for (TaskId task = 0; task < program.num_tasks(); ++task) {
      stretched |= expected.end[task] - expected.start[task] != program.duration(task);
    }
    never_overlap += !stretched;
  }
  EXPECT_GT(never_overlap, 0);
  EXPECT_LT(never_overlap, 2000);
}

TEST(SharedResources, RejectUnknownTasksAndResources) {
  Program program;
  const StreamId stream = program.add_stream();
  const TaskId task = program.add_task(1, {{stream}});
  EXPECT_THROW(program.add_resource_use(task, 0), InternalError);
  const ResourceId link = program.add_resource();
  EXPECT_THROW(program.add_resource_use(task + 1, link), InternalError);
}

}  // namespace distsim::engine
