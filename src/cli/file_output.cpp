#include "cli/file_output.hpp"

#include <filesystem>
#include <fstream>

#include "core/input_error.hpp"

namespace distsim::cli {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary);
    if (!out) {
      throw InputError("cannot write '" + path + "': the directory does not exist or is not writable");
    }
    try {
      write(out);
    } catch (...) {
      out.close();
      std::filesystem::remove(temporary);
      throw;
    }
    if (!out.flush()) {
      std::filesystem::remove(temporary);
      throw InputError("failed while writing '" + path + "'");
    }
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace distsim::cli
