#include "io/document/text_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "core/input_error.hpp"

namespace distsim::io {

namespace {

[[noreturn]] void cannot_open(const std::string& path, std::string_view what, int error) {
  throw InputError("cannot open " + std::string(what) + " '" + path + "': " + std::strerror(error));
}

}  // namespace

// std::fopen rather than std::ifstream: POSIX guarantees that fopen sets errno, so the message
// can say why ("No such file or directory", "Permission denied").
std::string read_text_file(const std::string& path, std::string_view what, std::size_t max_bytes) {
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
                       " MiB, the most distsim reads for one; is it the file you meant?");
    }
    text.append(buffer, count);
  }
  if (std::ferror(file.get()) != 0) {
    cannot_open(path, what, errno != 0 ? errno : EIO);
  }
  return text;
}

}  // namespace distsim::io
