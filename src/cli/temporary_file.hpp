#pragma once

#include <string>

#include <sys/types.h>

namespace distsim::cli {

//! A new file with a unique name beside a target path, which replaces the target when committed
//! and is removed otherwise: when destroyed uncommitted, and when the process is stopped by
//! SIGINT, SIGTERM or SIGHUP while the file exists (a handler removes it, then lets the signal
//! end the process as it would have).
class TemporaryFile {
 public:
  //! Creates ".NAME.XXXXXX.tmp" in the directory of `target` with O_EXCL and O_NOFOLLOW, so it is
  //! never a file or link that was already there. `mode` is the new file's permission bits; the
  //! umask applies. Throws std::system_error with the errno when it cannot be created.
  TemporaryFile(const std::string& target, mode_t mode);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  int descriptor() const { return descriptor_; }
  //! Sets the permission bits exactly, the umask aside (to keep a replaced file's mode).
  void set_mode(mode_t mode) const;
  //! Closes the file and renames it over the target. Throws std::system_error on failure.
  void commit();

 private:
  std::string target_;
  std::string path_;
  int descriptor_ = -1;
  int cleanup_slot_ = -1;
  bool committed_ = false;
};

}  // namespace distsim::cli
