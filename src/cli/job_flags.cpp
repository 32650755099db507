#include "cli/job_flags.hpp"

#include <algorithm>
#include <iostream>

#include "io/spec/job_file_reader.hpp"
#include "io/spec/launch_source.hpp"

namespace distsim::cli {

namespace {

std::string help_of(const options::JobOption& option) {
  std::string help = option.help;
  if (option.type == options::ValueType::choice) {
    help += " (";
    for (std::size_t i = 0; i < option.allowed.size(); ++i) {
      help += (i == 0 ? "" : ", ") + option.allowed[i];
    }
    help += ")";
  }
  if (!option.default_value.empty() && option.type != options::ValueType::boolean) {
    help += " [default: " + option.default_value + "]";
  }
  return help + "; job-file key " + option.key;
}

}  // namespace

void JobFlags::add_to(CLI::App& command, const std::vector<std::string>& left_out) {
  command.add_option("--job", job_file_,
                     "a YAML/JSON job file: every setting under its key, the flag's name with underscores "
                     "(micro_batch_size for --micro-batch-size); flags given here override it");
  command.add_option("--megatron-args", megatron_args_,
                     "Megatron-LM pretrain_gpt.py arguments as a launch script file or one string: the model "
                     "shape, parallel sizes, batches, precision, recomputation, layout, overlap and MoE flags "
                     "(docs/input_formats.md); flags given here override them, and --model gives the vocabulary");
  command.add_option("--torchtitan", torchtitan_,
                     "a torchtitan job TOML: [model], [parallelism], [training], [activation_checkpoint], [float8], "
                     "[compile] (docs/input_formats.md); flags given here override it, and --nodes gives the world "
                     "that data_parallel_shard_degree -1 fills");
  command.add_option("--megatron-bridge", megatron_bridge_,
                     "a Megatron-Bridge ConfigContainer YAML, as Bridge writes it or as a recipe's override file: "
                     "each section.field read as Megatron-LM's argument (docs/input_formats.md); flags given here "
                     "override it, --model gives the recipe's model an override file changes, --nodes the world");
  for (const auto& option : options::job_options()) {
    if (std::find(left_out.begin(), left_out.end(), option.key) != left_out.end()) {
      continue;
    }
    if (option.type == options::ValueType::boolean) {
      flags_[option.key] = command.add_flag(option.flag, switches_[option.key], help_of(option));
    } else {
      const char* type = option.type == options::ValueType::positive_integer ? "N"
                         : option.type == options::ValueType::text || option.type == options::ValueType::choice
                             ? "TEXT"
                             : "NUMBER";
      flags_[option.key] = command.add_option(option.flag, texts_[option.key], help_of(option))->type_name(type);
    }
  }
}

options::JobSettings JobFlags::flag_settings() const {
  options::JobSettings settings;
  for (const auto& [key, flag] : flags_) {
    if (flag->count() == 0) {
      continue;
    }
    const auto& option = options::option(key);
    if (option.type == options::ValueType::boolean) {
      settings.set(key, switches_.at(key), option.flag);
    } else {
      settings.set_text(key, texts_.at(key), option.flag);
    }
  }
  return settings;
}

options::JobSettings JobFlags::file_settings() const {
  return job_file_.empty() ? options::JobSettings{} : io::read_job_file(job_file_);
}

namespace {

void tell(const io::LaunchJob& launch) {
  for (const auto& assumption : launch.assumptions) std::cerr << "distsim: assumed: " << assumption << "\n";
  if (launch.ignored.empty()) return;
  std::string ignored;
  for (const auto& flag : launch.ignored) ignored += (ignored.empty() ? "" : " ") + flag;
  std::cerr << "distsim: ignored (no effect on a step's time): " << ignored << "\n";
}

}  // namespace

const io::LaunchJob& JobFlags::launch_settings() const {
  if (launch_) return *launch_;
  const io::LaunchSource source{megatron_args_, torchtitan_, megatron_bridge_};
  launch_ = io::read_launch(source, flag_settings());
  if (!source.empty()) tell(*launch_);
  return *launch_;
}

options::JobSettings JobFlags::settings() const {
  return io::launch_job_settings({megatron_args_, torchtitan_, megatron_bridge_}, flag_settings(), launch_settings(),
                                 file_settings());
}

}  // namespace distsim::cli
