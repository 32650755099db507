#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "events/event_table.hpp"
#include "events/phase.hpp"
#include "strategy/job_spec.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::events {

//! One step of a stage's per-micro-batch work: which event runs on which stream. A compute
//! step follows the previous compute step on the compute stream and, when `waits_for` is set,
//! also waits for that earlier (communication) step. A communication step waits for the compute
//! step before it.
struct TaskTemplate {
  EventId event = 0;
  StreamKind stream = StreamKind::compute;
  int layer = -1;              //!< global transformer layer index; -1 for embedding, head, loss
  std::string_view label;      //!< what the step does, e.g. "fc1", "attention", "tp all_reduce"
  int waits_for = -1;          //!< index of an earlier step in the same list
};

//! The work of one rank, as templates instantiated per micro-batch by the program builder.
struct RankWork {
  std::vector<TaskTemplate> forward;   //!< one micro-batch's forward pass, in order
  std::vector<TaskTemplate> backward;  //!< one micro-batch's backward pass, in order
  std::optional<EventId> send_activation;  //!< to the next stage, once per micro-batch
  std::optional<EventId> send_gradient;    //!< to the previous stage, once per micro-batch
  std::vector<EventId> gradient_buckets;   //!< data-parallel reduction, after the last backward
  std::optional<EventId> embedding_reduction;  //!< tied embeddings split over first and last stage
  EventId optimizer_step = 0;
  int first_layer = 0;
  int num_layers = 0;
  std::int64_t parameters = 0;  //!< parameters held by this rank
};

//! The global transformer layers [first, first + count) that a pipeline stage holds: as even as
//! possible, with the remainder on the earliest stages.
struct LayerRange {
  int first = 0;
  int count = 0;
};
LayerRange stage_layers(int total_layers, int num_stages, int stage);

//! Megatron pads the vocabulary to a multiple of 128·tp (formats.md §5.1).
std::int64_t padded_vocab(std::int64_t vocab, int tensor_parallel);

//! Builds the events and templates of the rank at `coord`, following Megatron-LM's partitioning
//! (formats.md §6): per-rank GEMM shapes under tensor parallelism, two all-reduces per layer in
//! forward and two in backward, embedding on the first stage, LM head and loss on the last,
//! activation and gradient transfers between stages, bucketed data-parallel gradient all-reduce,
//! and the optimizer step. Events are interned into `table`.
RankWork build_rank_work(const strategy::JobSpec& job, const strategy::RankLayout& layout,
                         strategy::RankCoord coord, EventTable& table);

}  // namespace distsim::events
