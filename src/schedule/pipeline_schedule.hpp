#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "schedule/dual_pipe_v_schedule.hpp"
#include "schedule/gpipe_schedule.hpp"
#include "schedule/interleaved_schedule.hpp"
#include "schedule/one_f_one_b_schedule.hpp"
#include "schedule/schedule.hpp"
#include "schedule/zero_bubble_h1_schedule.hpp"
#include "schedule/zero_bubble_h2_schedule.hpp"
#include "schedule/zero_bubble_v_schedule.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::schedule {

//! The schedules distsim knows, in the order `distsim list schedules` prints them.
const std::vector<const PipelineSchedule*>& all_schedules();
//! Throws InputError with the closest name when `name` is unknown.
const PipelineSchedule& find_schedule(std::string_view name);
std::vector<std::string> schedule_names();
//! Other frameworks' names of the schedules ({alias, schedule name}), and the schedules they
//! have that distsim does not model ({name, why}): PyTorch's torch.distributed.pipelining
//! classes as torchtitan names them, for the schedule option.
const std::vector<std::pair<std::string, std::string>>& schedule_aliases();
const std::vector<std::pair<std::string, std::string>>& unmodelled_schedules();

//! The names of the schedules that run `num_chunks` model chunks per stage when asked for them.
std::vector<std::string> schedules_with_chunks(int num_chunks);
//! "'a'", "'a' or 'b'", ...
std::string quoted_names(const std::vector<std::string>& names);
//! The schedule Megatron-LM runs with `num_chunks` chunks per stage (1F1B, or interleaved 1F1B
//! with several chunks).
const PipelineSchedule& megatron_schedule(int num_chunks);

//! Whether `schedule` computes weight gradients in a step of their own (ZB-H1, ZB-H2, ZBV,
//! DualPipeV) instead of in the backward, which ZeRO-3's per-layer reductions need.
bool defers_weight_gradients(const PipelineSchedule& schedule);

//! strategy::validate_job with the rules of the job's schedule; throws InputError with the
//! closest name when the schedule is unknown. `names` says how the user named each setting.
void validate_job(const strategy::JobSpec& job, const strategy::SettingNames& names = {});
//! What validate_job would throw, or an empty string for a valid job (strategy::job_problems_message);
//! still throws for an unknown schedule.
std::string job_problems_message(const strategy::JobSpec& job, const strategy::SettingNames& names = {});

}  // namespace distsim::schedule
