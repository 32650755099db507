#pragma once

#include <CLI/CLI.hpp>

//! One function per subcommand: each adds its subcommand, its options and a callback that runs
//! it. Callbacks throw InputError for bad input; main() turns that into exit code 2.
namespace distsim::cli {

void add_simulate_command(CLI::App& app);
void add_events_command(CLI::App& app);
void add_list_command(CLI::App& app);
void add_show_command(CLI::App& app);
void add_db_command(CLI::App& app);
void add_search_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_whatif_command(CLI::App& app);

}  // namespace distsim::cli
