#include "options/job_settings.hpp"

#include "core/input_error.hpp"

namespace distsim::options {

void JobSettings::set(std::string_view key, Value value, std::string origin) {
  settings_[std::string(option(key).key)] = Setting{std::move(value), std::move(origin)};
}

void JobSettings::set_text(std::string_view key, std::string_view text, const std::string& origin) {
  const ParsedValue parsed = parse_value(option(key), text);
  if (!parsed.ok()) {
    throw InputError(origin + ": " + parsed.problem);
  }
  set(key, parsed.value, origin);
}

const Setting* JobSettings::find(std::string_view key) const {
  const auto it = settings_.find(key);
  return it == settings_.end() ? nullptr : &it->second;
}

JobSettings JobSettings::over(const JobSettings& base) const {
  JobSettings merged = base;
  for (const auto& [key, setting] : settings_) {
    for (const auto& excluded : option(key).excludes) {
      merged.erase(excluded);
    }
  }
  for (const auto& [key, setting] : settings_) {
    merged.settings_[key] = setting;
  }
  return merged;
}

strategy::SettingNames JobSettings::names() const {
  strategy::SettingNames names;
  for (const auto& [key, setting] : settings_) {
    names[key] = setting.origin;
  }
  return names;
}

}  // namespace distsim::options
