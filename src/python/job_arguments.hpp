#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cost/cost_model.hpp"
#include "options/job_settings.hpp"

namespace distsim::python {

//! A job setting as the package passes it: a yes/no value or the text a job file would hold.
using SettingValue = std::variant<bool, std::string>;
using SettingList = std::vector<std::pair<std::string, SettingValue>>;

//! The settings of `distsim.Job(**kwargs)`, each parsed by the option table's rule with the
//! option's flag as its origin, so that a bad value raises the CLI's message. An unknown key
//! raises the closest known one.
options::JobSettings job_settings(const SettingList& values);

//! The costs of a profile database before the analytical model, as the CLI's --profile-db: the
//! given database (an InputError when it cannot be read), else the default database when it
//! exists and can be read, else none.
std::shared_ptr<const cost::CostModel> profile_costs(const std::optional<std::string>& database,
                                                     const std::string& hardware);

//! A --threads or --max-tasks value: at least 1, else an InputError naming the flag.
void check_positive(const char* flag, long long value);

}  // namespace distsim::python
