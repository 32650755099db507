// Runs a harness over files without libFuzzer: each argument is a file or a folder of files (in
// name order), each file one input. A normal build runs every harness this way over its seeds and
// its regression inputs (tests/fuzz/regressions/<harness>/), so a fixed finding stays fixed; an
// input that still crashes or throws anything but InputError ends the process with an error.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::filesystem::path> inputs_in(const std::filesystem::path& argument) {
  if (!std::filesystem::is_directory(argument)) {
    return {argument};
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(argument)) {
    if (entry.is_regular_file()) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    for (const auto& path : inputs_in(argv[i])) {
      std::ifstream in(path, std::ios::binary);
      if (!in) {
        std::cerr << "cannot read " << path << "\n";
        return 1;
      }
      const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      std::cerr << "input " << path.string() << "\n";
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++count;
    }
  }
  std::cout << count << " inputs ran\n";
  return count > 0 ? 0 : 1;
}
