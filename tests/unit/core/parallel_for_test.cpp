#include "core/parallel_for.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace distsim {

TEST(ParallelFor, RunsEveryItemOnce) {
  std::vector<std::atomic<int>> runs(1000);
  parallel_for(runs.size(), 3, [&](std::size_t i) { ++runs[i]; });
  for (std::size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << i;
}

TEST(ParallelFor, RethrowsTheFirstFailingItemsError) {
  // Items 10, 500 and 900 fail, item 10 only after the other threads have long reached 500: the
  // error is still item 10's, the one a loop on one thread would throw.
  for (int attempt = 0; attempt < 5; ++attempt) {
    try {
      parallel_for(1000, 4, [](std::size_t i) {
        if (i == 10) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (i == 10 || i == 500 || i == 900) throw std::runtime_error(std::to_string(i));
      });
      FAIL() << "no error";
    } catch (const std::runtime_error& error) {
      EXPECT_EQ(std::string(error.what()), "10");
    }
  }
}

TEST(ParallelFor, RunsASingleItemOnTheCallingThread) {
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id ran_on;
  parallel_for(1, 8, [&](std::size_t) { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, caller);
}

}  // namespace distsim
