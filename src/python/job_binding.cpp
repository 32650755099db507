#include <pybind11/stl.h>

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

}  // namespace

void bind_job(py::module_& module) {
  module.def(
      "check_job_settings", [](const SettingList& values) { job_settings(values); },
      "Parses every (key, value) by the option table; raises InputError with the CLI's message.");
  module.def("option_table", &option_table, "The job option table: one dict per setting, in table order.");
  module.def("model_spec", &model_spec, py::arg("name_or_path"),
             "(fields as JSON text, inline mapping text) of a model name, file or mapping.");
}

}  // namespace distsim::python
