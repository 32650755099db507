#include "io/document/text_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>

#include <unistd.h>

#include "core/input_error.hpp"
#include "core/number_text.hpp"

namespace distsim::io {

namespace {

[[noreturn]] void cannot_open(const std::string& path, std::string_view what, int error) {
  throw InputError("cannot open " + std::string(what) + " '" + path + "': " + std::strerror(error));
}

}  // namespace

// std::fopen rather than std::ifstream: POSIX guarantees that fopen sets errno, so the message
// can say why ("No such file or directory", "Permission denied").
std::size_t largest_parsed_file(std::size_t most) {
  if (const char* set = std::getenv("DISTSIM_MAX_INPUT_MIB"); set != nullptr) {
    const std::optional<double> mib = parse_finite_number(set);
    if (!mib || *mib <= 0 || *mib > static_cast<double>(std::numeric_limits<std::size_t>::max() >> 21)) {
      throw InputError("DISTSIM_MAX_INPUT_MIB: expected a positive number of MiB, got '" + std::string(set) + "'");
    }
    return static_cast<std::size_t>(*mib * (1 << 20));
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return most;
  constexpr std::size_t kShareOfMemory = 16;
  return std::min(most, static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size) / kShareOfMemory);
}

std::string read_text_file(const std::string& path, std::string_view what, std::size_t max_bytes,
                           std::string_view limit) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    cannot_open(path, what, EISDIR);
  }
  errno = 0;
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    cannot_open(path, what, errno != 0 ? errno : EIO);
  }
  std::string text;
  char buffer[65536];
  std::size_t count = 0;
  while ((count = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) {
    if (count > max_bytes - text.size()) {
      throw InputError(std::string(what) + " '" + path + "' is larger than " + std::to_string(max_bytes >> 20) +
                       " MiB, " + std::string(limit) + "; is it the file you meant?");
    }
    text.append(buffer, count);
  }
  if (std::ferror(file.get()) != 0) {
    cannot_open(path, what, errno != 0 ? errno : EIO);
  }
  return text;
}

}  // namespace distsim::io
