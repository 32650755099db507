#pragma once

#include <array>
#include <streambuf>

namespace distsim::cli {

//! A stream buffer that writes to an open file descriptor, which it does not own. Output files are
//! written through descriptors opened with flags that std::ofstream cannot ask for (O_EXCL,
//! O_NOFOLLOW). After a failed write it discards everything and keeps the errno in error().
class FdOutputBuffer : public std::streambuf {
 public:
  explicit FdOutputBuffer(int descriptor) : descriptor_(descriptor) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  FdOutputBuffer(const FdOutputBuffer&) = delete;
  FdOutputBuffer& operator=(const FdOutputBuffer&) = delete;

  //! The errno of the first failed write; 0 when every write succeeded.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type character) override;
  int sync() override;

 private:
  //! Writes out the buffered bytes; false once a write has failed.
  bool drain();

  int descriptor_;
  int error_ = 0;
  std::array<char, 1 << 16> buffer_{};
};

}  // namespace distsim::cli
