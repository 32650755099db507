#include "cli/file_output.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
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

//! A temporary file beside `target` holding what `write` wrote, not yet renamed over it.
std::unique_ptr<TemporaryFile> written_temporary(const std::string& flag, const std::string& path,
                                                 const std::string& target, const std::optional<mode_t>& kept_mode,
                                                 const std::function<void(std::ostream&)>& write) {
  constexpr mode_t kNewFileMode = 0666;  // as std::ofstream creates files: the umask decides
  std::unique_ptr<TemporaryFile> temporary;
  try {
    temporary = std::make_unique<TemporaryFile>(target, kNewFileMode);
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
  return temporary;
}

void commit(const std::string& flag, const std::string& path, TemporaryFile& temporary) {
  try {
    temporary.commit();
  } catch (const std::system_error& e) {
    throw InputError(flag + ": failed while writing '" + path + "': " + e.code().message());
  }
}

//! Where a regular file may be written at `path`: the target (links followed), and the mode a
//! replaced file keeps. `special` is set for a FIFO or device, which is written in place.
struct Destination {
  std::string target;
  std::optional<mode_t> kept_mode;
  bool special = false;
};

Destination destination(const std::string& flag, const std::string& path) {
  Destination result{followed_links(flag, path), std::nullopt, false};
  struct stat status {};
  if (::stat(result.target.c_str(), &status) != 0) {
    if (errno != ENOENT) {
      throw InputError(flag + ": cannot write '" + path + "': " + std::strerror(errno));
    }
    return result;
  }
  if (S_ISDIR(status.st_mode)) {
    throw InputError(flag + ": '" + path + "' is a directory; expected the path of a file to write");
  }
  if (!S_ISREG(status.st_mode)) {
    result.special = true;
    return result;
  }
  // A file that no one may write was protected on purpose: not even root replaces it silently.
  if (::access(result.target.c_str(), W_OK) != 0 || (status.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) {
    throw InputError(flag + ": '" + path + "' is read-only; make it writable or choose another path");
  }
  result.kept_mode = status.st_mode & 07777;
  return result;
}

}  // namespace

void write_output_file(const std::string& flag, const std::string& path,
                       const std::function<void(std::ostream&)>& write) {
  const Destination to = destination(flag, path);
  if (to.special) {
    write_directly(flag, path, to.target, write);
    return;
  }
  commit(flag, path, *written_temporary(flag, path, to.target, to.kept_mode, write));
}

void write_output_files(const std::string& flag, const std::vector<OutputFile>& files) {
  std::vector<std::unique_ptr<TemporaryFile>> written;
  written.reserve(files.size());
  for (const OutputFile& file : files) {
    const Destination to = destination(flag, file.path);
    if (to.special) {
      throw InputError(flag + ": '" + file.path + "' is not a regular file; the files of " + flag +
                       " are written whole or not at all, so each must be a regular file or new");
    }
    written.push_back(written_temporary(flag, file.path, to.target, to.kept_mode, file.write));
  }
  for (size_t f = 0; f < files.size(); ++f) commit(flag, files[f].path, *written[f]);
}

}  // namespace distsim::cli
