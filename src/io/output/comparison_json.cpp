#include "io/output/comparison_json.hpp"

namespace distsim::compare {

namespace {

using nlohmann::json;

json side_json(const Timeline& timeline) {
  return {{"files", timeline.files},
          {"format", timeline.format},
          {"strategy", timeline.job.notation()},
          {"iteration_ns", timeline.iteration()},
          {"ranks", timeline.ranks.size()}};
}

json mapping_json(const RankMapping& mapping) {
  json pairs = json::array();
  for (const auto& pair : mapping.pairs) {
    pairs.push_back({{"measured_rank", pair.measured_rank}, {"predicted_rank", pair.predicted_rank}});
  }
  return {{"kind", mapping.kind == RankMappingKind::by_rank ? "by_rank" : "by_coordinate"},
          {"description", rank_mapping_description(mapping.kind)},
          {"pairs", pairs}};
}

json rank_activity_json(const RankActivityError& rank) {
  const bool matched = rank.matched > 0;
  return {{"measured_rank", rank.measured_rank},
          {"predicted_rank", rank.predicted_rank},
          {"matched", rank.matched},
          {"predicted_only", rank.predicted_only},
          {"measured_only", rank.measured_only},
          {"start_error", matched ? json(rank.start_error) : json(nullptr)},
          {"end_error", matched ? json(rank.end_error) : json(nullptr)},
          {"error", matched ? json(rank.error) : json(nullptr)}};
}

json activity_json(const ActivityErrors& activity) {
  json ranks = json::array();
  for (const auto& rank : activity.ranks) {
    ranks.push_back(rank_activity_json(rank));
  }
  const bool any = activity.ranks_with_matches > 0;
  return {{"granularity", granularity_name(activity.granularity)},
          {"ranks", ranks},
          {"ranks_with_matches", activity.ranks_with_matches},
          {"mean_start_error", any ? json(activity.mean_start_error) : json(nullptr)},
          {"mean_end_error", any ? json(activity.mean_end_error) : json(nullptr)},
          {"mean_error", any ? json(activity.mean_error) : json(nullptr)}};
}

json stage_row_json(const StagePassRow& row, SimTime iteration) {
  const auto fraction = [iteration](SimTime ns) { return static_cast<double>(ns) / static_cast<double>(iteration); };
  return {{"stage", row.stage},
          {"microbatch", row.microbatch},
          {"phase", events::phase_name(row.phase)},
          {"predicted_start_ns", row.predicted_start},
          {"predicted_end_ns", row.predicted_end},
          {"measured_start_ns", row.measured_start},
          {"measured_end_ns", row.measured_end},
          {"start_error_ns", row.start_error()},
          {"end_error_ns", row.end_error()},
          {"start_error", fraction(row.start_error())},
          {"end_error", fraction(row.end_error())}};
}

json stages_json(const StageErrors& stages, SimTime iteration) {
  if (!stages.available) {
    return {{"available", false}, {"reason", stages.unavailable_reason}};
  }
  json rows = json::array();
  for (const auto& row : stages.rows) {
    rows.push_back(stage_row_json(row, iteration));
  }
  const bool any = !stages.rows.empty();
  return {{"available", true},
          {"rows", rows},
          {"predicted_only", stages.predicted_only},
          {"measured_only", stages.measured_only},
          {"mean_abs_start_error", any ? json(stages.mean_abs_start_error) : json(nullptr)},
          {"mean_abs_end_error", any ? json(stages.mean_abs_end_error) : json(nullptr)},
          {"max_abs_error", any ? json(stages.max_abs_error) : json(nullptr)}};
}

}  // namespace

json comparison_json(const Timeline& predicted, const Timeline& measured, const Comparison& comparison) {
  return {{"predicted", side_json(predicted)},
          {"measured", side_json(measured)},
          {"rank_mapping", mapping_json(comparison.mapping)},
          {"batch_time",
           {{"predicted_ns", comparison.batch.predicted},
            {"measured_ns", comparison.batch.measured},
            {"error", comparison.batch.error}}},
          {"activity", activity_json(comparison.activity)},
          {"stages", stages_json(comparison.stages, measured.iteration())}};
}

}  // namespace distsim::compare
