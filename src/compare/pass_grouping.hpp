#pragma once

#include <compare>
#include <optional>
#include <vector>

#include "compare/activity.hpp"

namespace distsim::compare {

//! What identifies a pass on both sides of a comparison: its kind, phase and micro-batch, and
//! its ordinal among the passes with the same three (an interleaved schedule runs each
//! micro-batch's forward once per model chunk on the same device).
struct PassKey {
  ActivityKind kind = ActivityKind::compute;
  std::optional<events::Phase> phase;
  int microbatch = -1;
  int ordinal = 0;
  // clang-tidy 14 reports the 0 that the synthesized comparisons compare with (llvm-project#53961).
  // NOLINTNEXTLINE(modernize-use-nullptr)
  auto operator<=>(const PassKey&) const = default;
};

//! A pass: [first start, last end] of the activities grouped under `key`, in nanoseconds from
//! the iteration's begin.
struct Pass {
  PassKey key;
  SimTime start = 0;
  SimTime end = 0;
};

//! Groups one rank's activities into passes. Per kind, activities are taken in start order and
//! a run of consecutive ones with the same phase and micro-batch forms one pass, so a forward
//! pass cut into pieces by tensor-parallel all-reduces (as both distsim and the runner draw it)
//! is one pass, and so are the all-reduces of that pass on the TP stream. Kinds are taken as
//! compared_kind at `detail`, so that a trace that does not say which group a collective served
//! is compared with all communication as `collective`. Times are shifted by `origin`. The result
//! is ordered by key.
std::vector<Pass> group_passes(const std::vector<Activity>& activities, SimTime origin, CommunicationDetail detail);

//! One span per class of work, [first start, last end] of all compute (kind compute) and of all
//! communication (kind collective), for traces whose activities carry no pass labels.
std::vector<Pass> group_busy_spans(const std::vector<Activity>& activities, SimTime origin);

}  // namespace distsim::compare
