#include "search/work_shares.hpp"

#include <algorithm>
#include <numeric>

namespace distsim::search {

std::vector<std::vector<std::size_t>> balanced_shares(const std::vector<std::int64_t>& costs, std::size_t processes) {
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  std::vector<std::vector<std::size_t>> shares(std::max<std::size_t>(processes, 1));
  std::vector<std::int64_t> load(shares.size(), 0);
  for (const std::size_t item : order) {
    const auto least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    shares[least].push_back(item);
    load[least] += costs[item];
  }
  return shares;
}

}  // namespace distsim::search
