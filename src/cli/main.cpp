#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "core/input_error.hpp"

namespace distsim::cli {

namespace {

constexpr int kExitInputError = 2;
constexpr int kExitInternalError = 70;

int run(int argc, char** argv) {
  CLI::App app{"distsim: predicts how a hybrid-parallel DNN training job runs on a GPU cluster"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "distsim 0.1.0");
  add_simulate_command(app);
  add_events_command(app);
  add_list_command(app);
  add_db_command(app);
  add_search_command(app);
  add_validate_command(app);
  add_compare_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitInputError;
  }
  return 0;
}

}  // namespace

}  // namespace distsim::cli

int main(int argc, char** argv) {
  try {
    return distsim::cli::run(argc, argv);
  } catch (const distsim::InputError& e) {
    std::cerr << "distsim: error: " << e.what() << "\n";
    return distsim::cli::kExitInputError;
  } catch (const std::exception& e) {
    std::cerr << "distsim: internal error: " << e.what() << " (please report)\n";
    return distsim::cli::kExitInternalError;
  }
}
