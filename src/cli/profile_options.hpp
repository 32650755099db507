#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cost/cost_model.hpp"

namespace distsim::cli {

//! Where the profile database lives by default: $DISTSIM_PROFILE_DB, else
//! $XDG_DATA_HOME/distsim/profiles.sqlite, else ~/.local/share/distsim/profiles.sqlite. Empty
//! when none of these can be formed (no HOME).
std::string default_profile_database_path();

//! The `--profile-db PATH` flag shared by `simulate`, `events` and the `db` subcommands.
struct ProfileOptions {
  std::string database;

  void add_to(CLI::App& command);
  //! The database the `db` subcommands work on: the flag, else the default location.
  std::string database_path() const;
  //! Measured and extrapolated costs for events on `hardware`, to put before the analytical
  //! model. Null when no flag was given and the default database does not exist, or cannot be
  //! read (with a note on stderr). A flag naming a missing file, or a database that cannot be
  //! read, is an InputError. Prints a note on stderr when the database holds nothing for
  //! `hardware`.
  std::shared_ptr<const cost::CostModel> cost_model(const std::string& hardware) const;
};

}  // namespace distsim::cli
