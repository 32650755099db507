#include <algorithm>
#include <iostream>
#include <memory>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "catalog/builtin_models.hpp"
#include "cli/commands.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::cli {

namespace {

std::string padded(std::string_view name) {
  std::string text(name);
  text.resize(std::max<size_t>(text.size() + 2, 18), ' ');
  return text;
}

template <typename Item, typename Describe>
void print_catalog(const std::vector<Item>& items, Describe describe) {
  for (const auto& item : items) {
    std::cout << describe(item) << "\n";
  }
}

void run_list(const std::string& what) {
  if (what == "models") {
    print_catalog(catalog::builtin_models(), [](const auto& m) { return padded(m.name) + m.description; });
  } else if (what == "gpus") {
    print_catalog(catalog::builtin_gpus(), [](const auto& g) { return padded(g.name) + g.description; });
  } else if (what == "clusters") {
    print_catalog(catalog::builtin_clusters(), [](const auto& c) { return padded(c.name) + c.description; });
  } else if (what == "schedules") {
    print_catalog(schedule::all_schedules(),
                  [](const auto* s) { return padded(s->name()) + std::string(s->description()); });
  } else {
    throw InputError("distsim list: " + unknown_name_message("catalog", what, {"models", "gpus", "clusters", "schedules"}));
  }
}

}  // namespace

void add_list_command(CLI::App& app) {
  auto what = std::make_shared<std::string>();
  auto* command = app.add_subcommand("list", "list the built-in models, gpus, clusters or schedules");
  command->add_option("what", *what, "models | gpus | clusters | schedules")->required();
  command->callback([what] { run_list(*what); });
}

}  // namespace distsim::cli
