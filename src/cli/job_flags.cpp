#include "cli/job_flags.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "core/input_error.hpp"
#include "io/document/text_file.hpp"
#include "io/spec/job_file_reader.hpp"
#include "io/spec/spec_resolver.hpp"

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
  for (const auto& option : options::job_options()) {
    if (std::find(left_out.begin(), left_out.end(), option.key) != left_out.end()) {
      continue;
    }
    if (option.type == options::ValueType::boolean) {
      flags_[option.key] = command.add_flag(option.flag, switches_[option.key], help_of(option));
    } else {
      const char* type = option.type == options::ValueType::positive_integer ? "N" : "TEXT";
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

const io::LaunchJob& JobFlags::launch_settings() const {
  if (launch_) return *launch_;
  if (megatron_args_.empty()) return launch_.emplace();
  std::error_code error;
  const bool is_file = std::filesystem::is_regular_file(megatron_args_, error);
  if (!is_file && megatron_args_.find("--") == std::string::npos) {
    throw InputError("--megatron-args '" + megatron_args_ +
                     "': no such file, and not an argument string (it holds no --flag)");
  }
  const std::string text = is_file ? io::read_text_file(megatron_args_, "Megatron-LM arguments") : megatron_args_;
  const std::string origin = is_file ? "Megatron-LM arguments '" + megatron_args_ + "'" : "--megatron-args";
  const options::JobSettings flags = flag_settings();
  const auto vocabulary = [&flags]() -> std::optional<int> {
    const options::Setting* model = flags.find("model");
    if (model == nullptr) return std::nullopt;
    return io::resolve_model(std::get<std::string>(model->value)).vocab_size;
  };
  io::LaunchJob& launch = launch_.emplace(io::read_megatron_args(text, origin, vocabulary));
  for (const auto& assumption : launch.assumptions) std::cerr << "distsim: assumed: " << assumption << "\n";
  if (!launch.ignored.empty()) {
    std::string ignored;
    for (const auto& flag : launch.ignored) ignored += (ignored.empty() ? "" : " ") + flag;
    std::cerr << "distsim: ignored (no effect on a step's time): " << ignored << "\n";
  }
  return launch;
}

options::JobSettings JobFlags::settings() const {
  options::JobSettings flags = flag_settings();
  const io::LaunchJob& launch = launch_settings();
  if (!megatron_args_.empty()) flags.erase("model");  // its vocabulary is the launch model's
  return flags.over(launch.settings.over(file_settings()));
}

}  // namespace distsim::cli
