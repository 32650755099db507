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

//! How the calibration reader reads one column. A value is read, in this order, as
//! - one of the column's phrases: what published tables write that no option or catalog entry
//!   names, each with what it sets and why. A phrase is matched whole by the name rule
//!   (core/name_match.hpp: case and separators do not matter); '*' stands for any text, and a
//!   setting value "$N" takes the text the N-th '*' stood for, as the name rule keys it. A phrase that
//!   contains '(' is matched with the field's remarks. Nothing is matched by a substring;
//! - the values of the column's options, by the option table's own parsing (its values, their
//!   aliases and the values it names as not modelled, by the one name rule), part by part where
//!   parts are joined by '+' ("FP8 + BF16"); a part that names a yes/no option turns it on
//!   ("distributed optimizer"); Megatron-LM flags ("--overlap-grad-reduce") as the Megatron
//!   reader reads them.
struct ColumnVocabulary {
  std::string column;
  //! Whether parenthesised remarks are part of the value ("(async TP)" changes the run) or only
  //! commentary ("(--fp16, loss-scale 8192)"). A value with remarks that matter is read only by
  //! a phrase that writes them.
  bool remarks_matter = false;
  //! The option-table keys whose values the column holds, in the order they are tried.
  std::vector<std::string> options;
  std::vector<std::pair<std::string, ColumnReading>> spellings;
  ColumnReading when_missing;     //!< empty, n/a, none, - (or no such column)
  ColumnReading when_not_stated;  //!< "not stated ..." without a value of its own
  //! Whether the value, or a part of its remark, may name a built-in node design (the catalog's
  //! clusters), which is read first.
  bool names_node_design = false;
};

//! The columns read through a vocabulary, in the order a row is read: a refusal found first is
//! the one reported.
const std::vector<ColumnVocabulary>& calibration_vocabularies();

//! The node design an NVL72 rack names: the GPU's own rack (gb200-nvl72 for a GB200, gb300-nvl72
//! for a GB300), which must have 72-GPU NVLink domains.
inline constexpr const char* kRackOfTheGpu = "the GPU's NVL72 rack";

//! The reading of one value of `vocabulary`'s column (one part of it, for columns whose parts are
//! separated by ';'), or a refusal that names the closest value it knows.
ColumnReading read_column_value(const ColumnVocabulary& vocabulary, const PublishedField& field);

}  // namespace distsim::io
