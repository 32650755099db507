#include "search/pareto_front.hpp"

#include <algorithm>
#include <numeric>

namespace distsim::search {

std::vector<std::size_t> pareto_front(const std::vector<ParetoPoint>& points) {
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (points[a].second != points[b].second) return points[a].second < points[b].second;
    return points[a].first < points[b].first;
  });
  // Sweeping by increasing `second`, a point is on the front when it beats the best `first`
  // seen so far (or ties the point just kept, for duplicates).
  std::vector<std::size_t> front;
  for (const std::size_t index : order) {
    const ParetoPoint& point = points[index];
    if (front.empty() || point.first < points[front.back()].first) {
      front.push_back(index);
    } else if (point.first == points[front.back()].first && point.second == points[front.back()].second) {
      front.push_back(index);
    }
  }
  return front;
}

}  // namespace distsim::search
