#include "whatif/step_replay.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "core/input_error.hpp"

namespace distsim::whatif {

namespace {

using Prerequisites = std::vector<std::vector<int>>;

//! The operations of one rank of one step, by role and micro-batch.
class RankOps {
 public:
  RankOps(const MeasuredTrace& trace, const std::vector<int>& ops) : trace_(trace) {
    for (const int op : ops) {
      const MeasuredOp& m = at(op);
      if (!by_role_seq_.emplace(std::pair(m.role, m.seq), op).second) {
        throw InputError(fmt::format("step {}, data-parallel rank {}, stage {}: two {} operations of micro-batch {}",
                                     m.step, m.dp, m.stage, role_info(m.role).name, m.seq));
      }
    }
  }

  const MeasuredOp& at(int op) const { return trace_.ops[static_cast<std::size_t>(op)]; }

  //! The operation of `role` for micro-batch `seq`, or -1.
  int find(OpRole role, int seq) const {
    const auto found = by_role_seq_.find(std::pair(role, seq));
    return found == by_role_seq_.end() ? -1 : found->second;
  }

  //! The operations of any of `roles`, by micro-batch, or by measured start when `by_start`.
  std::vector<int> of(std::initializer_list<OpRole> roles, bool by_start) const {
    std::vector<int> found;
    for (const auto& [key, op] : by_role_seq_) {
      if (std::find(roles.begin(), roles.end(), key.first) != roles.end()) found.push_back(op);
    }
    std::sort(found.begin(), found.end(), [&](int a, int b) {
      const MeasuredOp& x = at(a);
      const MeasuredOp& y = at(b);
      if (by_start) return std::tuple(x.start_s, x.seq, x.role) < std::tuple(y.start_s, y.seq, y.role);
      return std::tuple(x.seq, x.role) < std::tuple(y.seq, y.role);
    });
    return found;
  }

 private:
  const MeasuredTrace& trace_;
  std::map<std::pair<OpRole, int>, int> by_role_seq_;
};

void wait_for(Prerequisites& prerequisites, int op, int prerequisite) {
  if (op >= 0 && prerequisite >= 0) prerequisites[static_cast<std::size_t>(op)].push_back(prerequisite);
}

void chain(Prerequisites& prerequisites, const std::vector<int>& ops) {
  for (std::size_t i = 1; i < ops.size(); ++i) wait_for(prerequisites, ops[i], ops[i - 1]);
}

//! A pipeline transfer type's micro-batches in order; a send waits for its micro-batch's
//! computation, and a receive comes between the computations of the micro-batch before and its own.
void link_transfers(Prerequisites& prerequisites, const RankOps& rank, OpRole transfer, OpRole compute, bool receive) {
  const std::vector<int> ops = rank.of({transfer}, false);
  chain(prerequisites, ops);
  for (const int op : ops) {
    const int seq = rank.at(op).seq;
    if (receive) {
      wait_for(prerequisites, rank.find(compute, seq), op);
      wait_for(prerequisites, op, rank.find(compute, seq - 1));
    } else {
      wait_for(prerequisites, op, rank.find(compute, seq));
    }
  }
}

//! The computation that ended last at or before `at` (measured), or -1.
int last_ended_by(const RankOps& rank, const std::vector<int>& computes, double at) {
  int last = -1;
  for (const int op : computes) {
    if (rank.at(op).end_s() <= at && (last < 0 || rank.at(op).end_s() > rank.at(last).end_s())) last = op;
  }
  return last;
}

//! The step's end in its measured order (Megatron-LM's: gc, the layer norms' and the embedding's
//! gradients, the reduce-scatters, clipping, the optimizer; then any parameter all-gather measured
//! after the last computation, as without --overlap-param-gather). Each waits for the one before
//! and for the last computation that had ended when it started: the last of all, unless it was
//! measured overlapping the backward passes (--overlap-grad-reduce).
void link_step_end(Prerequisites& prerequisites, const RankOps& rank, const std::vector<int>& computes,
                   const std::vector<int>& late_gathers) {
  using enum OpRole;
  std::vector<int> tail = rank.of(
      {gc, layernorm_grads_all_reduce, embedding_grads_all_reduce, grads_reduce_scatter, grad_clip, optimizer}, true);
  tail.insert(tail.end(), late_gathers.begin(), late_gathers.end());
  std::stable_sort(tail.begin(), tail.end(), [&](int a, int b) { return rank.at(a).start_s < rank.at(b).start_s; });
  chain(prerequisites, tail);
  for (const int op : tail) wait_for(prerequisites, op, last_ended_by(rank, computes, rank.at(op).start_s));
}

void link_rank(Prerequisites& prerequisites, const RankOps& rank) {
  using enum OpRole;
  const std::vector<int> computes = rank.of({forward_compute, backward_compute}, true);
  chain(prerequisites, computes);
  link_transfers(prerequisites, rank, forward_send, forward_compute, false);
  link_transfers(prerequisites, rank, forward_recv, forward_compute, true);
  link_transfers(prerequisites, rank, backward_send, backward_compute, false);
  link_transfers(prerequisites, rank, backward_recv, backward_compute, true);
  const auto first_backward =
      std::find_if(computes.begin(), computes.end(), [&](int op) { return rank.at(op).role == backward_compute; });
  if (first_backward - computes.begin() >= 2) {
    wait_for(prerequisites, rank.find(backward_recv, 0), *(first_backward - 2));
    wait_for(prerequisites, rank.find(backward_send, 0), *(first_backward - 2));
  }
  // All-gathers measured after the last computation feed the next step; the others this one's forwards.
  const int last = last_ended_by(rank, computes, std::numeric_limits<double>::infinity());
  std::vector<int> early_gathers;
  std::vector<int> late_gathers;
  for (const int op : rank.of({params_all_gather}, true)) {
    (last >= 0 && rank.at(op).start_s >= rank.at(last).end_s() ? late_gathers : early_gathers).push_back(op);
  }
  chain(prerequisites, early_gathers);
  const auto first_forward =
      std::find_if(computes.begin(), computes.end(), [&](int op) { return rank.at(op).role == forward_compute; });
  if (first_forward != computes.end() && !early_gathers.empty()) {
    wait_for(prerequisites, *first_forward, early_gathers.front());
  }
  link_step_end(prerequisites, rank, computes, late_gathers);
}

//! The members of each synchronized operation's group share a key: (role group, step, and the
//! ranks that meet). A send and its receive meet under the sending stage.
using GroupKey = std::tuple<int, int, int, int, int>;  // sync kind or direction, step, dp, stage, seq

std::optional<GroupKey> group_key(const MeasuredOp& op) {
  using enum OpRole;
  const auto kind = static_cast<int>(op.role);
  switch (role_info(op.role).sync) {
    case OpSync::none: return std::nullopt;
    case OpSync::pipeline_peer: {
      const bool forward = op.role == forward_send || op.role == forward_recv;
      const int sender = op.role == forward_recv ? op.stage - 1 : op.role == backward_recv ? op.stage + 1 : op.stage;
      return GroupKey{forward ? -1 : -2, op.step, op.dp, sender, op.seq};
    }
    case OpSync::data_parallel: return GroupKey{kind, op.step, -1, op.stage, op.seq};
    case OpSync::embedding_stages: return GroupKey{kind, op.step, op.dp, -1, op.seq};
    case OpSync::every_rank: return GroupKey{kind, op.step, -1, -1, op.seq};
  }
  return std::nullopt;
}

}  // namespace

StepReplay::StepReplay(const MeasuredTrace& trace) {
  const std::size_t n = trace.ops.size();
  for (const auto& op : trace.ops) steps_.push_back(op.step);
  std::sort(steps_.begin(), steps_.end());
  steps_.erase(std::unique(steps_.begin(), steps_.end()), steps_.end());
  std::map<std::tuple<int, int, int>, std::vector<int>> ranks;
  std::map<GroupKey, int> groups;
  group_of_op_.assign(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    const MeasuredOp& op = trace.ops[i];
    step_of_op_.push_back(static_cast<int>(std::lower_bound(steps_.begin(), steps_.end(), op.step) - steps_.begin()));
    ranks[{op.step, op.dp, op.stage}].push_back(static_cast<int>(i));
    if (const auto key = group_key(op)) {
      const auto [at, added] = groups.emplace(*key, static_cast<int>(group_members_.size()));
      if (added) group_members_.emplace_back();
      group_members_[static_cast<std::size_t>(at->second)].push_back(static_cast<int>(i));
      group_of_op_[i] = at->second;
    }
  }
  prerequisites_.assign(n, {});
  for (const auto& [rank, ops] : ranks) link_rank(prerequisites_, RankOps(trace, ops));
  order_events();
}

void StepReplay::order_events() {
  const std::size_t n = prerequisites_.size();
  const std::size_t groups = group_members_.size();
  // Events: start(i) = i, end(i) = n + i, ready(g) = 2n + g.
  const std::size_t total = 2 * n + groups;
  std::vector<std::vector<std::size_t>> next(total);
  std::vector<int> waiting(total, 0);
  const auto edge = [&](std::size_t from, std::size_t to) {
    next[from].push_back(to);
    ++waiting[to];
  };
  for (std::size_t i = 0; i < n; ++i) {
    for (const int prerequisite : prerequisites_[i]) edge(n + static_cast<std::size_t>(prerequisite), i);
    const int group = group_of_op_[i];
    if (group < 0) {
      edge(i, n + i);
    } else {
      edge(i, 2 * n + static_cast<std::size_t>(group));
      edge(2 * n + static_cast<std::size_t>(group), n + i);
    }
  }
  std::deque<std::size_t> ready;
  for (std::size_t e = 0; e < total; ++e) {
    if (waiting[e] == 0) ready.push_back(e);
  }
  while (!ready.empty()) {
    const std::size_t e = ready.front();
    ready.pop_front();
    const EventKind kind = e < n ? EventKind::start : e < 2 * n ? EventKind::end : EventKind::group_ready;
    order_.push_back({kind, static_cast<int>(kind == EventKind::start ? e
                                             : kind == EventKind::end ? e - n
                                                                      : e - 2 * n)});
    for (const std::size_t to : next[e]) {
      if (--waiting[to] == 0) ready.push_back(to);
    }
  }
  if (order_.size() != total) {
    throw InputError("the operations' dependencies form a cycle: the trace's order of operations is not one a "
                     "training step can run");
  }
}

std::vector<double> StepReplay::step_times(std::span<const double> durations) const {
  const std::size_t n = prerequisites_.size();
  std::vector<double> start(n, 0.0);
  std::vector<double> end(n, 0.0);
  std::vector<double> group_ready(group_members_.size(), 0.0);
  for (const Event& event : order_) {
    const auto i = static_cast<std::size_t>(event.index);
    switch (event.kind) {
      case EventKind::start:
        for (const int prerequisite : prerequisites_[i])
          start[i] = std::max(start[i], end[static_cast<std::size_t>(prerequisite)]);
        break;
      case EventKind::group_ready:
        for (const int member : group_members_[i])
          group_ready[i] = std::max(group_ready[i], start[static_cast<std::size_t>(member)]);
        break;
      case EventKind::end: {
        const int group = group_of_op_[i];
        end[i] = (group < 0 ? start[i] : group_ready[static_cast<std::size_t>(group)]) + durations[i];
        break;
      }
    }
  }
  std::vector<double> times(steps_.size(), 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    auto& time = times[static_cast<std::size_t>(step_of_op_[i])];
    time = std::max(time, end[i]);
  }
  return times;
}

}  // namespace distsim::whatif
