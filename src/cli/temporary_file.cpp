#include "cli/temporary_file.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

namespace distsim::cli {

namespace {

// The paths the signal handler removes. A handler may only call async-signal-safe functions and
// touch lock-free data, so the paths live in fixed slots, each published by a sig_atomic_t flag.
constexpr size_t kCleanupSlots = 8;
std::array<std::array<char, PATH_MAX>, kCleanupSlots> cleanup_paths{};
std::array<volatile std::sig_atomic_t, kCleanupSlots> cleanup_used{};
constexpr std::array<int, 3> kCleanupSignals = {SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_temporaries_and_reraise(int signal_number) {
  for (size_t slot = 0; slot < kCleanupSlots; ++slot) {
    if (cleanup_used[slot]) {
      ::unlink(cleanup_paths[slot].data());
    }
  }
  // SA_RESETHAND has restored the default action; the signal stays blocked until the handler
  // returns, and then ends the process with the status the caller expects from it.
  ::raise(signal_number);
}

//! Installs the handler once, for each signal not ignored: a run started with SIGINT ignored
//! (in the background of a script, under nohup) keeps ignoring it.
void install_cleanup_handler() {
  static bool installed = false;
  if (installed) {
    return;
  }
  installed = true;
  for (const int signal_number : kCleanupSignals) {
    struct sigaction current {};
    if (::sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) {
      continue;
    }
    struct sigaction action {};
    action.sa_handler = remove_temporaries_and_reraise;
    action.sa_flags = SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal_number, &action, nullptr);
  }
}

//! A free slot holding `path`, or -1 when none is free or the path is too long to store.
int register_for_cleanup(const std::string& path) {
  install_cleanup_handler();
  if (path.size() >= PATH_MAX) {
    return -1;
  }
  for (size_t slot = 0; slot < kCleanupSlots; ++slot) {
    if (!cleanup_used[slot]) {
      std::memcpy(cleanup_paths[slot].data(), path.c_str(), path.size() + 1);
      std::atomic_signal_fence(std::memory_order_seq_cst);
      cleanup_used[slot] = 1;
      return static_cast<int>(slot);
    }
  }
  return -1;
}

//! Holds the cleanup signals back while it lives: a temporary file is created and its path
//! registered for the handler in one step, so that a signal between the two cannot leave the file
//! behind. A signal that came meanwhile is delivered when the mask is restored.
class CleanupSignalsHeld {
 public:
  CleanupSignalsHeld() {
    sigset_t held;
    sigemptyset(&held);
    for (const int signal_number : kCleanupSignals) sigaddset(&held, signal_number);
    ::pthread_sigmask(SIG_BLOCK, &held, &previous_);
  }
  ~CleanupSignalsHeld() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  CleanupSignalsHeld(const CleanupSignalsHeld&) = delete;
  CleanupSignalsHeld& operator=(const CleanupSignalsHeld&) = delete;

 private:
  sigset_t previous_{};
};

void forget_cleanup(int slot) {
  if (slot >= 0) {
    cleanup_used[static_cast<size_t>(slot)] = 0;
  }
}

//! ".NAME.XXXXXX.tmp": hidden, and named after the file it will become; NAME cut short where
//! the whole would pass the longest file name a directory holds (255 bytes on Linux file systems),
//! so that any name the target may have, its temporary may too.
std::string temporary_name(const std::string& target_name, std::mt19937_64& random) {
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  constexpr std::size_t kLongestName = NAME_MAX;
  constexpr std::size_t kAdded = std::char_traits<char>::length("..XXXXXX.tmp");
  std::string name(".");
  name.append(target_name, 0, std::min(target_name.size(), kLongestName - kAdded)).append(".");
  for (int letter = 0; letter < 6; ++letter) {
    name.push_back(kLetters[random() % (sizeof kLetters - 1)]);
  }
  return name.append(".tmp");
}

}  // namespace

TemporaryFile::TemporaryFile(const std::string& target, mode_t mode) : target_(target) {
  const std::filesystem::path target_path(target);
  std::random_device seed;
  std::mt19937_64 random((static_cast<std::uint64_t>(seed()) << 32) ^ seed() ^ static_cast<std::uint64_t>(::getpid()));
  constexpr int kAttempts = 100;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    path_ = (target_path.parent_path() / temporary_name(target_path.filename().string(), random)).string();
    install_cleanup_handler();
    const CleanupSignalsHeld held;
    descriptor_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (descriptor_ >= 0) {
      cleanup_slot_ = register_for_cleanup(path_);
      return;
    }
    if (errno != EEXIST) {
      throw std::system_error(errno, std::generic_category(), path_);
    }
  }
  throw std::system_error(EEXIST, std::generic_category(), path_);
}

TemporaryFile::~TemporaryFile() {
  if (descriptor_ >= 0) {
    ::close(descriptor_);
  }
  if (!committed_) {
    ::unlink(path_.c_str());
  }
  forget_cleanup(cleanup_slot_);
}

void TemporaryFile::set_mode(mode_t mode) const {
  if (::fchmod(descriptor_, mode) != 0) {
    throw std::system_error(errno, std::generic_category(), path_);
  }
}

void TemporaryFile::commit() {
  const int descriptor = descriptor_;
  descriptor_ = -1;
  if (::close(descriptor) != 0) {
    throw std::system_error(errno, std::generic_category(), path_);
  }
  if (::rename(path_.c_str(), target_.c_str()) != 0) {
    throw std::system_error(errno, std::generic_category(), target_);
  }
  committed_ = true;
}

}  // namespace distsim::cli
