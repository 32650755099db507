#include <gtest/gtest.h>

#include <barrier>
#include <string>
#include <thread>
#include <vector>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "core/input_error.hpp"
#include "search/process_group.hpp"
#include "search/strategy_search.hpp"

namespace distsim::search {

namespace {

//! A process group of threads: what MPI's all-reduce and broadcast do between processes, done
//! through shared slots and a barrier, so the search's sharing-out is tested without MPI.
class ThreadGroup {
 public:
  explicit ThreadGroup(int size) : size_(size), barrier_(size), values_(size), texts_(size) {}

  class Member final : public ProcessGroup {
   public:
    Member(ThreadGroup& group, int rank) : group_(group), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return group_.size_; }
    void sum(std::vector<double>& values) const override {
      group_.values_[rank_] = values;
      group_.barrier_.arrive_and_wait();
      for (std::size_t i = 0; i < values.size(); ++i) {
        double total = 0;
        for (const auto& other : group_.values_) total += other[i];
        values[i] = total;
      }
      group_.barrier_.arrive_and_wait();
    }
    void broadcast(std::string& text, int from) const override {
      group_.texts_[rank_] = text;
      group_.barrier_.arrive_and_wait();
      text = group_.texts_[from];
      group_.barrier_.arrive_and_wait();
    }

   private:
    ThreadGroup& group_;
    int rank_;
  };

 private:
  int size_;
  std::barrier<> barrier_;
  std::vector<std::vector<double>> values_;
  std::vector<std::string> texts_;
};

//! GPT-2 345M cut to 4 layers on one or two DGX H100 nodes, global batch 8: a few hundred
//! candidates, enough for several batches and for the bound pruning.
SearchSpace small_space() {
  SearchSpace space;
  space.base.model = catalog::find_model("gpt2-345m");
  space.base.model.num_layers = 4;
  space.base.cluster = catalog::find_cluster("dgx-h100");
  space.base.cluster.num_hosts = 1;
  space.base.strategy.global_batch_size = 8;
  space.node_counts = {1, 2};
  return space;
}

//! The input error each of `size` processes sharing the search ends with ("" for none); one
//! process is the search alone.
std::vector<std::string> failures_in_processes(const SearchSpace& space, const SearchOptions& options, int size) {
  ThreadGroup group(size);
  std::vector<std::string> messages(static_cast<std::size_t>(size));
  std::vector<std::thread> processes;
  for (int rank = 0; rank < size; ++rank) {
    processes.emplace_back([&, rank] {
      const ThreadGroup::Member member(group, rank);
      SearchOptions mine = options;
      if (size > 1) mine.processes = &member;
      try {
        run_search(space, mine);
      } catch (const InputError& error) {
        messages[static_cast<std::size_t>(rank)] = error.what();
      }
    });
  }
  for (auto& process : processes) process.join();
  return messages;
}

TEST(ProcessGroup, ThreeProcessesEndWithTheResultOfOne) {
  const SearchSpace space = small_space();
  SearchOptions options;
  options.keep = 5;
  const SearchResult alone = run_search(space, options);
  ThreadGroup group(3);
  std::vector<SearchResult> shared(3);
  std::vector<std::thread> processes;
  for (int rank = 0; rank < 3; ++rank) {
    processes.emplace_back([&, rank] {
      const ThreadGroup::Member member(group, rank);
      SearchOptions mine = options;
      mine.processes = &member;
      shared[rank] = run_search(space, mine);
    });
  }
  for (auto& process : processes) process.join();
  ASSERT_GT(alone.pruned_by_bound, 0u);
  for (const auto& result : shared) {
    ASSERT_EQ(result.candidates.size(), alone.candidates.size());
    EXPECT_EQ(result.ranking, alone.ranking);
    EXPECT_EQ(result.pareto_front, alone.pareto_front);
    EXPECT_EQ(result.pruned_by_bound, alone.pruned_by_bound);
    for (std::size_t i = 0; i < alone.candidates.size(); ++i) {
      const Candidate& a = alone.candidates[i];
      const Candidate& b = result.candidates[i];
      EXPECT_EQ(a.status, b.status);
      EXPECT_EQ(a.simulated, b.simulated);
      EXPECT_EQ(a.iteration_time_s, b.iteration_time_s);
      EXPECT_EQ(a.samples_per_s, b.samples_per_s);
      EXPECT_EQ(a.mfu, b.mfu);
      EXPECT_EQ(a.bubble_fraction, b.bubble_fraction);
      EXPECT_EQ(a.lower_bound_s, b.lower_bound_s);
    }
  }
}

//! A task limit of 1 fails the first candidate any process simulates; every process must fail
//! with the message of one that failed (here all do), none may wait forever for the others.
TEST(ProcessGroup, AFailureInOneProcessFailsEveryProcessWithItsMessage) {
  const SearchSpace space = small_space();
  SearchOptions options;
  options.simulation.task_limit = 1;
  const std::string alone = failures_in_processes(space, options, 1).front();
  ASSERT_FALSE(alone.empty());
  const std::vector<std::string> messages = failures_in_processes(space, options, 2);
  EXPECT_FALSE(messages[0].empty());
  EXPECT_EQ(messages[0], messages[1]);
  EXPECT_NE(messages[0].find("tasks"), std::string::npos) << messages[0];
}

//! With a memory bandwidth of 1e-12 GB/s, a millibyte a second, every candidate runs past the
//! nanosecond clock (the optimizer step alone reads each parameter's 16 bytes of state, 12.9M
//! parameters: over 1e11 s): each is set aside with the reason, on every process the same, and
//! the search ends saying so instead of ranking wrapped times.
TEST(ProcessGroup, CandidatesThatCannotBeSimulatedAreSetAsideAlikeOnEveryProcess) {
  SearchSpace space = small_space();
  space.base.cluster.gpu.memory_bandwidth_gbps = 1e-12;
  SearchOptions options;
  options.keep = 5;
  const std::string alone = failures_in_processes(space, options, 1).front();
  EXPECT_NE(alone.find("x cannot be simulated: "), std::string::npos) << alone;
  EXPECT_NE(alone.find("range of distsim's nanosecond clock"), std::string::npos) << alone;
  const std::vector<std::string> messages = failures_in_processes(space, options, 2);
  EXPECT_EQ(messages[0], alone);
  EXPECT_EQ(messages[1], alone);
}

}  // namespace

}  // namespace distsim::search
