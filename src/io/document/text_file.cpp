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
#include <zlib.h>

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

namespace {

[[noreturn]] void too_large(const std::string& path, std::string_view what, std::size_t max_bytes,
                            std::string_view limit) {
  throw InputError(std::string(what) + " '" + path + "' is larger than " + std::to_string(max_bytes >> 20) + " MiB, " +
                   std::string(limit) + "; is it the file you meant?");
}

std::string gunzipped(const std::string& path, std::string_view what, const std::string& bytes, std::size_t max_bytes,
                      std::string_view limit) {
  z_stream stream{};
  constexpr int kGzipWindow = 16 + MAX_WBITS;  // a gzip header and trailer around the deflate stream
  if (inflateInit2(&stream, kGzipWindow) != Z_OK) throw InputError("cannot decompress " + std::string(what));
  const std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&stream, &inflateEnd);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  std::string text;
  char buffer[65536];
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    status = inflate(&stream, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END) {
      const std::string reason = stream.msg != nullptr   ? stream.msg
                                 : status == Z_BUF_ERROR ? "it ends early"
                                                         : "damaged";
      throw InputError(std::string(what) + " '" + path + "' is not a whole gzip stream: " + reason);
    }
    const std::size_t count = sizeof buffer - stream.avail_out;
    if (count > max_bytes - text.size()) too_large(path, what, max_bytes, limit);
    text.append(buffer, count);
  }
  return text;
}

}  // namespace

std::string read_possibly_gzipped_file(const std::string& path, std::string_view what, std::size_t max_bytes,
                                       std::string_view limit) {
  std::string bytes = read_text_file(path, what, max_bytes, limit);
  constexpr unsigned char kGzipMagic[] = {0x1f, 0x8b};
  const bool gzip = bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == kGzipMagic[0] &&
                    static_cast<unsigned char>(bytes[1]) == kGzipMagic[1];
  return gzip ? gunzipped(path, what, bytes, max_bytes, limit) : bytes;
}

}  // namespace distsim::io
