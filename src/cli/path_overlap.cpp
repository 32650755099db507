#include "cli/path_overlap.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>

#include <sys/stat.h>

#include "core/input_error.hpp"

namespace distsim::cli {

namespace {

//! One value of one flag on the command line.
struct FlagValue {
  std::string flag;  //!< "--trace", or a positional argument's name
  std::string value;
};

//! Which file a path is: its device and inode when it names a regular file, links followed.
std::optional<std::pair<dev_t, ino_t>> regular_file_identity(const std::string& path) {
  struct stat status {};
  if (path.empty() || ::stat(path.c_str(), &status) != 0 || !S_ISREG(status.st_mode)) return std::nullopt;
  return std::pair{status.st_dev, status.st_ino};
}

//! Where a path that may not exist yet would be: absolute, the links of the part that exists
//! resolved.
std::filesystem::path would_be_at(const std::string& path) {
  std::error_code error;
  const auto resolved = std::filesystem::weakly_canonical(std::filesystem::absolute(path, error), error);
  return error ? std::filesystem::path(path).lexically_normal() : resolved;
}

std::string flag_name(const CLI::Option& option) {
  if (!option.get_lnames().empty()) return "--" + option.get_lnames().front();
  return "the " + option.get_name() + " argument";
}

//! Every value given on the command line to `command` and the commands above it.
std::vector<FlagValue> given_values(const CLI::App& command) {
  std::vector<FlagValue> values;
  for (const CLI::App* app = &command; app != nullptr; app = app->get_parent()) {
    for (const CLI::Option* option : app->get_options()) {
      if (option->count() == 0) continue;
      for (const std::string& value : option->results()) values.push_back({flag_name(*option), value});
    }
  }
  return values;
}

void refuse_same_file(const FlagValue& output, const FlagValue& other, bool other_is_output) {
  if (other_is_output) {
    throw InputError(output.flag + " '" + output.value + "' and " + other.flag + " '" + other.value +
                     "' name the same file; one would replace the other: give each its own path");
  }
  throw InputError(output.flag + " '" + output.value + "' names the same file as " + other.flag + " '" + other.value +
                   "', which this run reads; writing it would destroy that input: choose another path for " +
                   output.flag);
}

}  // namespace

void refuse_outputs_onto_inputs(const CLI::App& command, const std::vector<std::string>& output_flags) {
  const std::vector<FlagValue> values = given_values(command);
  const auto is_output = [&](const FlagValue& value) {
    return std::find(output_flags.begin(), output_flags.end(), value.flag) != output_flags.end();
  };
  for (std::size_t i = 0; i < values.size(); ++i) {
    const FlagValue& output = values[i];
    if (!is_output(output)) continue;
    const auto identity = regular_file_identity(output.value);
    struct stat status {};
    const bool exists = ::stat(output.value.c_str(), &status) == 0;
    for (std::size_t j = 0; j < values.size(); ++j) {
      const FlagValue& other = values[j];
      if (j == i || (is_output(other) && j < i)) continue;
      if (identity && regular_file_identity(other.value) == identity) refuse_same_file(output, other, is_output(other));
      if (!exists && is_output(other) && would_be_at(other.value) == would_be_at(output.value)) {
        refuse_same_file(output, other, true);
      }
    }
  }
}

}  // namespace distsim::cli
