#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/input_error.hpp"
#include "core/parallel_for.hpp"
#include "search/process_group.hpp"
#include "search/work_shares.hpp"

namespace distsim::search {

//! The reasons some items of one process's share were set aside, as one text to broadcast: each
//! item's index and reason, each ended by a NUL (a reason may hold line breaks).
std::string set_aside_text(const std::vector<std::size_t>& mine,
                           const std::vector<std::optional<std::string>>& reasons);

template <typename SetAside>
void read_set_aside_text(const std::string& text, SetAside set_aside) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t index_end = text.find('\0', at);
    const std::size_t reason_end = text.find('\0', index_end + 1);
    set_aside(static_cast<std::size_t>(std::stoull(text.substr(at, index_end - at))),
              text.substr(index_end + 1, reason_end - index_end - 1));
    at = reason_end + 1;
  }
}

//! Runs `work(n)` for every n in [0, costs.size()) that is this process's share (balanced_shares
//! of the items' `costs`, largest first), on `threads` threads, over the processes of `group` (none: this one), and
//! gives every process every result: `write(n, out)` writes n's `width` numbers after the work, `read(n, in)` takes
//! them back, and where `work(n)` answered a reason instead, `set_aside(n, reason)` runs after the reads. A failure on
//! any process fails every process with the same message.
template <typename Work, typename Write, typename Read, typename SetAside>
void share_out(const std::vector<std::int64_t>& costs, const ProcessGroup* group, int threads, std::size_t width,
               Work work, Write write, Read read, SetAside set_aside) {
  const auto size = static_cast<std::size_t>(group != nullptr ? group->size() : 1);
  const auto rank = static_cast<std::size_t>(group != nullptr ? group->rank() : 0);
  const std::size_t count = costs.size();
  const std::vector<std::size_t> mine = balanced_shares(costs, size).at(rank);
  std::vector<std::optional<std::string>> reasons(count);
  const auto run_mine = [&] {
    parallel_for(mine.size(), threads, [&](std::size_t i) { reasons[mine[i]] = work(mine[i]); });
  };
  if (group == nullptr) {
    run_mine();
    for (std::size_t n = 0; n < count; ++n) {
      if (reasons[n]) set_aside(n, *reasons[n]);
    }
    return;
  }
  // Two entries per process after the records: 0, or how its share failed (bad input, or not);
  // then 1 where it set items aside.
  constexpr double kInputFailure = 1.0;
  constexpr double kOtherFailure = 2.0;
  std::vector<double> values(count * width + 2 * size, 0.0);
  std::string failure;
  try {
    run_mine();
    for (const std::size_t n : mine) write(n, &values[n * width]);
  } catch (const InputError& error) {
    failure = error.what();
    values[count * width + rank] = kInputFailure;
  } catch (const std::exception& error) {
    failure = error.what();
    values[count * width + rank] = kOtherFailure;
  }
  std::string set_aside_here = set_aside_text(mine, reasons);
  if (!set_aside_here.empty()) values[count * width + size + rank] = 1.0;
  group->sum(values);
  for (std::size_t process = 0; process < size; ++process) {
    const double kind = values[count * width + process];
    if (kind > 0) {
      group->broadcast(failure, static_cast<int>(process));
      if (kind == kInputFailure) throw InputError(failure);
      throw std::runtime_error(failure);
    }
  }
  for (std::size_t n = 0; n < count; ++n) read(n, &values[n * width]);
  for (std::size_t process = 0; process < size; ++process) {
    if (values[count * width + size + process] == 0) continue;
    std::string text = process == rank ? set_aside_here : std::string();
    group->broadcast(text, static_cast<int>(process));
    read_set_aside_text(text, set_aside);
  }
}

}  // namespace distsim::search
