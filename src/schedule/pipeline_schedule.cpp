#include "schedule/pipeline_schedule.hpp"

#include <algorithm>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "schedule/dual_pipe_schedule.hpp"
#include "strategy/pipeline_layout.hpp"

namespace distsim::schedule {

const std::vector<const PipelineSchedule*>& all_schedules() {
  static const GpipeSchedule gpipe;
  static const OneFOneBSchedule one_f_one_b;
  static const InterleavedSchedule interleaved;
  static const ZeroBubbleH1Schedule zero_bubble_h1;
  static const ZeroBubbleH2Schedule zero_bubble_h2;
  static const ZeroBubbleVSchedule zero_bubble_v;
  static const DualPipeVSchedule dual_pipe_v;
  static const DualPipeSchedule dual_pipe;
  static const std::vector<const PipelineSchedule*> schedules{
      &gpipe, &one_f_one_b, &interleaved, &zero_bubble_h1, &zero_bubble_h2, &zero_bubble_v, &dual_pipe, &dual_pipe_v};
  return schedules;
}

// torch.distributed.pipelining's schedules (schedules.py) and their short names: 1F1B, GPipe and
// DualPipeV are the name rule's 1f1b, gpipe and dualpipev already.
const std::vector<std::pair<std::string, std::string>>& schedule_aliases() {
  static const std::vector<std::pair<std::string, std::string>> aliases{
      {"Interleaved1F1B", "interleaved"}, {"ScheduleInterleaved1F1B", "interleaved"},
      {"ZBVZeroBubble", "zbv"},           {"ScheduleZBVZeroBubble", "zbv"},
      {"Schedule1F1B", "1f1b"},           {"ScheduleGPipe", "gpipe"},
      {"ScheduleDualPipeV", "dualpipev"}};
  return aliases;
}

const std::vector<std::pair<std::string, std::string>>& unmodelled_schedules() {
  static const std::vector<std::pair<std::string, std::string>> schedules{
      {"InterleavedZeroBubble", "(PyTorch's interleaved zero-bubble schedule) is not modelled"},
      {"LoopedBFS", "(PyTorch's breadth-first looped schedule) is not modelled"}};
  return schedules;
}

std::vector<std::string> schedule_names() {
  std::vector<std::string> names;
  for (const auto* schedule : all_schedules()) {
    names.emplace_back(schedule->name());
  }
  return names;
}

const PipelineSchedule& find_schedule(std::string_view name) {
  for (const auto* schedule : all_schedules()) {
    if (schedule->name() == name) {
      return *schedule;
    }
  }
  throw InputError(unknown_name_message("schedule", name, schedule_names()));
}

std::vector<std::string> schedules_with_chunks(int num_chunks) {
  std::vector<std::string> names;
  for (const auto* schedule : all_schedules()) {
    if (schedule->chunks_per_stage(num_chunks) == num_chunks) {
      names.emplace_back(schedule->name());
    }
  }
  return names;
}

std::string quoted_names(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    const char* separator = i == 0 ? "" : (i + 1 == names.size() ? " or " : ", ");
    text += separator + ("'" + names[i] + "'");
  }
  return text;
}

const PipelineSchedule& megatron_schedule(int num_chunks) {
  for (const auto* schedule : all_schedules()) {
    if (schedule->is_megatron_default(num_chunks)) {
      return *schedule;
    }
  }
  throw InternalError("no schedule is Megatron-LM's for " + std::to_string(num_chunks) + " chunks per stage");
}

bool defers_weight_gradients(const PipelineSchedule& schedule) {
  const auto kinds = schedule.step_kinds();
  return std::any_of(kinds.begin(), kinds.end(),
                     [](const StepKind kind) { return kind->templates == &events::ChunkWork::backward_weight; });
}

namespace {

//! ZeRO-2 and ZeRO-3 reduce-scatter each layer's gradients right after its backward; a schedule
//! that runs the weight gradients in a later step would reduce them before they exist.
void check_sharding(const PipelineSchedule& schedule, const strategy::JobSpec& job,
                    std::vector<std::string>& problems) {
  if (job.strategy.reduces_per_unit() && defers_weight_gradients(schedule)) {
    problems.push_back("sharding " + std::string(strategy::to_string(job.strategy.zero_stage())) +
                       " is modelled with schedules whose backward step computes the weight gradients, not with '" +
                       std::string(schedule.name()) + "', which defers them to a separate step");
  }
}

//! A custom pipeline layout must give each of the schedule's chunks something to hold and name
//! every layer once; encoder-decoder models keep the even split (so does Megatron-Core, whose
//! layout refuses encoder layers).
void check_layout(const PipelineSchedule& schedule, const strategy::JobSpec& job, std::vector<std::string>& problems) {
  const strategy::Strategy& s = job.strategy;
  if (!s.custom_pipeline_layout()) {
    return;
  }
  if (job.model.architecture == model::Architecture::encoder_decoder) {
    problems.push_back("a custom pipeline layout is not supported for the encoder-decoder model '" + job.model.name +
                       "' (neither does Megatron-Core support one)");
    return;
  }
  if (strategy::asks_balanced_layout(s)) {
    strategy::check_balanced_layout(s, schedule.chunks_per_stage(s.virtual_stages), problems);
    return;
  }
  strategy::custom_pipeline_layout(s, job.model.total_layers(), schedule.chunks_per_stage(s.virtual_stages), problems);
  if (!s.pipeline_layout.empty()) {
    const strategy::ParsedPipelineLayout parsed = strategy::parse_pipeline_layout(s.pipeline_layout);
    int named = 0;
    for (const auto& stage : parsed.stages) {
      named += stage.mtp_layers;
    }
    if (parsed.ok() && named != job.model.mtp_layers) {
      problems.push_back("pipeline_layout '" + s.pipeline_layout + "' names " + std::to_string(named) +
                         " multi-token prediction layers (m), but model '" + job.model.name + "' has " +
                         std::to_string(job.model.mtp_layers));
    }
  }
}

//! Combined 1F1B pairs a 1F1B-shaped order; Megatron-Core runs it without pipelining or
//! interleaved, and so does distsim.
void check_combined_1f1b(const PipelineSchedule& schedule, const strategy::JobSpec& job,
                         const strategy::SettingNames& names, std::vector<std::string>& problems) {
  const strategy::Strategy& s = job.strategy;
  if (!s.overlap_moe_expert_parallel_comm ||
      schedule.runs_combined_1f1b(s.pipeline_parallel, schedule.chunks_per_stage(s.virtual_stages))) {
    return;
  }
  problems.push_back(strategy::name_of(names, "overlap_moe_expert_parallel_comm") +
                     ": combined 1F1B runs with schedule '1f1b' on one pipeline stage or 'interleaved' with virtual "
                     "stages, as Megatron-Core runs it (\"virtual_pipeline_model_parallel_size must be specified when "
                     "pipeline_model_parallel_size > 1\"); got schedule '" +
                     std::string(schedule.name()) + "' with pipeline parallel size " +
                     std::to_string(s.pipeline_parallel) + " and virtual stages " + std::to_string(s.virtual_stages));
}

}  // namespace

std::string job_problems_message(const strategy::JobSpec& job, const strategy::SettingNames& names) {
  const PipelineSchedule& schedule = find_schedule(job.strategy.schedule);
  const auto rules = [&schedule, &names](const strategy::JobSpec& checked, std::vector<std::string>& problems) {
    schedule.check(checked, problems);
    check_sharding(schedule, checked, problems);
    check_layout(schedule, checked, problems);
    check_combined_1f1b(schedule, checked, names, problems);
  };
  return strategy::job_problems_message(job, rules, names);
}

void validate_job(const strategy::JobSpec& job, const strategy::SettingNames& names) {
  const std::string message = job_problems_message(job, names);
  if (!message.empty()) throw InputError(message);
}

}  // namespace distsim::schedule
