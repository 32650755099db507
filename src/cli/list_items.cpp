#include "cli/list_items.hpp"

#include "core/input_error.hpp"

namespace distsim::cli {

std::vector<std::string> list_items(const std::string& flag, const std::vector<std::string>& values) {
  std::vector<std::string> items;
  for (const std::string& value : values) {
    std::size_t begin = 0;
    while (true) {
      const std::size_t comma = value.find(',', begin);
      const std::string item = value.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
      if (item.empty()) {
        throw InputError(flag + " '" + value + "': an empty item" +
                         (value.empty() ? "" : " between or after its commas") +
                         "; expected values separated by single commas, e.g. 1,2,4");
      }
      items.push_back(item);
      if (comma == std::string::npos) break;
      begin = comma + 1;
    }
  }
  return items;
}

}  // namespace distsim::cli
