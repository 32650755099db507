#include "python/job_arguments.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "core/number_text.hpp"
#include "profile/profile_cost_model.hpp"
#include "profile_db/profile_database.hpp"

namespace distsim::python {

namespace {

//! Where the CLI looks for the profile database when none is named (cli::default_profile_database_path).
std::string default_database_path() {
  const auto variable = [](const char* name) {
    const char* value = std::getenv(name);
    return value ? std::string(value) : std::string();
  };
  if (std::string chosen = variable("DISTSIM_PROFILE_DB"); !chosen.empty()) return chosen;
  if (const std::string data_home = variable("XDG_DATA_HOME"); !data_home.empty() && data_home.front() == '/') {
    return data_home + "/distsim/profiles.sqlite";
  }
  if (const std::string home = variable("HOME"); !home.empty()) return home + "/.local/share/distsim/profiles.sqlite";
  return {};
}

}  // namespace

options::JobSettings job_settings(const SettingList& values) {
  options::JobSettings settings;
  for (const auto& [key, value] : values) {
    const options::JobOption* option = options::find_option(key);
    if (option == nullptr) {
      throw InputError(unknown_name_message("job setting", key, options::option_keys()));
    }
    if (const bool* yes = std::get_if<bool>(&value); yes && option->type == options::ValueType::boolean) {
      settings.set(key, *yes, option->flag);
    } else {
      const std::string text = yes ? (*yes ? "true" : "false") : std::get<std::string>(value);
      settings.set_text(key, text, option->flag);
    }
  }
  return settings;
}

std::shared_ptr<const cost::CostModel> profile_costs(const std::optional<std::string>& database,
                                                     const std::string& hardware) {
  std::string path;
  auto access = profile_db::ProfileDatabase::Access::read;
  if (database) {
    path = *database;
  } else {
    path = default_database_path();
    std::error_code error;
    if (path.empty() || !std::filesystem::is_regular_file(path, error) || ::access(path.c_str(), R_OK) != 0) {
      return nullptr;
    }
    access = profile_db::ProfileDatabase::Access::read_allowing_empty;
  }
  try {
    const profile_db::ProfileDatabase db(path, access);
    return std::make_shared<profile::ProfileCostModel>(db.records(hardware));
  } catch (const InputError& e) {
    if (!database) throw;
    throw InputError("--profile-db: " + std::string(e.what()));
  }
}

void check_positive(const char* flag, long long value) {
  if (value <= 0) {
    throw InputError(std::string(flag) + ": " + std::string(kExpectedPositiveInteger) + ", got '" +
                     std::to_string(value) + "'");
  }
}

}  // namespace distsim::python
