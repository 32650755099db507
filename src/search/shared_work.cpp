#include "search/shared_work.hpp"

namespace distsim::search {

std::string set_aside_text(const std::vector<std::size_t>& mine,
                           const std::vector<std::optional<std::string>>& reasons) {
  std::string text;
  for (const std::size_t n : mine) {
    if (!reasons[n]) continue;
    text += std::to_string(n) + '\0' + *reasons[n] + '\0';
  }
  return text;
}

}  // namespace distsim::search
