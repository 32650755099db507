#include "io/job_file_reader.hpp"

#include <filesystem>

#include "io/diagnostics.hpp"
#include "io/document.hpp"
#include "io/mapping_reader.hpp"

namespace distsim::io {

namespace {

template <class Value>
void read_optional(MappingReader& reader, std::string_view key, std::optional<Value>& out) {
  Value value{};
  if (reader.read(key, value)) {
    out = value;
  }
}

void read_choice(MappingReader& reader, std::string_view key, std::optional<std::string>& out,
                 const std::vector<Choice<std::string_view>>& choices) {
  std::string_view value;
  if (reader.read_choice(key, value, choices)) {
    out = std::string(value);
  }
}

//! A model, GPU or cluster file named relative to the job file is looked up next to it.
void relative_to_job_file(std::optional<std::string>& name, const std::string& job_path) {
  if (!name || !looks_like_path(*name) || std::filesystem::path(*name).is_absolute()) {
    return;
  }
  name = (std::filesystem::path(job_path).parent_path() / *name).lexically_normal().string();
}

void read_names(MappingReader& reader, JobFile& job) {
  read_optional(reader, "model", job.model);
  read_optional(reader, "gpu", job.gpu);
  read_optional(reader, "cluster", job.cluster);
  for (auto* name : {&job.model, &job.gpu, &job.cluster}) {
    relative_to_job_file(*name, job.path);
  }
}

void read_sizes(MappingReader& reader, JobFile& job) {
  read_optional(reader, "nodes", job.nodes);
  read_optional(reader, "gpus_per_node", job.gpus_per_node);
  read_optional(reader, "strategy", job.strategy);
  read_optional(reader, "tp", job.tp);
  read_optional(reader, "pp", job.pp);
  read_optional(reader, "dp", job.dp);
  read_optional(reader, "cp", job.cp);
  if (job.strategy && (reader.has("tp") || reader.has("pp") || reader.has("dp"))) {
    reader.report("strategy", "give either strategy or tp/pp/dp, not both");
  }
  read_optional(reader, "micro_batch_size", job.micro_batch_size);
  read_optional(reader, "global_batch_size", job.global_batch_size);
  read_optional(reader, "seq_length", job.seq_length);
  read_optional(reader, "virtual_stages", job.virtual_stages);
}

void read_training(MappingReader& reader, JobFile& job) {
  read_optional(reader, "schedule", job.schedule);
  read_choice(reader, "dtype", job.dtype, {{"bf16", "bf16"}, {"fp16", "fp16"}, {"fp32", "fp32"}});
  read_choice(reader, "recompute", job.recompute,
              {{"none", "none"}, {"selective", "selective"}, {"full", "full"}});
  read_optional(reader, "sequence_parallel", job.sequence_parallel);
  read_optional(reader, "distributed_optimizer", job.distributed_optimizer);
  read_optional(reader, "overlap_grad_reduce", job.overlap_grad_reduce);
  read_optional(reader, "p2p_scatter_gather", job.p2p_scatter_gather);
  read_optional(reader, "fp8", job.fp8);
}

}  // namespace

JobFile read_job_file(const std::string& path) {
  const Document document = load_document(path, "job file");
  Diagnostics diagnostics(path);
  MappingReader reader(document.root, "", diagnostics);
  reader.reject_unknown_keys({"model", "gpu", "cluster", "nodes", "gpus_per_node", "strategy", "tp", "pp", "dp", "cp",
                              "micro_batch_size", "global_batch_size", "seq_length", "schedule", "dtype",
                              "sequence_parallel", "recompute", "distributed_optimizer", "overlap_grad_reduce",
                              "p2p_scatter_gather", "virtual_stages", "fp8"});
  JobFile job;
  job.path = path;
  read_names(reader, job);
  read_sizes(reader, job);
  read_training(reader, job);
  diagnostics.throw_if_any();
  return job;
}

}  // namespace distsim::io
