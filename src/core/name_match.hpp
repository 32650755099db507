#pragma once

#include <string>
#include <string_view>

namespace distsim {

// Names as people write them: "Mixtral-8x7B", "mixtral_8x7b" and "Mixtral 8x7B" are one name, and
// "DeepSeekV3 (w/o MTP)" is the name "DeepSeekV3" with the remark "w/o MTP". Every reader that
// looks a name up (catalog entries, option values, published tables, launch settings) matches
// it by these rules and no others.

//! The name as it is compared: lower case, without '-', '_', '.', spaces and tabs. A '.' between
//! two digits is a decimal point and stays ("Llama 3.1" is not "Llama 31"; "1.5b" is not "15b").
std::string name_key(std::string_view name);

//! Whether `a` and `b` are one name by name_key.
bool same_name(std::string_view a, std::string_view b);

//! A name and the remarks written after it in parentheses.
struct RemarkedName {
  std::string name;    //!< the text outside parentheses, spaces collapsed and trimmed
  std::string remark;  //!< the text inside the outermost parentheses, several joined by "; "
};

//! Splits "GPT 175B (GPT-3)" into "GPT 175B" and "GPT-3"; parentheses may nest and sit anywhere.
RemarkedName split_remark(std::string_view text);

}  // namespace distsim
