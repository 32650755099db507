#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "events/event_table.hpp"
#include "events/job_events.hpp"
#include "events/pass_builder.hpp"

namespace distsim::events {

//! What a transformer layer's work depends on besides the job and the groups it talks over: the
//! layer index itself only names it. PassBuilder::layer_shape reads it; every property of the
//! model or strategy that varies from layer to layer belongs here.
struct LayerShape {
  bool decoder_side = false;   //!< the decoder of an encoder-decoder model: its sequence, cross-attention
  bool low_precision = false;  //!< GEMMs in the job's low-precision format (not a bf16 layer at an end)
  int attention_window = 0;
  model::LayerPlan plan;
  bool rotates_positions = false;  //!< RoPE (and Llama 4's QK norm), not one of iRoPE's NoPE layers
  bool operator==(const LayerShape&) const = default;
};

//! Which of a layer's passes: its forward, its forward rerun in the backward pass (full
//! recomputation), or its backward.
enum class LayerPass { forward, recompute, backward };

//! The waits a pass has pending when a layer starts, each an index of a template before the layer
//! (-1: none): the input its first compute step waits for (the chunk's input, the previous
//! layer's last communication) and the parameter gather it waits for (ZeRO-3).
struct PendingWaits {
  int input = -1;
  int parameters = -1;
  //! Which waits are pending, the part of them a layer's templates depend on: the layer's first
  //! compute step takes them whatever their indices.
  std::pair<bool, bool> kinds() const { return {input >= 0, parameters >= 0}; }
};

//! A layer's templates as first built: template indices (waits_for, waits_for_parameters) count
//! from the layer's first template, a wait the layer took from the pass before it is marked as
//! such, and `input_after` is the step the pass's next compute step must wait for when the layer
//! ends (-1: none).
struct RecordedLayer {
  std::vector<TaskTemplate> templates;
  int input_after = -1;

  //! The templates of `list` from `start` on, built for `layer` with the waits `before` pending,
  //! with the pass's pending input and parameter wait after them; nothing when one refers to a
  //! template before `start` other than a pending wait, or belongs to another layer, or leaves a
  //! wait from before the layer or a parameter wait pending after it.
  static std::optional<RecordedLayer> record(const std::vector<TaskTemplate>& list, std::size_t start, int layer,
                                             PendingWaits before, int input, int parameters);
  //! Appends the templates to `list` as `layer`'s, with the waits `before` pending (of the same
  //! kinds as when recorded); returns the pass's pending input after them.
  int append_to(std::vector<TaskTemplate>& list, int layer, PendingWaits before) const;
};

//! The layers built so far for one event table, by groups, pass and shape: a layer alike to one
//! already built is copied instead of built again (the event ids are the table's). Most models'
//! layers fall into one to four shapes, so a list is searched.
class LayerMemo {
 public:
  explicit LayerMemo(const EventTable& table) : table_(&table) {}

  const EventTable& table() const { return *table_; }
  const RecordedLayer* find(const LayerGroups& groups, LayerPass pass, const LayerShape& shape,
                            PendingWaits pending) const;
  void add(const LayerGroups& groups, LayerPass pass, const LayerShape& shape, PendingWaits pending,
           RecordedLayer layer);
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    LayerGroups groups;
    LayerPass pass;
    LayerShape shape;
    std::pair<bool, bool> pending;
    RecordedLayer layer;
  };

  const EventTable* table_;
  std::vector<Entry> entries_;
};

}  // namespace distsim::events
