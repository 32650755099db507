#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace distsim {

//! The machine's hardware threads, at least 1: the default thread count of whatever runs in parallel.
inline int hardware_threads() { return std::max(static_cast<int>(std::thread::hardware_concurrency()), 1); }

//! Runs `work(i)` for every i in [0, count) on up to `threads` threads. When work fails, no item
//! after it starts, and once all threads stop the exception of the first item that failed is
//! rethrown: the one a loop on one thread would throw (items start in index order, so every item
//! before a failed one has started and runs to its end).
template <typename Work>
void parallel_for(std::size_t count, int threads, Work work) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::size_t failed_item = count;
  std::mutex failure_mutex;
  auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        work(i);
      } catch (...) {
        const std::lock_guard lock(failure_mutex);
        if (i < failed_item) {
          failed_item = i;
          failure = std::current_exception();
        }
        next = count;
      }
    }
  };
  // The calling thread works too, so `count` items need at most count - 1 more threads.
  const auto extra = std::min(static_cast<std::size_t>(std::max(threads, 1)) - 1, count > 0 ? count - 1 : 0);
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < extra; ++t) {
    pool.emplace_back(worker);
  }
  worker();
  for (auto& thread : pool) {
    thread.join();
  }
  if (failure) {
    std::rethrow_exception(failure);
  }
}

}  // namespace distsim
