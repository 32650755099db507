#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/calibration/published_field.hpp"

namespace distsim::io {

//! What one spelling of a published-table column means for the job.
struct ColumnReading {
  //! Job settings as option-table keys and value text ("recompute", "full"); "cluster" names a
  //! built-in node design.
  std::vector<std::pair<std::string, std::string>> settings;
  //! Non-empty: the settings are not what the source states but what the reader assumes, and why.
  std::string assumed_because;
  //! Non-empty: the row cannot be simulated, and why.
  std::string refused_because;
};

//! The spellings of one column that the calibration reader understands. A spelling is matched
//! whole, ignoring case; '*' stands for any text, and a setting value "$N" takes the text the N-th
//! '*' stood for. A spelling that contains '(' is matched with the field's remarks. Nothing is
//! matched by a substring.
struct ColumnVocabulary {
  std::string column;
  //! Whether parenthesised remarks are part of the value ("(async TP)" changes the run) or only
  //! commentary ("(--fp16, loss-scale 8192)").
  bool remarks_matter = false;
  std::vector<std::pair<std::string, ColumnReading>> spellings;
  ColumnReading when_missing;     //!< empty, n/a, none, - (or no such column)
  ColumnReading when_not_stated;  //!< "not stated ..." without a value of its own
};

//! The columns read through a vocabulary, in the order a row is read: a refusal found first is
//! the one reported.
const std::vector<ColumnVocabulary>& calibration_vocabularies();

//! The node design an NVL72 rack names: the GPU's own rack (gb200-nvl72 for a GB200, gb300-nvl72
//! for a GB300), which must have 72-GPU NVLink domains.
inline constexpr const char* kRackOfTheGpu = "the GPU's NVL72 rack";

//! The reading of one value of `vocabulary`'s column (one part of it, for columns whose parts are
//! separated by ';'), or a refusal that lists the spellings it knows.
ColumnReading read_column_value(const ColumnVocabulary& vocabulary, const PublishedField& field);

}  // namespace distsim::io
