#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "events/job_events.hpp"
#include "events/phase.hpp"

namespace distsim::schedule {

//! A tensor that one step of a chunk sends to the neighbouring chunk of the pipeline after it
//! runs, and that a step of that chunk waits for: activations to the next chunk, gradients to the
//! previous. Which stage that chunk is on, and so which pipeline streams carry it, is the
//! schedule's placement (PipelineSchedule::next_chunk).
struct TransferKind {
  std::string_view label;  //!< task label, e.g. "send activation"
  //! The chunk's transfer event; a chunk without one (the pipeline's end, or a neighbour on the
  //! same stage) sends nothing over a link.
  std::optional<events::EventId> events::ChunkWork::*event;
  int direction;  //!< +1: to the next chunk of the pipeline; −1: to the previous chunk
};

inline constexpr TransferKind kActivationTransfer{"send activation", &events::ChunkWork::send_activation, +1};
inline constexpr TransferKind kGradientTransfer{"send gradient", &events::ChunkWork::send_gradient, -1};

//! What one kind of step does with a micro-batch on a model chunk: which of the chunk's template
//! lists it instantiates and which pipeline transfers it sends and waits for. The program builder
//! reads only this, so a schedule can add kinds (say, backward split into an input-gradient and a
//! weight-gradient step over template lists the events module builds) without changing it.
struct StepKindSpec {
  std::string_view name;
  events::Phase phase;          //!< of the step's transfers and of an aggregated pass
  std::string_view pass_label;  //!< the label of the step as one aggregated task
  std::vector<events::TaskTemplate> events::ChunkWork::*templates;
  const TransferKind* sends;     //!< sent after the step's last template; nullptr for none
  const TransferKind* receives;  //!< waited for before its first compute template; nullptr for none
  //! The last micro-batch's step produces the chunk's weight gradients, which the data-parallel
  //! gradient buckets wait for. It is also the last step of a micro-batch on a chunk that reads
  //! its stored activations (peak_in_flight).
  bool completes_gradients;
  //! Where in this step's templates a gradient bucket's gradients all exist, when
  //! completes_gradients.
  int events::GradientBucket::*bucket_ready = &events::GradientBucket::ready_after;
};

//! A kind of step, compared by identity: each kind is one StepKindSpec constant.
class StepKind {
 public:
  constexpr explicit StepKind(const StepKindSpec& spec) : spec_(&spec) {}

  static const StepKind forward;
  static const StepKind backward;
  //! The backward pass split in two (events::split_backward): B computes the input gradient and
  //! sends it to the previous stage; W computes the weight gradients, sends nothing and may run
  //! any time after B on the same stage.
  static const StepKind backward_input;
  static const StepKind backward_weight;

  constexpr const StepKindSpec& spec() const { return *spec_; }
  constexpr const StepKindSpec* operator->() const { return spec_; }
  constexpr bool operator==(const StepKind&) const = default;

 private:
  const StepKindSpec* spec_;
};

inline constexpr StepKindSpec kForwardStep{"forward",
                                           events::Phase::forward,
                                           "forward pass",
                                           &events::ChunkWork::forward,
                                           &kActivationTransfer,
                                           &kActivationTransfer,
                                           false};
inline constexpr StepKindSpec kBackwardStep{"backward",
                                            events::Phase::backward,
                                            "backward pass",
                                            &events::ChunkWork::backward,
                                            &kGradientTransfer,
                                            &kGradientTransfer,
                                            true};

inline constexpr StepKindSpec kBackwardInputStep{"backward_input",
                                                 events::Phase::backward,
                                                 "backward input pass",
                                                 &events::ChunkWork::backward_input,
                                                 &kGradientTransfer,
                                                 &kGradientTransfer,
                                                 false};
inline constexpr StepKindSpec kBackwardWeightStep{"backward_weight",
                                                  events::Phase::weight_gradient,
                                                  "weight gradient pass",
                                                  &events::ChunkWork::backward_weight,
                                                  nullptr,
                                                  nullptr,
                                                  true,
                                                  &events::GradientBucket::weight_ready_after};

inline constexpr StepKind StepKind::forward{kForwardStep};
inline constexpr StepKind StepKind::backward{kBackwardStep};
inline constexpr StepKind StepKind::backward_input{kBackwardInputStep};
inline constexpr StepKind StepKind::backward_weight{kBackwardWeightStep};

//! Which communication the steps of an overlapped unit hide behind each other's computation.
enum class Overlap {
  none,  //!< the step is not overlapped: it starts a unit of its own
  //! every communication a computation waits for (DualPipe's F&B pairs)
  communication,
  //! the expert-parallel dispatch and combine only: Megatron-Core's combined 1F1B runs them on a
  //! communication stream, while each attention keeps its tensor-parallel collectives inline
  expert_exchange
};

//! One step of one micro-batch through one model chunk of a stage.
struct Step {
  StepKind kind = StepKind::forward;
  int microbatch = 0;
  int chunk = 0;  //!< model chunk on this stage: 0 unless the schedule runs several
  //! Unless none: runs interleaved with the steps before it, back to the last one that is not
  //! overlapped, as one unit (DualPipe's F&B: a forward and another micro-batch's full backward),
  //! so that the communication this names of one step hides behind the other's computation.
  Overlap overlaps_previous = Overlap::none;
  bool operator==(const Step&) const = default;
};

}  // namespace distsim::schedule
