// PyTorch profiler (Kineto) traces, the measured side of `distsim compare`: read, and each NCCL
// kernel's group placed in a 2M2P2D job as read_measured_traces places it.
#include <cstddef>
#include <cstdint>

#include "compare/measured_group.hpp"
#include "core/input_error.hpp"
#include "fuzz_input.hpp"
#include "io/trace/trace_reader_formats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    namespace format = distsim::io::trace_format;
    const auto file =
        format::load_trace_file(distsim::fuzz::write_input(distsim::fuzz::as_text(data, size), "rank.json"), "trace");
    auto trace = format::read_kineto_trace(file, 0);
    distsim::strategy::Strategy job;
    job.tensor_parallel = 2;
    job.pipeline_parallel = 2;
    job.data_parallel = 2;
    const distsim::strategy::RankLayout layout(distsim::strategy::parallel_dims(job), {});
    for (std::size_t r = 0; r < trace.ranks.size() && r < trace.groups.size(); ++r) {
      for (const auto& [activity, group] : trace.groups[r]) {
        trace.ranks[r].activities.at(activity).kind =
            distsim::compare::measured_communication_kind(layout, job, trace.ranks[r].rank, group);
      }
      distsim::compare::label_pipeline_transfers(trace.ranks[r]);
    }
  } catch (const distsim::InputError&) {
    // A refusal with a message is the expected answer to bad input; anything else escapes and
    // the fuzzer reports it (the command line would exit 70 on it).
  }
  return 0;
}
