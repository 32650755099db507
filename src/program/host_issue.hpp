#pragma once

#include <span>

#include "core/sim_time.hpp"
#include "engine/program.hpp"

namespace distsim::program {

//! The host thread of one device while it issues one unit of work (a pass, an overlapped pair of
//! passes, or a run of local work) in order: each template's launch is a task on the device's host
//! stream, and the template's device task waits for its launch. The host starts the unit when the
//! device reaches it (`start`): its lead over the device is not carried from one unit to the next,
//! so a pass alone and a pass inside the pipeline issue alike (docs/host_time.md). After a template
//! whose result the host reads back (TaskTemplate::host_waits), the next launch waits for that
//! template's end.
struct HostThread {
  engine::TaskId start = engine::kNoTask;      //!< what the unit's first launch waits for
  engine::TaskId last = engine::kNoTask;       //!< the unit's last launch so far
  engine::TaskId read_back = engine::kNoTask;  //!< a device task the next launch waits for

  //! Adds the launch of a template that takes `host_time` to issue, through `add_launch(duration)`
  //! (which adds a task on the host stream and returns it) and `depend(task, prerequisite)`;
  //! returns the launch, which the template's device task must wait for.
  template <typename AddLaunch, typename Depend>
  engine::TaskId launch(SimTime host_time, AddLaunch&& add_launch, Depend&& depend) {
    const engine::TaskId task = add_launch(host_time);
    if (last == engine::kNoTask && start != engine::kNoTask) depend(task, start);
    if (read_back != engine::kNoTask) depend(task, read_back);
    last = task;
    read_back = engine::kNoTask;
    return task;
  }
  //! The same on a scratch program, whose host stream is `host_stream`.
  engine::TaskId launch(SimTime host_time, engine::Program& program, engine::StreamId host_stream) {
    return launch(
        host_time,
        [&](SimTime duration) {
          return program.add_task(duration, std::span<const engine::StreamId>(&host_stream, 1));
        },
        [&](engine::TaskId task, engine::TaskId prerequisite) { program.add_dependency(task, prerequisite); });
  }
  //! Notes the device task of the template just launched: the host waits for it when `waits`.
  void issued(engine::TaskId device_task, bool waits) {
    if (waits) read_back = device_task;
  }
};

}  // namespace distsim::program
