#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "schedule/pipeline_schedule.hpp"
#include "schedule_test_jobs.hpp"

namespace distsim::schedule {

namespace {

//! The most chunk passes whose forward has run and whose last backward step has not, divided by the chunks
//! per stage: the micro-batches in flight that a schedule's own steps imply.
double peak_of_steps(const std::vector<Step>& steps, int num_chunks) {
  int in_flight = 0;
  int worst = 0;
  for (const auto& step : steps) {
    // A micro-batch's activations are released by its last step: the backward, or W when split.
    if (step.kind == StepKind::forward) ++in_flight;
    if (step.kind == StepKind::backward || step.kind == StepKind::backward_weight) --in_flight;
    worst = std::max(worst, in_flight);
  }
  return static_cast<double>(worst) / num_chunks;
}

}  // namespace

// GPipe: every forward before any backward, so all m on every stage.
TEST(MicrobatchesInFlight, GpipeHoldsAll) {
  for (int stage = 0; stage < 4; ++stage) {
    EXPECT_EQ(GpipeSchedule().microbatches_in_flight(stage, 4, 8, 1), 8);
  }
}

// 1F1B: min(m, p − stage): 4, 3, 2, 1 for p = 4, m = 8; with only m = 2, 2, 2, 2, 1.
TEST(MicrobatchesInFlight, OneFOneBHoldsAtMostTheStagesAhead) {
  const OneFOneBSchedule schedule;
  EXPECT_EQ(schedule.microbatches_in_flight(0, 4, 8, 1), 4);
  EXPECT_EQ(schedule.microbatches_in_flight(1, 4, 8, 1), 3);
  EXPECT_EQ(schedule.microbatches_in_flight(3, 4, 8, 1), 1);
  EXPECT_EQ(schedule.microbatches_in_flight(0, 4, 2, 1), 2);
  EXPECT_EQ(schedule.microbatches_in_flight(3, 4, 2, 1), 1);
}

// Interleaved, p = 4, v = 2, m = 8: stage 0 warms up with (4 − 1)·2 + (2 − 1)·4 = 10 chunk
// passes, holds 11 chunks = 5.5 micro-batches = p·(1 + (p − 1)/(p·v)) = 4·(1 + 3/8) (formats.md
// §6.5). Stage 3: 0 + 4 + 1 = 5 chunks = 2.5. With m = p = 4 every forward runs first: 8/2 = 4.
// With one chunk it is plain 1F1B: stage 1 of 4 holds min(8, 3) = 3.
TEST(MicrobatchesInFlight, InterleavedMatchesMegatronsFactor) {
  const InterleavedSchedule schedule;
  EXPECT_DOUBLE_EQ(schedule.microbatches_in_flight(0, 4, 8, 2), 5.5);
  EXPECT_DOUBLE_EQ(schedule.microbatches_in_flight(3, 4, 8, 2), 2.5);
  EXPECT_DOUBLE_EQ(schedule.microbatches_in_flight(2, 4, 4, 2), 4.0);
  EXPECT_DOUBLE_EQ(schedule.microbatches_in_flight(1, 4, 8, 1), 3.0);
}

// Warm-up 2(p − s − 1) + (v − 1)p: p = 4, v = 2: 10, 8, 6, 4 on stages 0..3; capped at m·v = 6
// when m = 3 (not a multiple of p, only to show the cap) on stage 0; every pass (m·v = 8) when
// m = p = 4.
TEST(InterleavedSchedule, WarmupIsMegatronsCount) {
  EXPECT_EQ(InterleavedSchedule::warmup_steps(0, 4, 8, 2), 10);
  EXPECT_EQ(InterleavedSchedule::warmup_steps(1, 4, 8, 2), 8);
  EXPECT_EQ(InterleavedSchedule::warmup_steps(3, 4, 8, 2), 4);
  EXPECT_EQ(InterleavedSchedule::warmup_steps(0, 4, 3, 2), 6);
  EXPECT_EQ(InterleavedSchedule::warmup_steps(1, 4, 4, 2), 8);
}

// The memory model's count is the peak of the schedule's own steps, for every built-in schedule.
TEST(MicrobatchesInFlight, IsThePeakOfTheSchedulesSteps) {
  for (const auto* schedule : all_schedules()) {
    const int chunks = schedule->chunks_per_stage(2);
    for (int stage = 0; stage < 4; ++stage) {
      for (int m : {4, 8, 12}) {
        EXPECT_DOUBLE_EQ(schedule->microbatches_in_flight(stage, 4, m, chunks),
                         peak_of_steps(schedule->steps(stage, 4, m, chunks), chunks))
            << schedule->name() << " stage " << stage << " m " << m;
      }
    }
  }
}

// Every chunk of every stage runs as many forwards as microbatches_per_chunk says, which the
// lower bound of a search reads instead of the steps: all m, or m / 2 for DualPipe's two
// directions; counted from each built-in schedule's own steps for valid micro-batch counts (DualPipe needs
// at least 2p).
TEST(MicrobatchesPerChunk, IsEachChunksCountOfForwards) {
  for (const auto* schedule : all_schedules()) {
    const int chunks = schedule->chunks_per_stage(2);
    for (int m : {8, 16, 24}) {
      const auto steps = schedule->all_steps(4, m, chunks);
      for (int stage = 0; stage < 4; ++stage) {
        std::vector<int> forwards(static_cast<size_t>(chunks), 0);
        for (const auto& step : steps[static_cast<size_t>(stage)]) {
          if (step.kind == StepKind::forward) ++forwards[static_cast<size_t>(step.chunk)];
        }
        EXPECT_EQ(forwards, std::vector<int>(static_cast<size_t>(chunks), schedule->microbatches_per_chunk(m)))
            << schedule->name() << " stage " << stage << " m " << m;
      }
    }
  }
}

// A schedule that says it overlaps no steps has none overlapped in its own steps, and one that says
// it does has some (the lower bound trusts the answer instead of reading every stage's steps), for
// every built-in schedule and valid micro-batch counts (DualPipe needs at least 2p).
TEST(OverlapsSteps, IsWhatTheSchedulesStepsDo) {
  for (const auto* schedule : all_schedules()) {
    const int chunks = schedule->chunks_per_stage(2);
    for (int m : {8, 16, 24}) {
      bool overlapped = false;
      for (const auto& steps : schedule->all_steps(4, m, chunks)) {
        overlapped |= std::any_of(steps.begin(), steps.end(),
                                  [](const Step& step) { return step.overlaps_previous != Overlap::none; });
      }
      EXPECT_EQ(overlapped, schedule->overlaps_steps()) << schedule->name() << " m " << m;
    }
  }
}

// The all-stage answers (which ZBV's greedy finds in one run, and the V schedules' peaks from it)
// come in stage order and are each stage's own answer, for every built-in schedule.
TEST(AllStages, AreEachStagesOwnStepsAndMicrobatchesInFlight) {
  for (const auto* schedule : all_schedules()) {
    const int chunks = schedule->chunks_per_stage(2);
    for (int m : {4, 8, 12}) {
      const auto steps = schedule->all_steps(4, m, chunks);
      const auto in_flight = schedule->all_microbatches_in_flight(4, m, chunks);
      ASSERT_EQ(steps.size(), 4U) << schedule->name();
      ASSERT_EQ(in_flight.size(), 4U) << schedule->name();
      for (int stage = 0; stage < 4; ++stage) {
        EXPECT_EQ(steps[static_cast<size_t>(stage)], schedule->steps(stage, 4, m, chunks))
            << schedule->name() << " stage " << stage << " m " << m;
        EXPECT_DOUBLE_EQ(in_flight[static_cast<size_t>(stage)], schedule->microbatches_in_flight(stage, 4, m, chunks))
            << schedule->name() << " stage " << stage << " m " << m;
      }
    }
  }
}

// The hops of every slot found in one pass are each slot's next_chunk and previous_chunk (which
// searches every slot for the one that feeds it), for every built-in schedule.
TEST(AllStages, ChunkHopsAreEachSlotsNextAndPrevious) {
  const auto same = [](const std::optional<ChunkHop>& a, const std::optional<ChunkHop>& b) {
    return a.has_value() == b.has_value() && (!a || (a->peer == b->peer && a->downstream == b->downstream));
  };
  for (const auto* schedule : all_schedules()) {
    for (const int chunks :
         {schedule->chunks_per_stage(1), schedule->chunks_per_stage(2), schedule->chunks_per_stage(3)}) {
      const ChunkHops hops = schedule->all_chunk_hops(4, chunks);
      for (int stage = 0; stage < 4; ++stage) {
        for (int chunk = 0; chunk < chunks; ++chunk) {
          const std::size_t slot = hop_index({stage, chunk}, chunks);
          EXPECT_TRUE(same(hops.next[slot], schedule->next_chunk({stage, chunk}, 4, chunks)))
              << schedule->name() << " " << stage << "/" << chunk;
          EXPECT_TRUE(same(hops.previous[slot], schedule->previous_chunk({stage, chunk}, 4, chunks)))
              << schedule->name() << " " << stage << "/" << chunk;
        }
      }
    }
  }
}

// Chunk policy. One chunk per stage: the stage's layers, 10 layers on 4 stages as 3, 3, 2, 2.
// Interleaved, 24 layers, p = 4, v = 3: 24/12 = 2 layers per chunk; stage 1's chunk 2 is the
// pipeline's chunk 2·4 + 1 = 9, layers 18 and 19.
TEST(ChunkPolicy, LayersOfEachChunk) {
  EXPECT_EQ(OneFOneBSchedule().chunks_per_stage(3), 1);
  EXPECT_EQ(GpipeSchedule().chunks_per_stage(3), 1);
  EXPECT_EQ(InterleavedSchedule().chunks_per_stage(3), 3);
  const auto stage1 = OneFOneBSchedule().chunk_layers(10, 4, 1, 1, 0);
  EXPECT_EQ(stage1.first, 3);
  EXPECT_EQ(stage1.count, 3);
  const auto chunk = InterleavedSchedule().chunk_layers(24, 4, 3, 1, 2);
  EXPECT_EQ(chunk.first, 18);
  EXPECT_EQ(chunk.count, 2);
  const auto all = InterleavedSchedule().stage_chunk_layers(pipeline_job("interleaved", 4, 8, 3), 1);
  ASSERT_EQ(all.size(), 3U);
  EXPECT_EQ(all[0].first, 2);   // pipeline chunk 1
  EXPECT_EQ(all[1].first, 10);  // pipeline chunk 5
}

TEST(ScheduleRegistry, NamesMegatronsScheduleByChunkCount) {
  EXPECT_EQ(megatron_schedule(1).name(), "1f1b");
  EXPECT_EQ(megatron_schedule(3).name(), "interleaved");
  EXPECT_EQ(schedules_with_chunks(2), (std::vector<std::string>{"interleaved", "zbv", "dualpipe", "dualpipev"}));
  EXPECT_EQ(schedules_with_chunks(3), std::vector<std::string>{"interleaved"});
}

// Each schedule's own rules, through schedule::validate_job.
TEST(ScheduleValidation, OneChunkSchedulesRejectVirtualStages) {
  EXPECT_EQ(error_of(pipeline_job("1f1b", 4, 8, 2)),
            "invalid job: virtual_stages 2 needs schedule 'interleaved', 'zbv', 'dualpipe' or 'dualpipev', got '1f1b'");
  EXPECT_EQ(error_of(pipeline_job("gpipe", 4, 8, 3)),
            "invalid job: virtual_stages 3 needs schedule 'interleaved', got 'gpipe'");
  EXPECT_EQ(error_of(pipeline_job("1f1b", 4, 8, 1)), "");
}

// m = 8 / 1 = 8 micro-batches; p = 4; 24 layers.
TEST(ScheduleValidation, InterleavedRules) {
  EXPECT_EQ(error_of(pipeline_job("interleaved", 4, 8, 1)),
            "invalid job: schedule 'interleaved' needs virtual_stages (model chunks per pipeline stage) of at least "
            "2, got 1");
  EXPECT_EQ(error_of(pipeline_job("interleaved", 4, 8, 2)), "");
  auto uneven = pipeline_job("interleaved", 4, 8, 2);
  uneven.strategy.global_batch_size = 6;  // m = 6, not a multiple of p = 4
  EXPECT_EQ(error_of(uneven),
            "invalid job: schedule 'interleaved' needs the number of micro-batches 6 to be a multiple of the "
            "pipeline parallel size 4");
  // p·v = 4·5 = 20 does not divide 24.
  EXPECT_EQ(error_of(pipeline_job("interleaved", 4, 8, 5)),
            "invalid job: schedule 'interleaved' splits the 24 layers of model 'gpt2-345m' into pipeline x virtual "
            "stages = 4 x 5 = 20 equal chunks, but 20 does not divide 24");
}

TEST(ScheduleValidation, UnknownScheduleNamesTheClosest) {
  EXPECT_NE(error_of(pipeline_job("1f1c", 4, 8, 1)).find("'1f1b'"), std::string::npos)
      << error_of(pipeline_job("1f1c", 4, 8, 1));
}

}  // namespace distsim::schedule
