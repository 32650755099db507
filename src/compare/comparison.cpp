#include "compare/comparison.hpp"

#include "compare/order_labels.hpp"
#include "core/input_error.hpp"

namespace distsim::compare {

namespace {

BatchTimeError batch_time_error(const Timeline& predicted, const Timeline& measured) {
  BatchTimeError batch{predicted.iteration(), measured.iteration(), 0};
  batch.error = static_cast<double>(batch.predicted - batch.measured) / static_cast<double>(batch.measured);
  return batch;
}

}  // namespace

Comparison compare_timelines(const Timeline& predicted, const Timeline& measured) {
  if (measured.iteration() <= 0) {
    throw InputError("the measured traces span no time (their iteration ends where it begins); nothing to compare");
  }
  Comparison comparison;
  comparison.batch = batch_time_error(predicted, measured);
  comparison.mapping = map_ranks(predicted, measured);
  const Timeline numbered = relabel_by_predicted_order(predicted, measured, comparison.mapping);
  comparison.activity = activity_errors(predicted, numbered, comparison.mapping);
  comparison.stages = stage_errors(predicted, numbered, comparison.mapping);
  return comparison;
}

}  // namespace distsim::compare
