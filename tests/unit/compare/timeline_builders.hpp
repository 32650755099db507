#pragma once

#include <initializer_list>
#include <utility>
#include <vector>

#include "compare/rank_mapping.hpp"
#include "compare/timeline.hpp"

namespace distsim::compare {

//! Hand-made timelines for the tests; times are given in µs.
inline constexpr SimTime us(double microseconds) { return static_cast<SimTime>(microseconds * 1000); }

inline Activity compute(events::Phase phase, int microbatch, double start_us, double end_us) {
  return {ActivityKind::compute, phase, microbatch, us(start_us), us(end_us)};
}

inline Activity comm(ActivityKind kind, events::Phase phase, int microbatch, double start_us, double end_us) {
  return {kind, phase, microbatch, us(start_us), us(end_us)};
}

inline RankTimeline rank_timeline(int rank, strategy::RankCoord coord, std::vector<Activity> activities) {
  RankTimeline timeline;
  timeline.rank = rank;
  timeline.coord = coord;
  timeline.file = "rank" + std::to_string(rank) + ".json";
  timeline.activities = std::move(activities);
  return timeline;
}

//! A job of tp × pp × dp ranks over [begin, end] µs.
inline Timeline timeline(int tp, int pp, int dp, double begin_us, double end_us, std::vector<RankTimeline> ranks) {
  Timeline result;
  result.format = "test";
  result.files = {"test.json"};
  result.job.tensor_parallel = tp;
  result.job.pipeline_parallel = pp;
  result.job.data_parallel = dp;
  result.begin = us(begin_us);
  result.end = us(end_us);
  result.ranks = std::move(ranks);
  return result;
}

//! Each listed rank of the prediction paired with the measured rank of the same number.
inline RankMapping same_ranks(std::initializer_list<int> ranks) {
  RankMapping mapping;
  for (const int rank : ranks) {
    mapping.pairs.push_back({rank, rank});
  }
  return mapping;
}

}  // namespace distsim::compare
