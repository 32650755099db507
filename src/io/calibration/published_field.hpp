#pragma once

#include <string>
#include <string_view>

namespace distsim::io {

//! A field of a published-runs table as its authors write it: a value, remarks in parentheses,
//! and sometimes the admission that the source does not say ("not stated").
struct PublishedField {
  std::string text;    //!< the field as written
  std::string value;   //!< without parenthesised remarks, lower case, spaces collapsed
  std::string remark;  //!< the parenthesised remarks (split_remark)
  //! Empty, "n/a", "na", "none" or "-" (by the name rule): the table says the setting does not
  //! apply, which every column reads as its default (off, one, absent).
  bool missing = false;
  //! The field says the source does not state it: its value, if any, is the table compiler's
  //! inference, and the reader records what it uses as an assumption.
  bool not_stated = false;
};

PublishedField read_published_field(std::string_view text);

}  // namespace distsim::io
