#include "cli/file_output.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/fd_output_buffer.hpp"
#include "cli/temporary_file.hpp"
#include "core/input_error.hpp"

namespace distsim::cli {

namespace {

// As Linux's limit on symbolic links followed in one path lookup.
constexpr int kMaxLinksFollowed = 40;

//! Where `path` leads: each symbolic link replaced by what it points to, until a path that is
//! not a link (or does not exist yet, for a link to a file still to be created).
std::string followed_links(const std::string& flag, const std::string& path) {
  std::filesystem::path current(path);
  for (int followed = 0; followed <= kMaxLinksFollowed; ++followed) {
    std::error_code error;
    const auto status = std::filesystem::symlink_status(current, error);
    if (status.type() != std::filesystem::file_type::symlink) {
      return current.string();
    }
    const std::filesystem::path points_to = std::filesystem::read_symlink(current, error);
    if (error) {
      throw InputError(flag + ": cannot write '" + path + "': " + error.message());
    }
    current = points_to.is_absolute() ? points_to : current.parent_path() / points_to;
  }
  throw InputError(flag + ": cannot write '" + path + "': " + std::strerror(ELOOP));
}

//! Runs `write` into the stream over `descriptor`; InputError when a write failed.
void write_through(int descriptor, const std::string& flag, const std::string& path,
                   const std::function<void(std::ostream&)>& write) {
  FdOutputBuffer buffer(descriptor);
  std::ostream out(&buffer);
  write(out);
  out.flush();
  if (buffer.error() != 0) {
    throw InputError(flag + ": failed while writing '" + path + "': " + std::strerror(buffer.error()));
  }
}

//! FIFOs and devices: a rename would put a regular file in their place.
void write_directly(const std::string& flag, const std::string& path, const std::string& target,
                    const std::function<void(std::ostream&)>& write) {
  const int descriptor = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (descriptor < 0) {
    throw InputError(flag + ": cannot write '" + path + "': " + std::strerror(errno));
  }
  try {
    write_through(descriptor, flag, path, write);
  } catch (...) {
    ::close(descriptor);
    throw;
  }
  ::close(descriptor);
}

void write_replacing(const std::string& flag, const std::string& path, const std::string& target,
                     const std::optional<mode_t>& kept_mode, const std::function<void(std::ostream&)>& write) {
  constexpr mode_t kNewFileMode = 0666;  // as std::ofstream creates files: the umask decides
  std::optional<TemporaryFile> temporary;
  try {
    temporary.emplace(target, kNewFileMode);
    if (kept_mode) {
      temporary->set_mode(*kept_mode);
    }
  } catch (const std::system_error& e) {
    const int error = e.code().value();
    if (error == ENOENT || error == EACCES || error == EROFS || error == ENOTDIR) {
      throw InputError(flag + ": cannot write '" + path + "': the directory does not exist or is not writable");
    }
    throw InputError(flag + ": cannot write '" + path + "': " + e.code().message());
  }
  write_through(temporary->descriptor(), flag, path, write);
  try {
    temporary->commit();
  } catch (const std::system_error& e) {
    throw InputError(flag + ": failed while writing '" + path + "': " + e.code().message());
  }
}

}  // namespace

void write_output_file(const std::string& flag, const std::string& path,
                       const std::function<void(std::ostream&)>& write) {
  const std::string target = followed_links(flag, path);
  struct stat status {};
  if (::stat(target.c_str(), &status) != 0) {
    if (errno != ENOENT) {
      throw InputError(flag + ": cannot write '" + path + "': " + std::strerror(errno));
    }
    write_replacing(flag, path, target, std::nullopt, write);
    return;
  }
  if (S_ISDIR(status.st_mode)) {
    throw InputError(flag + ": '" + path + "' is a directory; expected the path of a file to write");
  }
  if (!S_ISREG(status.st_mode)) {
    write_directly(flag, path, target, write);
    return;
  }
  // A file that no one may write was protected on purpose: not even root replaces it silently.
  if (::access(target.c_str(), W_OK) != 0 || (status.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) {
    throw InputError(flag + ": '" + path + "' is read-only; make it writable or choose another path");
  }
  write_replacing(flag, path, target, status.st_mode & 07777, write);
}

}  // namespace distsim::cli
