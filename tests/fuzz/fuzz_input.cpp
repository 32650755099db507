#include "fuzz_input.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace distsim::fuzz {

namespace {

//! A folder of its own for each process, so that fuzzers run side by side do not share files.
//! It is never destroyed, so the exit handler that removes it can still name it.
const std::filesystem::path& scratch_folder() {
  static const auto* const folder = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "distsim-fuzz-XXXXXX").string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (mkdtemp(buffer.data()) == nullptr) {
      throw std::runtime_error("cannot create a scratch folder from " + pattern);
    }
    return new std::filesystem::path(buffer.data());
  }();
  static const bool removed_at_exit = std::atexit([] {
                                        std::error_code ignored;
                                        std::filesystem::remove_all(scratch_folder(), ignored);
                                      }) == 0;
  (void)removed_at_exit;
  return *folder;
}

bool looks_like_json(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (text[first] == '{' || text[first] == '[');
}

}  // namespace

std::string write_input(std::string_view text, const std::string& stem) {
  const bool has_extension = std::filesystem::path(stem).has_extension();
  const std::string name = has_extension ? stem : stem + (looks_like_json(text) ? ".json" : ".yaml");
  const std::filesystem::path path = scratch_folder() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) {
    throw std::runtime_error("cannot write " + path.string());
  }
  return path.string();
}

}  // namespace distsim::fuzz
