#pragma once

#include <string>

#include "cluster/gpu_spec.hpp"
#include "io/document/mapping_reader.hpp"

namespace distsim::io {

//! Reads a GPU in distsim's own schema (the GpuSpec field names; a file or an inline `gpu:`
//! mapping of a cluster file). Starts from `base` when not null; without one it requires
//! peak_fp16_tflops, peak_fp32_tflops, memory_gb, memory_bandwidth_gbps and sm_count, and
//! defaults the efficiencies to the typical measured ones (docs/reference/hardware.md §5.2, §6). `default_name`
//! names the GPU when the mapping has no `name`. Problems go to the reader's Diagnostics.
cluster::GpuSpec read_gpu_mapping(MappingReader& reader, const cluster::GpuSpec* base, const std::string& default_name,
                                  const std::string& file);

}  // namespace distsim::io
