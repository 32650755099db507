#include "core/name_match.hpp"

#include <cctype>

namespace distsim {

namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

bool is_separator(std::string_view name, std::size_t i) {
  const char c = name[i];
  if (c == '.') return !(i > 0 && i + 1 < name.size() && is_digit(name[i - 1]) && is_digit(name[i + 1]));
  return c == '-' || c == '_' || c == ' ' || c == '\t';
}

void append_collapsed(std::string& text, char c) {
  const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
  if (!space) {
    text += c;
  } else if (!text.empty() && text.back() != ' ') {
    text += ' ';
  }
}

void trim_trailing_space(std::string& text) {
  while (!text.empty() && text.back() == ' ') text.pop_back();
}

}  // namespace

std::string name_key(std::string_view name) {
  std::string key;
  key.reserve(name.size());
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (!is_separator(name, i)) key += static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  }
  return key;
}

bool same_name(std::string_view a, std::string_view b) { return name_key(a) == name_key(b); }

RemarkedName split_remark(std::string_view text) {
  RemarkedName split;
  std::string remark;
  const auto end_remark = [&split, &remark] {
    trim_trailing_space(remark);
    if (!remark.empty()) split.remark += (split.remark.empty() ? "" : "; ") + remark;
    remark.clear();
  };
  int depth = 0;
  for (const char c : text) {
    if (c == '(') {
      if (depth++ > 0) remark += c;
    } else if (c == ')' && depth > 0) {
      if (--depth > 0) {
        remark += c;
      } else {
        end_remark();
      }
    } else if (depth > 0) {
      append_collapsed(remark, c);
    } else {
      // "FSDP 32 (ZeRO-3), TP 8" reads "FSDP 32, TP 8": no space left before the comma.
      if ((c == ',' || c == ';') && !split.name.empty() && split.name.back() == ' ') split.name.pop_back();
      append_collapsed(split.name, c);
    }
  }
  end_remark();  // an unclosed parenthesis: its remark runs to the end
  trim_trailing_space(split.name);
  return split;
}

}  // namespace distsim
