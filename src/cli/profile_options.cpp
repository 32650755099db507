#include "cli/profile_options.hpp"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <system_error>

#include <unistd.h>

#include "core/input_error.hpp"
#include "core/plain_text.hpp"
#include "profile/profile_cost_model.hpp"
#include "profile_db/profile_database.hpp"

namespace distsim::cli {

namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

}  // namespace

std::string default_profile_database_path() {
  if (std::string chosen = environment("DISTSIM_PROFILE_DB"); !chosen.empty()) {
    return chosen;
  }
  // The XDG Base Directory spec says to ignore a relative XDG_DATA_HOME.
  if (const std::string data_home = environment("XDG_DATA_HOME"); !data_home.empty() && data_home.front() == '/') {
    return data_home + "/distsim/profiles.sqlite";
  }
  if (const std::string home = environment("HOME"); !home.empty()) {
    return home + "/.local/share/distsim/profiles.sqlite";
  }
  return {};
}

void ProfileOptions::add_to(CLI::App& command) {
  command.add_option("--profile-db", database,
                     "profile database (default: $DISTSIM_PROFILE_DB, else "
                     "$XDG_DATA_HOME/distsim/profiles.sqlite, else ~/.local/share/distsim/profiles.sqlite)");
}

std::string ProfileOptions::database_path() const {
  if (!database.empty()) {
    return database;
  }
  std::string path = default_profile_database_path();
  if (path.empty()) {
    throw InputError("no profile database: HOME is not set; pass --profile-db PATH");
  }
  return path;
}

namespace {

//! The default database when it can serve: a missing one is normal (nothing imported yet), and
//! one that cannot be examined or read is noted and skipped, since no profile was asked for.
std::optional<std::string> usable_default_database() {
  const std::string path = default_profile_database_path();
  if (path.empty()) {
    return std::nullopt;
  }
  std::error_code error;
  const auto type = std::filesystem::status(path, error).type();
  if (type == std::filesystem::file_type::not_found) {
    return std::nullopt;
  }
  if (error || ::access(path.c_str(), R_OK) != 0) {
    const std::string reason = error ? error.message() : std::generic_category().message(errno);
    std::cerr << "distsim: note: cannot read the default profile database '" << path << "' (" << reason
              << "); every event is priced by the analytical model (--profile-db PATH picks another)\n";
    return std::nullopt;
  }
  return path;
}

}  // namespace

std::shared_ptr<const cost::CostModel> ProfileOptions::cost_model(const std::string& hardware) const {
  const std::optional<std::string> path = database.empty() ? usable_default_database() : database;
  if (!path) {
    return nullptr;
  }
  // An empty default database is what a first import that failed leaves: it holds no events.
  const auto access = database.empty() ? profile_db::ProfileDatabase::Access::read_allowing_empty
                                       : profile_db::ProfileDatabase::Access::read;
  const profile_db::ProfileDatabase db = [&] {
    try {
      return profile_db::ProfileDatabase(*path, access);
    } catch (const InputError& e) {
      throw InputError((database.empty() ? "" : "--profile-db: ") + std::string(e.what()));
    }
  }();
  auto model = std::make_shared<profile::ProfileCostModel>(db.records(hardware));
  if (model->size() == 0) {
    std::cerr << "distsim: note: profile database '" << db.path() << "' holds no events for hardware '" << hardware
              << "' (it holds: " << (db.hardware_names().empty() ? "nothing" : comma_joined(db.hardware_names()))
              << "); every event is priced by the analytical model\n";
  }
  return model;
}

}  // namespace distsim::cli
