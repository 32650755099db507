#include "cli/fd_output_buffer.hpp"

#include <cerrno>

#include <unistd.h>

namespace distsim::cli {

FdOutputBuffer::int_type FdOutputBuffer::overflow(int_type character) {
  if (!drain()) {
    return traits_type::eof();
  }
  if (!traits_type::eq_int_type(character, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(character);
    pbump(1);
  }
  return traits_type::not_eof(character);
}

int FdOutputBuffer::sync() { return drain() ? 0 : -1; }

bool FdOutputBuffer::drain() {
  const char* next = pbase();
  while (error_ == 0 && next < pptr()) {
    const ssize_t written = ::write(descriptor_, next, static_cast<size_t>(pptr() - next));
    if (written >= 0) {
      next += written;
    } else if (errno != EINTR) {
      error_ = errno;
    }
  }
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  return error_ == 0;
}

}  // namespace distsim::cli
