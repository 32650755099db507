#pragma once

#include <cstddef>
#include <optional>
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
  bool moe = false;
  bool operator==(const LayerShape&) const = default;
};

//! Which of a layer's passes: its forward, its forward rerun in the backward pass (full
//! recomputation), or its backward.
enum class LayerPass { forward, recompute, backward };

//! A layer's templates as first built: template indices (waits_for, waits_for_parameters) count
//! from the layer's first template, and `input_after` is the step the pass's next compute step
//! must wait for when the layer ends (-1: none).
struct RecordedLayer {
  std::vector<TaskTemplate> templates;
  int input_after = -1;

  //! The templates of `list` from `start` on, built for `layer`, with the pass's pending input
  //! and parameter wait after them; nothing when one refers to a template before `start` or
  //! belongs to another layer, or a parameter wait is left pending.
  static std::optional<RecordedLayer> record(const std::vector<TaskTemplate>& list, std::size_t start, int layer,
                                             int input, int parameters);
  //! Appends the templates to `list` as `layer`'s; returns the pass's pending input after them.
  int append_to(std::vector<TaskTemplate>& list, int layer) const;
};

//! The layers built so far for one event table, by groups, pass and shape: a layer alike to one
//! already built is copied instead of built again (the event ids are the table's). Most models'
//! layers fall into one to four shapes, so a list is searched.
class LayerMemo {
 public:
  explicit LayerMemo(const EventTable& table) : table_(&table) {}

  const EventTable& table() const { return *table_; }
  const RecordedLayer* find(const LayerGroups& groups, LayerPass pass, const LayerShape& shape) const;
  void add(const LayerGroups& groups, LayerPass pass, const LayerShape& shape, RecordedLayer layer);

 private:
  struct Entry {
    LayerGroups groups;
    LayerPass pass;
    LayerShape shape;
    RecordedLayer layer;
  };

  const EventTable* table_;
  std::vector<Entry> entries_;
};

}  // namespace distsim::events
