#include "io/spec/launch_source.hpp"

#include <filesystem>
#include <optional>

#include "core/input_error.hpp"
#include "io/document/text_file.hpp"
#include "io/spec/bridge_config_reader.hpp"
#include "io/spec/spec_resolver.hpp"
#include "io/spec/torchtitan_reader.hpp"
#include "options/job_assembly.hpp"

namespace distsim::io {

namespace {

//! The GPUs of the job the given settings describe, when they give its nodes.
std::optional<int> world_of(const options::JobSettings& given) {
  if (!given.has("nodes")) return std::nullopt;
  const strategy::JobSpec job = options::assemble_job(given, spec_resolvers());
  return job.cluster.num_hosts * job.cluster.gpus_per_host;
}

LaunchJob read_megatron(const std::string& argument, const options::JobSettings& given) {
  std::error_code error;
  const bool is_file = std::filesystem::is_regular_file(argument, error);
  if (!is_file && argument.find("--") == std::string::npos) {
    throw InputError("--megatron-args '" + argument +
                     "': no such file, and not an argument string (it holds no --flag)");
  }
  const std::string text = is_file ? read_text_file(argument, "Megatron-LM arguments") : argument;
  const std::string origin = is_file ? "Megatron-LM arguments '" + argument + "'" : "--megatron-args";
  const auto vocabulary = [&given]() -> std::optional<int> {
    const options::Setting* model = given.find("model");
    if (model == nullptr) return std::nullopt;
    return resolve_model(std::get<std::string>(model->value)).vocab_size;
  };
  return read_megatron_args(text, origin, vocabulary);
}

LaunchJob read_torchtitan(const std::string& path, const options::JobSettings& given) {
  const std::string text = read_text_file(path, "torchtitan job");
  return read_torchtitan_toml(text, "torchtitan job '" + path + "'", {world_of(given), given.has("model")});
}

LaunchJob read_bridge(const std::string& path, const options::JobSettings& given) {
  BridgeContext context;
  if (const auto world = world_of(given)) context.world = *world;
  if (const options::Setting* model = given.find("model")) {
    context.recipe_model = resolve_model(std::get<std::string>(model->value));
  }
  context.dp_given = given.has("dp");
  return read_bridge_config(path, context);
}

}  // namespace

LaunchJob read_launch(const LaunchSource& source, const options::JobSettings& given) {
  const int launches = !source.megatron_args.empty() + !source.torchtitan.empty() + !source.megatron_bridge.empty();
  if (launches > 1) {
    throw InputError("more than one of --megatron-args, --torchtitan and --megatron-bridge given; a job has one "
                     "launch, use one of them");
  }
  if (!source.megatron_args.empty()) return read_megatron(source.megatron_args, given);
  if (!source.torchtitan.empty()) return read_torchtitan(source.torchtitan, given);
  if (!source.megatron_bridge.empty()) return read_bridge(source.megatron_bridge, given);
  return {};
}

options::JobSettings launch_job_settings(const LaunchSource& source, options::JobSettings given,
                                         const LaunchJob& launch, const options::JobSettings& file) {
  // Its vocabulary, or the shape the launch changed, is the launch model's.
  if (!source.empty() && launch.settings.has("model")) given.erase("model");
  return given.over(launch.settings.over(file));
}

}  // namespace distsim::io
