#include <pybind11/stl.h>

#include "io/spec/launch_source.hpp"
#include "io/spec/spec_resolver.hpp"
#include "io/spec/spec_writer.hpp"
#include "options/job_option.hpp"
#include "python/bindings.hpp"
#include "python/job_arguments.hpp"

namespace py = pybind11;

namespace distsim::python {

namespace {

const char* type_name(options::ValueType type) {
  switch (type) {
    case options::ValueType::positive_integer: return "positive_integer";
    case options::ValueType::boolean: return "boolean";
    case options::ValueType::text: return "text";
    case options::ValueType::choice: return "choice";
    case options::ValueType::positive_number: return "positive_number";
    case options::ValueType::non_negative_number: return "non_negative_number";
  }
  return "text";
}

py::list option_table() {
  py::list rows;
  for (const auto& option : options::job_options()) {
    py::dict row;
    row["key"] = option.key;
    row["flag"] = option.flag;
    row["type"] = type_name(option.type);
    row["default"] = option.default_value;
    row["allowed"] = option.allowed;
    row["help"] = option.help;
    row["searchable"] = static_cast<bool>(option.search_values);
    row["section"] = option.section;
    rows.append(row);
  }
  return rows;
}

//! A model (built-in name, model file, Hugging Face config.json or inline mapping) as its fields
//! in JSON and as the one-line mapping a job setting takes.
std::pair<std::string, std::string> model_spec(const std::string& name_or_path) {
  const auto fields = io::model_json(io::resolve_model(name_or_path));
  return {fields.dump(), io::flow_yaml(fields)};
}

//! What a launch (Megatron-LM arguments, a torchtitan TOML or a Megatron-Bridge config) and the settings given beside
//! it make a job: its settings as (key, value) pairs as a job file would hold them, given ones over the launch's, and
//! what the reading assumed and ignored.
py::dict launch_settings(const std::string& megatron_args, const std::string& torchtitan,
                         const std::string& megatron_bridge, const SettingList& values) {
  const io::LaunchSource source{megatron_args, torchtitan, megatron_bridge};
  const options::JobSettings given = job_settings(values);
  const io::LaunchJob launch = io::read_launch(source, given);
  SettingList merged;
  const options::JobSettings settings = io::launch_job_settings(source, given, launch, {});
  for (const auto& [key, setting] : settings.all()) {
    if (const bool* yes = std::get_if<bool>(&setting.value)) {
      merged.emplace_back(key, *yes);
    } else {
      merged.emplace_back(key, options::value_text(setting.value));
    }
  }
  py::dict result;
  result["settings"] = merged;
  result["assumptions"] = launch.assumptions;
  result["ignored"] = launch.ignored;
  return result;
}

}  // namespace

void bind_job(py::module_& module) {
  module.def("launch_settings", &launch_settings, py::arg("megatron_args"), py::arg("torchtitan"),
             py::arg("megatron_bridge"), py::arg("settings"),
             "{settings, assumptions, ignored} of a job launched with Megatron-LM arguments, a torchtitan TOML or "
             "a Megatron-Bridge config.");
  module.def(
      "check_job_settings", [](const SettingList& values) { job_settings(values); },
      "Parses every (key, value) by the option table; raises InputError with the CLI's message.");
  module.def("option_table", &option_table, "The job option table: one dict per setting, in table order.");
  module.def("model_spec", &model_spec, py::arg("name_or_path"),
             "(fields as JSON text, inline mapping text) of a model name, file or mapping.");
}

}  // namespace distsim::python
