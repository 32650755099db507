#include <algorithm>

#include "core/input_error.hpp"
#include "options/option_builders.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/gpu_placement.hpp"
#include "strategy/pipeline_layout.hpp"

namespace distsim::options {

namespace table {

namespace {

std::vector<JobOption> spec_options() {
  JobOption model =
      basic("model", "--model", ValueType::text, "gpt2-345m",
            "built-in model name, a YAML/JSON model file, a Hugging Face config.json, or an inline mapping "
            "'{name: tiny, num_layers: 4, ...}' (as the job echo writes one)");
  model.apply = [](const Value& value, JobSpec& job, const SpecResolvers& resolve) {
    job.model = resolve.model(as_text(value));
  };
  model.read = [](const JobSpec& job) -> Value { return job.model.name; };

  JobOption seq_length = basic("seq_length", "--seq-length", ValueType::positive_integer, "",
                               "tokens per sequence (default: the model's)");
  seq_length.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.model.seq_length = as_int(value);
  };
  seq_length.read = [](const JobSpec& job) -> Value { return job.model.seq_length; };

  JobOption cluster = basic("cluster", "--cluster", ValueType::text, "",
                            "built-in node design, a YAML/JSON cluster file or an inline mapping (default: the GPU's)");
  cluster.apply = [](const Value& value, JobSpec& job, const SpecResolvers& resolve) {
    job.cluster = resolve.cluster(as_text(value));
  };
  cluster.read = [](const JobSpec& job) -> Value { return job.cluster.name; };

  JobOption gpu =
      basic("gpu", "--gpu", ValueType::text, "",
            "built-in GPU name, a YAML/JSON GPU file or an inline mapping (default: the cluster's GPU, or a40)");
  gpu.apply = [](const Value& value, JobSpec& job, const SpecResolvers& resolve) {
    if (job.cluster.mixed()) {
      throw InputError("gpu '" + as_text(value) + "' would put one GPU in every host, but cluster '" +
                       job.cluster.name +
                       "' has host groups of several GPUs; change a group's gpu in the cluster file instead");
    }
    job.cluster.gpu = resolve.gpu(as_text(value));
  };
  gpu.read = [](const JobSpec& job) -> Value { return job.cluster.gpu.name; };
  // A cluster of several GPU types names each group's GPU itself.
  gpu.applies = [](const JobSpec& job) { return !job.cluster.mixed(); };

  JobOption gpus_per_node = basic("gpus_per_node", "--gpus-per-node", ValueType::positive_integer, "",
                                  "GPUs per node (default: the cluster's)");
  // A scale-up domain of several hosts (an NVL72 rack) keeps its GPUs; its hosts must fill it.
  gpus_per_node.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    cluster::ClusterSpec& machines = job.cluster;
    const int gpus = as_int(value);
    if (machines.hosts_per_domain > 1) {
      const int domain = machines.gpus_per_domain();
      if (domain % gpus != 0) {
        throw InputError("gpus_per_node " + std::to_string(gpus) + " does not divide the " + std::to_string(domain) +
                         "-GPU scale-up domain of cluster '" + machines.name +
                         "' (its hosts must fill the domain); describe another domain in a cluster file "
                         "(gpus_per_host, gpus_per_domain)");
      }
      machines.hosts_per_domain = domain / gpus;
    }
    machines.gpus_per_host = gpus;
  };
  gpus_per_node.read = [](const JobSpec& job) -> Value { return job.cluster.gpus_per_host; };
  return {model, seq_length, cluster, gpu, gpus_per_node};
}

std::vector<JobOption> size_options() {
  JobOption notation = basic("strategy", "--strategy", ValueType::text, "",
                             "parallel sizes in the paper's notation, e.g. 2M2P4D, or 2M2C2P4D with context parallel "
                             "2 (default 2M2P4D unless tp, pp or dp is given)");
  notation.excludes = {"tp", "pp", "dp"};
  notation.check = strategy::strategy_notation_problem;
  notation.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    const Strategy sizes = strategy::parse_strategy_notation(as_text(value));
    job.strategy.tensor_parallel = sizes.tensor_parallel;
    job.strategy.context_parallel = sizes.context_parallel;
    job.strategy.pipeline_parallel = sizes.pipeline_parallel;
    job.strategy.data_parallel = sizes.data_parallel;
  };
  notation.read = [](const JobSpec& job) -> Value { return job.strategy.notation(); };

  std::vector<JobOption> sizes{
      notation,
      strategy_integer("tp", "--tp", &Strategy::tensor_parallel, "", "tensor (model) parallel size (default 1)"),
      strategy_integer("pp", "--pp", &Strategy::pipeline_parallel, "", "pipeline parallel size (default 1)"),
      strategy_integer("dp", "--dp", &Strategy::data_parallel, "", "data parallel size (default 1)"),
      strategy_integer("cp", "--cp", &Strategy::context_parallel, "",
                       "context parallel size (Megatron-Core ring attention): each rank holds s/cp tokens of every "
                       "sequence; works with strategy (or its C part, e.g. 2M2C2P4D) and with tp/pp/dp (default 1)"),
      strategy_integer("micro_batch_size", "--micro-batch-size", &Strategy::micro_batch_size, "4",
                       "sequences per micro-batch"),
      strategy_integer("global_batch_size", "--global-batch-size", &Strategy::global_batch_size, "64",
                       "sequences per iteration")};
  for (const char* size : {"tp", "pp", "dp"}) {
    auto it = std::find_if(sizes.begin(), sizes.end(), [&](const JobOption& o) { return o.key == size; });
    it->excludes = {"strategy"};
  }
  for (const auto& size : {std::pair{"tp", &Strategy::tensor_parallel}, std::pair{"pp", &Strategy::pipeline_parallel},
                           std::pair{"dp", &Strategy::data_parallel}, std::pair{"cp", &Strategy::context_parallel}}) {
    auto it = std::find_if(sizes.begin(), sizes.end(), [&](const JobOption& o) { return o.key == size.first; });
    it->search_values = [field = size.second](const JobSpec& job) { return free_parallel_sizes(job, field); };
  }
  // Ring attention runs inside the fused kernel: with unfused attention context parallelism stays 1.
  auto context = std::find_if(sizes.begin(), sizes.end(), [](const JobOption& o) { return o.key == "cp"; });
  context->search_values = [](const JobSpec& job) {
    return job.strategy.attention == strategy::Attention::unfused
               ? std::vector<Value>{1}
               : free_parallel_sizes(job, &Strategy::context_parallel);
  };
  // The exchange is a choice of the software stack, not of the hardware: search keeps the job's
  // own unless values are listed.
  JobOption comm_type = strategy_choice<strategy::CpCommType>(
      "cp_comm_type", "--cp-comm-type", "context-parallel exchange", &Strategy::cp_comm_type,
      {{"p2p", strategy::CpCommType::p2p},
       {"a2a", strategy::CpCommType::a2a},
       {"allgather", strategy::CpCommType::allgather},
       {"a2a+p2p", strategy::CpCommType::a2a_p2p}},
      "how context-parallel attention exchanges the sequence (Megatron-Core --cp-comm-type): p2p (ring of K/V blocks "
      "beside the attention steps), a2a (all-to-all of Q, K, V to head shards and of the output back; heads/tp and "
      "KV heads/tp divisible by cp), allgather (gather K and V, reduce-scatter their gradients) or a2a+p2p (all-to-all "
      "inside groups of cp_a2a_size adjacent context ranks, the ring across the groups); a search keeps the job's "
      "exchange unless values are listed");
  comm_type.applies = [](const JobSpec& job) { return job.strategy.context_parallel > 1; };
  comm_type.search_values = [read = comm_type.read](const JobSpec& job) { return std::vector<Value>{read(job)}; };
  comm_type.searched_when_listed = true;
  JobOption a2a_size = strategy_integer(
      "cp_a2a_size", "--cp-a2a-size", &Strategy::cp_a2a_size, "1",
      "with cp_comm_type a2a+p2p: the adjacent context ranks that exchange by all-to-all, the first of Megatron-Core's "
      "--hierarchical-context-parallel-sizes (--hierarchical-context-parallel-sizes 2 4 is cp 8 with cp_a2a_size 2); "
      "the ring runs over cp / cp_a2a_size groups");
  a2a_size.applies = [](const JobSpec& job) { return job.strategy.cp_comm_type == strategy::CpCommType::a2a_p2p; };
  // With a2a+p2p every group of 2 or more context ranks that leaves 2 or more groups for the ring;
  // the job's own where there is none, which validation then refuses with the sizes that would do.
  a2a_size.search_values = [read = a2a_size.read](const JobSpec& job) {
    const Strategy& s = job.strategy;
    std::vector<Value> groups;
    for (int size = 2; s.cp_comm_type == strategy::CpCommType::a2a_p2p && size < s.context_parallel; ++size) {
      if (s.context_parallel % size == 0) groups.emplace_back(size);
    }
    return groups.empty() ? std::vector<Value>{read(job)} : groups;
  };
  const auto after_context = context - sizes.begin() + 1;
  sizes.insert(sizes.begin() + after_context, {comm_type, a2a_size});
  // Every micro-batch size that divides a data-parallel rank's share of the global batch.
  auto micro_batch =
      std::find_if(sizes.begin(), sizes.end(), [](const JobOption& o) { return o.key == "micro_batch_size"; });
  micro_batch->search_values = [](const JobSpec& job) {
    const Strategy& s = job.strategy;
    return s.global_batch_size % s.data_parallel == 0 ? divisors(s.global_batch_size / s.data_parallel)
                                                      : std::vector<Value>{};
  };
  return sizes;
}

JobOption schedule_option() {
  JobOption schedule =
      basic("schedule", "--schedule", ValueType::choice, "1f1b", "pipeline schedule (see `distsim list schedules`)");
  schedule.allowed = schedule::schedule_names();
  schedule.value_aliases = schedule::schedule_aliases();
  schedule.unmodelled_values = schedule::unmodelled_schedules();
  schedule.noun = "schedule";
  schedule.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.schedule = as_text(value);
  };
  schedule.read = [](const JobSpec& job) -> Value { return job.strategy.schedule; };
  // One stage has no pipeline to schedule: every schedule would run its passes back to back.
  schedule.search_values = [default_name = schedule.default_value](const JobSpec& job) {
    if (job.strategy.pipeline_parallel == 1) return std::vector<Value>{default_name};
    std::vector<Value> names;
    for (const auto& name : schedule::schedule_names()) names.emplace_back(name);
    return names;
  };
  return schedule;
}

//! The settings that say which layers each virtual pipeline stage holds, when not split evenly
//! (strategy/pipeline_layout.hpp). A search keeps them as the job gives them.
std::vector<JobOption> layout_options() {
  JobOption text = basic("pipeline_layout", "--pipeline-layout", ValueType::text, "",
                         "layers of each virtual pipeline stage in Megatron-Core's --pipeline-model-parallel-layout "
                         "syntax: E embedding, t decoder layer, L head and loss, '|' between virtual stages, X*N "
                         "and (...)*N repeat, commas ignored; e.g. 'Et*3|t*4|t*4|t*3L' (default: even split)");
  text.check = strategy::pipeline_layout_problem;
  text.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.pipeline_layout = as_text(value);
  };
  text.read = [](const JobSpec& job) -> Value { return job.strategy.pipeline_layout; };
  text.applies = [](const JobSpec& job) { return !job.strategy.pipeline_layout.empty(); };
  JobOption first = strategy_integer("first_stage_layers", "--first-stage-layers", &Strategy::first_stage_layers, "",
                                     "decoder layers of the first pipeline stage, the rest split evenly over the "
                                     "others (Megatron-Core --decoder-first-pipeline-num-layers)");
  first.applies = [](const JobSpec& job) { return job.strategy.first_stage_layers > 0; };
  JobOption last = strategy_integer("last_stage_layers", "--last-stage-layers", &Strategy::last_stage_layers, "",
                                    "decoder layers of the last pipeline stage, the rest split evenly over the "
                                    "others (Megatron-Core --decoder-last-pipeline-num-layers)");
  last.applies = [](const JobSpec& job) { return job.strategy.last_stage_layers > 0; };
  JobOption embedding = strategy_boolean(
      "account_for_embedding_in_pipeline_split", "--account-for-embedding-in-pipeline-split",
      &Strategy::account_for_embedding,
      "count the embedding as one layer when splitting the layers over the virtual pipeline stages, so the first "
      "holds one decoder layer fewer (Megatron-Core)");
  embedding.applies = [](const JobSpec& job) { return job.strategy.account_for_embedding; };
  JobOption loss = strategy_boolean(
      "account_for_loss_in_pipeline_split", "--account-for-loss-in-pipeline-split", &Strategy::account_for_loss,
      "count the LM head and loss as one layer when splitting the layers over the "
      "virtual pipeline stages, so the last holds one decoder layer fewer (Megatron-Core)");
  loss.applies = [](const JobSpec& job) { return job.strategy.account_for_loss; };
  JobOption stage_gpus =
      basic("stage_gpus", "--stage-gpus", ValueType::text, "",
            "on a cluster of several GPU types, the GPU of each pipeline stage, comma-separated, from the cluster's "
            "host groups, e.g. 'h100,h100,a100,a100' (default: ranks fill the hosts in the cluster's order)");
  stage_gpus.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.stage_gpus = as_text(value);
  };
  stage_gpus.read = [](const JobSpec& job) -> Value { return job.strategy.stage_gpus; };
  stage_gpus.applies = [](const JobSpec& job) { return job.cluster.mixed() || !job.strategy.stage_gpus.empty(); };
  // Each assignment of the cluster's GPUs to the stages that gives every stage one GPU type, or the
  // cluster's order where none does.
  stage_gpus.search_values = [](const JobSpec& job) {
    std::vector<Value> values;
    for (auto& assignment : strategy::stage_gpu_assignments(job)) values.emplace_back(std::move(assignment));
    if (values.empty()) values.emplace_back(std::string());
    return values;
  };
  return {text, first, last, embedding, loss, stage_gpus};
}
JobOption nodes_option() {
  JobOption nodes = basic("nodes", "--nodes", ValueType::positive_integer, "",
                          "number of nodes (default: as many as the parallel sizes need)");
  nodes.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    if (job.cluster.mixed() && as_int(value) != job.cluster.num_hosts) {
      throw InputError("nodes " + std::to_string(as_int(value)) + ": cluster '" + job.cluster.name +
                       "' has host groups of " + std::to_string(job.cluster.num_hosts) +
                       " hosts in all, which a job uses whole; change the groups' hosts in the cluster file instead");
    }
    job.cluster.num_hosts = as_int(value);
  };
  nodes.read = [](const JobSpec& job) -> Value { return job.cluster.num_hosts; };
  // A cluster of several GPU types has its hosts in its groups.
  nodes.applies = [](const JobSpec& job) { return !job.cluster.mixed(); };
  return nodes;
}

std::vector<JobOption> build_table() {
  std::vector<JobOption> table = spec_options();
  for (const auto& part : {size_options(), std::vector<JobOption>{schedule_option()}, precision_options(),
                           feature_options(), layout_options(), expert_options(),
                           std::vector<JobOption>{nodes_option()}, variability_options(), goodput_options()}) {
    table.insert(table.end(), part.begin(), part.end());
  }
  return table;
}

}  // namespace

}  // namespace table

const std::vector<JobOption>& job_options() {
  static const std::vector<JobOption> options = table::build_table();
  return options;
}

}  // namespace distsim::options
