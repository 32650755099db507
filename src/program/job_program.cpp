#include "program/job_program.hpp"

#include "program/device_groups.hpp"
#include "program/iteration_end.hpp"
#include "program/pipeline_passes.hpp"
#include "program/pipeline_transfers.hpp"
#include "program/program_draft.hpp"

namespace distsim::program {

using strategy::ParallelDim;

int JobProgram::device_for_rank(const strategy::RankLayout& layout, int rank) const {
  const strategy::RankCoord coord = layout.coord_of(rank);
  if (!placement_classes) return coord[ParallelDim::pp];
  return replica_device(layout, *placement_classes, coord,
                        placement_classes->standing_position(coord[ParallelDim::dp]));
}

JobProgram build_job_program(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule,
                             const cost::CostModel& costs, SimulatedRanks ranks, bool aggregate_passes,
                             const std::function<void(std::size_t, std::size_t)>& progress, MicrobatchRange counted) {
  ProgramDraft draft(job, schedule, costs, ranks);
  draft.count_microbatches(counted);
  PipelinePasses passes(draft, aggregate_passes);
  draft.reserve_for_passes(passes.aggregates());
  const auto groups = draft.groups().pass_groups();
  for (std::size_t i = 0; i < groups.size(); ++i) {
    passes.add_passes(groups[i]);
    if (progress) progress(i + 1, groups.size());
  }
  add_pipeline_transfers(draft, passes);
  add_iteration_end(draft, passes);
  return draft.take();
}

}  // namespace distsim::program
