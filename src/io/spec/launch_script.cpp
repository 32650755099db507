#include "io/spec/launch_script.hpp"

#include <cctype>
#include <map>

namespace distsim::io {

namespace {

//! The words of `text` as sh splits them: whitespace outside quotes ends a word; single quotes
//! keep everything, double quotes and backslashes escape; a backslash before a newline joins the
//! lines; '#' at the start of a word runs to the end of the line.
std::vector<std::string> shell_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  const auto end_word = [&] {
    if (in_word) words.push_back(word);
    word.clear();
    in_word = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      if (text[i + 1] != '\n') {
        word += text[i + 1];
        in_word = true;
      }
      ++i;
    } else if (c == '\'' || c == '"') {
      const std::size_t close = text.find(c, i + 1);
      word += text.substr(i + 1, (close == std::string_view::npos ? text.size() : close) - i - 1);
      in_word = true;
      i = close == std::string_view::npos ? text.size() : close;
    } else if (c == '#' && !in_word) {
      const std::size_t newline = text.find('\n', i);
      i = newline == std::string_view::npos ? text.size() : newline;
    } else if (std::isspace(static_cast<unsigned char>(c)) != 0 || c == ';') {
      end_word();
    } else {
      word += c;
      in_word = true;
    }
  }
  end_word();
  return words;
}

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

//! The length of NAME in "NAME=value", or 0 when the word is no assignment.
std::size_t assigned_name_length(const std::string& word) {
  std::size_t i = 0;
  while (i < word.size() && is_identifier_char(word[i])) ++i;
  const bool starts_with_letter = !word.empty() && std::isdigit(static_cast<unsigned char>(word[0])) == 0;
  return i > 0 && starts_with_letter && i < word.size() && word[i] == '=' ? i : 0;
}

class ScriptReader {
 public:
  std::vector<LaunchFlag> read(std::string_view script) {
    read_words(shell_words(script));
    return std::move(flags_);
  }

 private:
  void read_words(const std::vector<std::string>& words) {
    for (std::string raw : words) {
      if (in_array_ && !raw.empty() && raw.back() == ')') {
        raw.pop_back();  // the array's closing parenthesis
        in_array_ = false;
      }
      if (raw.empty() || raw == "export") continue;
      if (const std::size_t name = assigned_name_length(raw); name > 0) {
        assign(raw.substr(0, name), raw.substr(name + 1));
        continue;
      }
      // An unquoted expansion splits into words, as sh splits it.
      const std::string text = substituted(raw);
      if (text == raw) {
        word(text);
      } else {
        for (const auto& part : shell_words(text)) word(part);
      }
    }
  }

  //! A bash array `NAME=(...)` gives its words where it is set: they are read as any other words.
  void assign(const std::string& name, const std::string& value) {
    if (value.empty() || value.front() != '(') {
      variables_[name] = substituted(value);
      return;
    }
    in_array_ = true;
    read_words({value.substr(1)});
  }

  void word(const std::string& text) {
    if (text.rfind("--", 0) == 0 && text.size() > 2) {
      const std::size_t equals = text.find('=');
      flags_.push_back({text.substr(0, equals), {}});
      if (equals != std::string::npos) flags_.back().words.push_back(text.substr(equals + 1));
    } else if (!flags_.empty()) {
      flags_.back().words.push_back(text);
    }
  }

  //! `text` with each $NAME and ${NAME} the script set replaced by its value.
  std::string substituted(const std::string& text) const {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '$') {
        out += text[i];
        continue;
      }
      const bool braced = i + 1 < text.size() && text[i + 1] == '{';
      std::size_t start = i + (braced ? 2 : 1);
      std::size_t stop = start;
      while (stop < text.size() && is_identifier_char(text[stop])) ++stop;
      const bool closed = !braced || (stop < text.size() && text[stop] == '}');
      const auto found = variables_.find(text.substr(start, stop - start));
      if (stop == start || !closed || found == variables_.end()) {
        out += text[i];
        continue;
      }
      out += found->second;
      i = stop - (braced ? 0 : 1);
    }
    return out;
  }

  std::map<std::string, std::string> variables_;
  std::vector<LaunchFlag> flags_;
  bool in_array_ = false;
};

}  // namespace

std::vector<LaunchFlag> launch_flags(std::string_view script) { return ScriptReader().read(script); }

}  // namespace distsim::io
