#include "events/job_events.hpp"

#include <algorithm>

#include "events/backward_split.hpp"
#include "events/event_factory.hpp"
#include "events/gradient_buckets.hpp"
#include "events/pass_builder.hpp"
#include "model/parameter_count.hpp"

namespace distsim::events {

using strategy::ParallelDim;

LayerRange stage_layers(int total_layers, int num_stages, int stage) {
  const int base = total_layers / num_stages;
  const int extra = total_layers % num_stages;
  LayerRange range;
  range.count = base + (stage < extra ? 1 : 0);
  range.first = stage * base + std::min(stage, extra);
  return range;
}

std::int64_t padded_vocab(std::int64_t vocab, int tensor_parallel) {
  const std::int64_t multiple = 128LL * tensor_parallel;
  return (vocab + multiple - 1) / multiple * multiple;
}

std::vector<FsdpUnit> fsdp_units(const model::ModelSpec& model, LayerRange layers) {
  return fsdp_units(model, layers, layers.first == 0, layers.first + layers.count == model.total_layers());
}

std::vector<FsdpUnit> fsdp_units(const model::ModelSpec& model, LayerRange layers, bool first, bool last) {
  std::vector<FsdpUnit> units;
  if (first) {
    units.push_back({-1, true, model::embedding_parameters(model)});
  }
  for (int layer = layers.first; layer < layers.first + layers.count; ++layer) {
    const model::ParameterSums parameters = model::layer_parameter_sums(model, layer);
    units.push_back({layer, false, parameters.dense(), parameters.duplicated});
  }
  if (last) {
    std::int64_t head = model::head_parameters(model);
    if (model.tie_embeddings && !first) {
      head += static_cast<std::int64_t>(model.vocab_size) * model.hidden_size;  // the output copy of the table
    }
    units.push_back({-1, false, head});
  }
  return units;
}

namespace {

using model::ModelSpec;

bool in_decoder(const ModelSpec& model, int layer) {
  return model.architecture == model::Architecture::encoder_decoder && layer >= model.num_layers;
}

bool shards_sequence(const strategy::Strategy& strategy) {
  return strategy.sequence_parallel && strategy.tensor_parallel > 1;
}

//! Scatter/gather transfers: each tensor rank sends a 1/t slice of the full boundary tensor.
bool scatters_transfers(const strategy::Strategy& strategy) {
  return strategy.p2p_scatter_gather && strategy.tensor_parallel > 1 && !shards_sequence(strategy);
}

//! The whole tensor passed between chunks after `last_layer_of_chunk`: [s, b, h], of which a
//! context-parallel rank holds and sends its s/cp tokens.
std::int64_t boundary_tensor_bytes(const strategy::JobSpec& job, int last_layer_of_chunk) {
  const ModelSpec& model = job.model;
  const std::int64_t batch = job.strategy.micro_batch_size;
  const std::int64_t element = dtype_bytes(job.strategy.dtype);
  const bool decoder = in_decoder(model, last_layer_of_chunk);
  // Decoder stages of an encoder-decoder model also pass the encoder's output along.
  std::int64_t tokens = static_cast<std::int64_t>(decoder ? model.target_seq_length() : model.seq_length) * batch;
  if (decoder) {
    tokens += static_cast<std::int64_t>(model.seq_length) * batch;
  }
  return tokens * model.hidden_size * element / job.strategy.context_parallel;
}

//! What one tensor rank sends: the whole tensor, or its 1/t sequence shard under sequence
//! parallelism (Megatron-LM sends [s/t, b, h]) or its 1/t slice with scatter/gather transfers.
std::int64_t boundary_bytes(const strategy::JobSpec& job, int last_layer_of_chunk) {
  const std::int64_t bytes = boundary_tensor_bytes(job, last_layer_of_chunk);
  const bool sliced = shards_sequence(job.strategy) || scatters_transfers(job.strategy);
  return sliced ? bytes / job.strategy.tensor_parallel : bytes;
}

//! Parameters whose gradients each tensor-parallel rank computes from its sequence shard only
//! and that sequence parallelism therefore all-reduces over the tensor group: the norms and the
//! biases of the row-parallel GEMMs (Megatron-LM marks them `sequence_parallel`), as
//! model/layer_plan.hpp counts them: one norm and one such bias per block.
//! Latent attention's down-projections and latent norms are whole on every tensor-parallel rank
//! (model::ParameterSplit::duplicated); under sequence parallelism each rank's gradient covers
//! its own rows, so they are summed over the tensor group as the norms are.
std::int64_t sequence_sharded_parameters(const ModelSpec& model, int layer) {
  const std::int64_t norm = (model.norm == model::NormType::layernorm ? 2 : 1) * std::int64_t{model.hidden_size};
  const std::int64_t blocks = model::layer_plan(model, layer).count;
  return blocks * (norm + (model.has_linear_biases() ? model.hidden_size : 0)) +
         model::layer_parameter_sums(model, layer).duplicated;
}

//! Builds one chunk's passes and records, in bucket order, which backward step completes each
//! run of parameters.
class ChunkBuilder {
 public:
  //! The placement says whether the chunk holds the embedding and the head; it may hold no
  //! transformer layer (a pipeline layout's loss-only stage).
  //! `rank_holds_embedding`: whether one of the rank's chunks holds the embedding, whose table a
  //! tied LM head then uses instead of a copy of its own.
  ChunkBuilder(const strategy::JobSpec& job, const strategy::RankLayout& layout, strategy::RankCoord coord,
               const ChunkPlacement& placement, bool rank_holds_embedding, EventTable& table, LayerMemo* memo)
      : job_(job),
        coord_(coord),
        builder_(job, layer_groups(job, layout, coord), table, memo),
        first_(placement.embedding),
        last_(placement.head),
        rank_holds_embedding_(rank_holds_embedding),
        layers_(placement.layers),
        placement_(placement) {
    if (job.strategy.reduces_per_unit()) {
      units_ = fsdp_units(job.model, layers_, first_, last_);
      const int dp_per_shard = job.strategy.shard_data_parallel();
      shard_group_ = layout.shard_group(coord, dp_per_shard);
      if (job.strategy.shard_replicas() > 1) {
        replica_group_ = layout.replica_group(coord, dp_per_shard);
      }
    }
  }

  ChunkWork build(const strategy::RankLayout& layout, int chunk, EventTable& table) {
    add_forward();
    add_backward();
    ChunkWork work;
    work.chunk = chunk;
    work.first_layer = layers_.first;
    work.num_layers = layers_.count;
    work.forward = std::move(builder_.forward);
    work.backward = std::move(builder_.backward);
    work.expert_parameters = expert_parameters_;
    work.parameters = rank_parameters(segments_, job_.strategy.tensor_parallel) + expert_parameters_;
    add_transfers(work, layout, table);
    work.gradient_buckets = gradient_buckets(job_, layout, coord_, segments_, table);
    return work;
  }

  //! See sequence_sharded_parameters; the last chunk adds the final norm.
  std::int64_t sequence_sharded() const {
    std::int64_t total = last_ ? (job_.model.norm == model::NormType::layernorm ? 2 : 1) * job_.model.hidden_size : 0;
    for (int layer = layers_.first; layer < layers_.first + layers_.count; ++layer) {
      total += sequence_sharded_parameters(job_.model, layer);
    }
    return total;
  }

 private:
  void add_forward() {
    int gathered = gather_unit(false, 0);
    if (first_) {
      const int next = gather_unit(false, 1);
      builder_.await_parameters(false, gathered);
      builder_.embedding_forward();
      gathered = next;
    } else if (placement_.receives_from && scatters_transfers(job_.strategy)) {
      builder_.gather_received_activation(boundary_tensor_bytes(job_, layers_.first - 1));
    }
    for (int layer = layers_.first; layer < layers_.first + layers_.count; ++layer) {
      const int next = gather_unit(false, unit_index(layer) + 1);
      builder_.await_parameters(false, gathered);
      builder_.layer_forward(layer);
      gathered = next;
    }
    if (last_) {
      builder_.await_parameters(false, gathered);
      builder_.head_forward();
      builder_.mtp_forward();
    }
  }

  //! Sharding zero3: the index in units_ of a transformer layer's unit.
  int unit_index(int layer) const { return (first_ ? 1 : 0) + layer - layers_.first; }

  //! The all-gather of unit `index` (in forward order) into the forward or backward pass, or -1
  //! without sharding zero3 or past the chunk's units. Bytes: the unit's parameters held by one
  //! tensor-parallel rank, in the working dtype, gathered over the shard group.
  int gather_unit(bool backward_pass, int index) {
    if (!job_.strategy.gathers_parameters() || index < 0 || index >= static_cast<int>(units_.size())) {
      return -1;
    }
    const FsdpUnit& unit = units_[static_cast<size_t>(index)];
    const EventFactory factory(job_.strategy.dtype);
    const std::int64_t bytes = unit.rank_parameters(job_.strategy.tensor_parallel) * dtype_bytes(job_.strategy.dtype);
    const Event event =
        factory.collective(Collective::all_gather, bytes, shard_group_, job_.strategy.shard_group_size());
    return builder_.gather_parameters(backward_pass, event, unit.layer);
  }

  //! After unit `index`'s backward: its gradients (fp32 as FSDP2's reduce_dtype in torchtitan and
  //! Megatron's main gradients, gradient_element_bytes) reduce-scattered over the shard group and,
  //! with HSDP, the 1/shard result all-reduced over the replica group.
  void reduce_unit(int index) {
    if (index < 0 || index >= static_cast<int>(units_.size())) {
      return;
    }
    const strategy::Strategy& s = job_.strategy;
    const FsdpUnit& unit = units_[static_cast<size_t>(index)];
    const EventFactory factory(s.dtype);
    const std::int64_t bytes = unit.rank_parameters(s.tensor_parallel) * gradient_element_bytes(s.dtype);
    const Event scatter = factory.collective(Collective::reduce_scatter, bytes, shard_group_, s.shard_group_size());
    std::optional<Event> replicas;
    if (s.shard_replicas() > 1) {
      replicas =
          factory.collective(Collective::all_reduce, bytes / s.shard_group_size(), replica_group_, s.shard_replicas());
    }
    builder_.reduce_unit_gradients(scatter, replicas, unit.layer);
  }

  void add_backward() {
    const ModelSpec& model = job_.model;
    if (placement_.sends_to && scatters_transfers(job_.strategy)) {
      builder_.gather_received_gradient(boundary_tensor_bytes(job_, layers_.first + layers_.count - 1));
    }
    // Sharding zero3 gathers the units again in reverse order, each prefetched while the unit
    // after it runs its backward (FSDP2's backward prefetch), and reduces each unit's gradients
    // as soon as its backward ends.
    const int units = static_cast<int>(units_.size());
    int gathered = gather_unit(true, units - 1);
    if (last_) {
      const int next = gather_unit(true, units - 2);
      builder_.await_parameters(true, gathered);
      add_mtp_backward();
      builder_.head_backward();
      reduce_unit(units - 1);
      gathered = next;
      std::int64_t head = model::head_parameters(model);
      if (model.tie_embeddings && !rank_holds_embedding_) {
        head += static_cast<std::int64_t>(model.vocab_size) * model.hidden_size;  // the output copy of the table
      }
      end_segment(head);
    }
    for (int layer = layers_.first + layers_.count - 1; layer >= layers_.first; --layer) {
      const int next = units_.empty() ? -1 : gather_unit(true, unit_index(layer) - 1);
      builder_.await_parameters(true, gathered);
      if (job_.strategy.recompute == strategy::Recompute::full) {
        builder_.layer_recompute(layer);
      }
      builder_.layer_backward(layer);
      reduce_unit(units_.empty() ? -1 : unit_index(layer));
      gathered = next;
      // The shared experts and router are replicated and reduced with the dense parameters.
      const model::ParameterSums parameters = model::layer_parameter_sums(model, layer);
      add_expert_parameters(parameters.expert);
      end_segment(parameters.dense(), parameters.duplicated);
    }
    if (first_) {
      builder_.await_parameters(true, gathered);
      builder_.embedding_backward();
      reduce_unit(units_.empty() ? -1 : 0);
      end_segment(model::embedding_parameters(model));
    }
  }

  //! The MTP modules' backward and their gradients: the routed experts of an MoE module layer are
  //! reduced with the other experts; the rest, and the embedding table the modules look their
  //! tokens up in when this rank does not hold the main one, with the dense parameters.
  void add_mtp_backward() {
    const ModelSpec& model = job_.model;
    if (model.mtp_layers == 0) {
      return;
    }
    builder_.mtp_backward(job_.strategy.recompute == strategy::Recompute::full);
    const model::ParameterSums module = model::mtp_module_parameter_sums(model);
    add_expert_parameters(model.mtp_layers * module.expert);
    std::int64_t parameters = model.mtp_layers * module.dense();
    if (!model.tie_embeddings && !rank_holds_embedding_) {
      parameters += static_cast<std::int64_t>(model.vocab_size) * model.hidden_size;
    }
    end_segment(parameters, model.mtp_layers * module.duplicated);
  }

  //! The rank's share of routed experts: E/ep of them, each split over etp.
  void add_expert_parameters(std::int64_t routed) {
    const strategy::Strategy& s = job_.strategy;
    expert_parameters_ += routed / (static_cast<std::int64_t>(s.expert_parallel) * s.expert_tensor_parallel);
  }

  void end_segment(std::int64_t parameters, std::int64_t duplicated = 0) {
    segments_.push_back({parameters, duplicated, static_cast<int>(builder_.backward.size()) - 1});
  }

  //! Activations go to the stage of the next chunk and gradients to the stage of the previous one,
  //! as the schedule places them; a hand-off to a chunk on the same stage sends nothing.
  void add_transfers(ChunkWork& work, const strategy::RankLayout& layout, EventTable& table) const {
    const EventFactory factory(job_.strategy.dtype);
    if (placement_.sends_to) {
      const std::int64_t bytes = boundary_bytes(job_, layers_.first + layers_.count - 1);
      work.send_activation = table.intern(factory.send_recv(bytes, layout.stage_link(coord_, *placement_.sends_to)));
    }
    if (placement_.receives_from) {
      const std::int64_t bytes = boundary_bytes(job_, layers_.first - 1);
      work.send_gradient = table.intern(factory.send_recv(bytes, layout.stage_link(coord_, *placement_.receives_from)));
    }
  }

  const strategy::JobSpec& job_;
  strategy::RankCoord coord_;
  PassBuilder builder_;
  bool first_ = false;
  bool last_ = false;
  bool rank_holds_embedding_ = false;
  LayerRange layers_;
  ChunkPlacement placement_;
  std::vector<ParameterSegment> segments_;
  std::int64_t expert_parameters_ = 0;
  std::vector<FsdpUnit> units_;  //!< empty unless the units reduce their gradients (zero2, zero3)
  strategy::GroupPlacement shard_group_;
  strategy::GroupPlacement replica_group_;
};

std::optional<EventId> sequence_parallel_reduction(const strategy::JobSpec& job, const strategy::RankLayout& layout,
                                                   strategy::RankCoord coord, std::int64_t parameters,
                                                   EventTable& table) {
  if (!shards_sequence(job.strategy)) {
    return std::nullopt;
  }
  const EventFactory factory(job.strategy.dtype);
  const std::int64_t bytes = parameters * gradient_element_bytes(job.strategy.dtype);
  return table.intern(
      factory.collective(Collective::all_reduce, bytes, layout.tensor_group(coord), job.strategy.tensor_parallel));
}

void add_expert_reductions(const strategy::JobSpec& job, const strategy::RankLayout& layout, strategy::RankCoord coord,
                           RankWork& work, EventTable& table) {
  const strategy::Strategy& strategy = job.strategy;
  for (const auto& chunk : work.chunks) {
    work.expert_parameters += chunk.expert_parameters;
  }
  const int group_size = strategy.expert_data_parallel();
  if (work.expert_parameters == 0 || group_size <= 1) {
    return;
  }
  const EventFactory factory(strategy.dtype);
  const strategy::GroupPlacement group = layout.expert_group(coord, strategy::ExpertDim::edp);
  const bool sharded = strategy.zero_stage() != strategy::Sharding::none;
  const Collective reduction = sharded ? Collective::reduce_scatter : Collective::all_reduce;
  work.expert_gradient_reduction = table.intern(factory.collective(
      reduction, work.expert_parameters * gradient_element_bytes(strategy.dtype), group, group_size));
  if (sharded) {
    work.expert_parameter_gather = table.intern(factory.collective(
        Collective::all_gather, work.expert_parameters * dtype_bytes(strategy.dtype), group, group_size));
  }
}

}  // namespace

RankWork build_rank_work(const strategy::JobSpec& job, const strategy::RankLayout& layout, strategy::RankCoord coord,
                         const std::vector<ChunkPlacement>& chunks, EventTable& table, LayerMemo* memo,
                         BackwardSplit split) {
  const strategy::Strategy& strategy = job.strategy;
  const bool holds_embedding =
      std::any_of(chunks.begin(), chunks.end(), [](const ChunkPlacement& c) { return c.embedding; });
  const bool holds_head = std::any_of(chunks.begin(), chunks.end(), [](const ChunkPlacement& c) { return c.head; });
  RankWork work;
  std::int64_t sequence_sharded = 0;
  for (int chunk = 0; chunk < static_cast<int>(chunks.size()); ++chunk) {
    ChunkBuilder builder(job, layout, coord, chunks[static_cast<size_t>(chunk)], holds_embedding, table, memo);
    work.chunks.push_back(builder.build(layout, chunk, table));
    if (split == BackwardSplit::input_and_weight) split_backward(work.chunks.back());
    work.parameters += work.chunks.back().parameters;
    sequence_sharded += builder.sequence_sharded();
  }
  work.sequence_parallel_reduction = sequence_parallel_reduction(job, layout, coord, sequence_sharded, table);
  const EventFactory factory(strategy.dtype);
  // Megatron-LM's embedding group: the stage with the table and the stage with the head's copy.
  // MTP modules look their tokens up in a copy of the table on the stage of the head (Megatron-Core
  // builds the embedding where mtp_process holds), kept equal to the first stage's the same way.
  const bool shares_table = job.model.tie_embeddings || job.model.mtp_layers > 0;
  if (shares_table && holds_embedding != holds_head) {
    const std::int64_t bytes = padded_vocab(job.model.vocab_size, strategy.tensor_parallel) / strategy.tensor_parallel *
                               job.model.hidden_size * 4;
    work.embedding_reduction =
        table.intern(factory.collective(Collective::all_reduce, bytes, layout.embedding_group(coord), 2));
  }
  add_expert_reductions(job, layout, coord, work, table);
  // A sharded optimizer (ZeRO-1 and up) updates a 1/(dp·cp) shard of the dense parameters (ZeRO-3:
  // a 1/shard-group shard) and a 1/edp shard of the experts on each rank.
  const std::int64_t dense = work.parameters - work.expert_parameters;
  const int shards = strategy.shard_group_size();
  const int expert_shards = strategy.expert_data_parallel();
  const std::int64_t updated =
      strategy.zero_stage() != strategy::Sharding::none
          ? (dense + shards - 1) / shards + (work.expert_parameters + expert_shards - 1) / expert_shards
          : work.parameters;
  work.optimizer_step = table.intern(factory.adam_step(updated));
  return work;
}

}  // namespace distsim::events
