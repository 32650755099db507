#include <nlohmann/json.hpp>

#include "catalog/attention_kernels.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "catalog/builtin_models.hpp"
#include "io/spec/spec_writer.hpp"
#include "python/bindings.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace py = pybind11;

namespace distsim::python {

namespace {

//! Every entry as `distsim list <what> --json` writes it, as JSON text.
template <typename Item, typename Entry>
std::string entries(const std::vector<Item>& items, Entry entry_json) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& item : items) list.push_back(entry_json(item));
  return list.dump();
}

std::string schedules() {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto* schedule : schedule::all_schedules()) {
    list.push_back({{"name", std::string(schedule->name())}, {"description", std::string(schedule->description())}});
  }
  return list.dump();
}

}  // namespace

void bind_catalog(py::module_& module) {
  module.def("catalog_models", [] { return entries(catalog::builtin_models(), io::model_json); });
  module.def("catalog_gpus", [] { return entries(catalog::builtin_gpus(), io::gpu_json); });
  module.def("catalog_clusters", [] { return entries(catalog::builtin_clusters(), io::cluster_json); });
  module.def("catalog_schedules", &schedules);
  module.def("catalog_attention_kernels",
             [] { return entries(catalog::attention_kernel_choices(), io::attention_kernel_json); });
}

}  // namespace distsim::python
