#include <algorithm>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "catalog/attention_kernels.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "catalog/builtin_models.hpp"
#include "cli/commands.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "events/operator.hpp"
#include "io/spec/spec_writer.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::cli {

namespace {

std::string padded(std::string_view name) {
  std::string text(name);
  text.resize(std::max<size_t>(text.size() + 2, 18), ' ');
  return text;
}

struct ListOptions {
  std::string what;
  bool json = false;
};

//! Prints one "name  description" line per item, or with --json a list of entries, each the
//! mapping `entry_json` writes (for models, GPUs and clusters what `distsim show` writes), in
//! catalog order.
template <typename Item, typename Name, typename Describe, typename Entry>
void print_catalog(const std::vector<Item>& items, bool json, Name name, Describe describe, Entry entry_json) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& item : items) {
    if (json) {
      list.push_back(entry_json(item));
    } else {
      std::cout << padded(name(item)) << describe(item) << "\n";
    }
  }
  if (json) {
    std::cout << list.dump(2) << "\n";
  }
}

nlohmann::json key_field_json(const events::KeyField& field) {
  return {{"name", std::string(field.name)},
          {"type", std::string(events::key_field_type_name(field.type))},
          {"minimum", field.minimum},
          {"meaning", std::string(field.meaning)}};
}

//! The operator table as the profiler reads it (docs/profile_db.md, "Event keys").
nlohmann::json operator_table_json() {
  nlohmann::json dtypes = nlohmann::json::array();
  for (Dtype dtype : kDtypes) {
    // Whole-byte formats as integers; the block formats' share of a scale byte makes theirs fractional.
    const nlohmann::json bytes = dtype_bytes(dtype) > 0 && storage_bytes(dtype) == dtype_bytes(dtype)
                                     ? nlohmann::json(dtype_bytes(dtype))
                                     : nlohmann::json(storage_bytes(dtype));
    dtypes.push_back({{"name", std::string(dtype_name(dtype))}, {"bytes", bytes}});
  }
  nlohmann::json operators = nlohmann::json::array();
  for (const auto& spec : events::operator_table()) {
    nlohmann::json fields = nlohmann::json::array();
    for (const auto& field : spec.fields) {
      fields.push_back(key_field_json(field));
    }
    operators.push_back({{"name", std::string(spec.name)},
                         {"class", std::string(events::event_class_name(spec.event_class))},
                         {"kind", spec.is_communication() ? "communication" : "compute"},
                         {"key", events::key_grammar(spec)},
                         {"fields", fields},
                         {"meaning", std::string(spec.meaning)}});
  }
  return {{"format", "distsim-operators"}, {"version", 1}, {"dtypes", dtypes}, {"operators", operators}};
}

void print_operators(bool json) {
  if (json) {
    std::cout << operator_table_json().dump(2) << "\n";
    return;
  }
  for (const auto& spec : events::operator_table()) {
    std::string name(spec.name);
    name.resize(std::max<size_t>(name.size() + 2, 24), ' ');
    std::cout << name << spec.meaning << "\n" << std::string(24, ' ') << "key: " << events::key_grammar(spec) << "\n";
  }
}

void print_attention_kernels(bool json) {
  print_catalog(
      catalog::attention_kernel_choices(), json, [](const auto& kernel) -> std::string_view { return kernel.name; },
      [](const auto& kernel) {
        return kernel.rates.empty() ? kernel.description
                                    : kernel.description + "; measured on " + catalog::measured_architectures(kernel);
      },
      io::attention_kernel_json);
}

void run_list(const ListOptions& options) {
  const auto& what = options.what;
  const auto name = [](const auto& item) -> std::string_view { return item.name; };
  const auto description = [](const auto& item) -> std::string_view { return item.description; };
  if (what == "models") {
    print_catalog(catalog::builtin_models(), options.json, name, description, io::model_json);
  } else if (what == "gpus") {
    print_catalog(catalog::builtin_gpus(), options.json, name, description, io::gpu_json);
  } else if (what == "clusters") {
    print_catalog(catalog::builtin_clusters(), options.json, name, description, io::cluster_json);
  } else if (what == "schedules") {
    print_catalog(
        schedule::all_schedules(), options.json, [](const auto* s) { return s->name(); },
        [](const auto* s) { return s->description(); },
        [](const auto* s) -> nlohmann::ordered_json {
          return {{"name", std::string(s->name())}, {"description", std::string(s->description())}};
        });
  } else if (what == "attention-kernels") {
    print_attention_kernels(options.json);
  } else if (what == "operators") {
    print_operators(options.json);
  } else {
    throw InputError("distsim list: " + unknown_name_message("catalog", what,
                                                             {"models", "gpus", "clusters", "schedules",
                                                              "attention-kernels", "operators"}));
  }
}

}  // namespace

void add_list_command(CLI::App& app) {
  auto options = std::make_shared<ListOptions>();
  auto* command = app.add_subcommand(
      "list", "list the built-in models, gpus, clusters, schedules, attention kernels or the operators of "
              "event keys");
  command->add_option("what", options->what, "models | gpus | clusters | schedules | attention-kernels | operators")
      ->required();
  command->add_flag(
      "--json", options->json,
      "print JSON: every field of each model, GPU or cluster (as `distsim show` writes it), each "
      "schedule's name and description, each attention kernel's measured rates with their sources, or the "
      "key grammar of each operator");
  command->callback([options] { run_list(*options); });
}

}  // namespace distsim::cli
