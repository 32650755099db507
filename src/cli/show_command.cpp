#include <cstdint>
#include <iostream>
#include <memory>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "catalog/builtin_models.hpp"
#include "cli/commands.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "io/spec/spec_resolver.hpp"
#include "io/spec/spec_writer.hpp"
#include "model/parameter_count.hpp"

namespace distsim::cli {

namespace {

struct ShowOptions {
  std::string what;
  std::string name;
};

//! A model whose tokens use only part of its weights (routed experts) is headed by both counts, in a
//! YAML comment that the model file reader skips.
void show_model(const model::ModelSpec& model) {
  const std::int64_t total = model::total_parameters(model);
  const std::int64_t active = model::active_parameters(model);
  if (active != total) {
    std::cout << "# parameters: " << total << " total, " << active << " active per token\n";
  }
  std::cout << io::model_yaml(model);
}

void run_show(const ShowOptions& options) {
  if (options.what == "model") {
    show_model(io::resolve_model(options.name));
  } else if (options.what == "gpu") {
    std::cout << io::gpu_yaml(io::resolve_gpu(options.name));
  } else if (options.what == "cluster") {
    std::cout << io::cluster_yaml(io::resolve_cluster(options.name));
  } else {
    throw InputError("distsim show: " + unknown_name_message("kind", options.what, {"model", "gpu", "cluster"}));
  }
}

}  // namespace

void add_show_command(CLI::App& app) {
  auto options = std::make_shared<ShowOptions>();
  auto* command = app.add_subcommand(
      "show", "print a built-in model, GPU or cluster (or a file of one) as a YAML file to edit and pass back");
  command->add_option("what", options->what, "model | gpu | cluster")->required();
  command->add_option("name", options->name, "a name from `distsim list models|gpus|clusters`, or a file")->required();
  command->callback([options] { run_show(*options); });
}

}  // namespace distsim::cli
