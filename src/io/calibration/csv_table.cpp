#include "io/calibration/csv_table.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "core/plain_text.hpp"

namespace distsim::io {

namespace {

//! Splits the text into records of fields, remembering the line each record starts on.
class RecordSplitter {
 public:
  RecordSplitter(std::string_view text, const std::string& file_name) : text_(text), file_name_(file_name) {}

  bool next(std::vector<std::string>& fields, int& start_line) {
    fields.clear();
    if (pos_ >= text_.size()) return false;
    start_line = line_;
    std::string field;
    bool quoted = false;
    while (pos_ < text_.size()) {
      const char ch = text_[pos_++];
      if (quoted) {
        if (ch == '"' && pos_ < text_.size() && text_[pos_] == '"') {
          field += '"';
          ++pos_;
        } else if (ch == '"') {
          quoted = false;
        } else {
          if (ch == '\n') ++line_;
          field += ch;
        }
      } else if (ch == '"') {
        quoted = true;
      } else if (ch == ',') {
        fields.push_back(std::move(field));
        field.clear();
      } else if (ch == '\n') {
        ++line_;
        break;
      } else if (ch != '\r') {
        field += ch;
      }
    }
    if (quoted) {
      throw InputError(file_name_ + ":" + std::to_string(start_line) +
                       ": a quoted field is not closed before the end of the file");
    }
    fields.push_back(std::move(field));
    return true;
  }

 private:
  std::string_view text_;
  const std::string& file_name_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

CsvTable CsvTable::parse(std::string_view text, const std::string& file_name) {
  // Spreadsheet programs save "CSV UTF-8" with a byte-order mark, which is no part of the first name.
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (text.substr(0, kByteOrderMark.size()) == kByteOrderMark) {
    text.remove_prefix(kByteOrderMark.size());
  }
  CsvTable table;
  RecordSplitter splitter(text, file_name);
  std::vector<std::string> fields;
  int line = 0;
  if (!splitter.next(fields, line)) {
    throw InputError(file_name + ": the file is empty; expected a header row of column names");
  }
  for (auto& name : fields) {
    std::string column = trimmed(name);
    // A column given twice would be read from one of them and the other silently dropped.
    if (std::find(table.header_.begin(), table.header_.end(), column) != table.header_.end()) {
      throw InputError(file_name + ":" + std::to_string(line) + ": column '" + column +
                       "' is in the header twice; a column must be named once");
    }
    table.header_.push_back(std::move(column));
  }
  while (splitter.next(fields, line)) {
    if (fields.size() == 1 && trimmed(fields[0]).empty()) continue;
    if (fields.size() != table.header_.size()) {
      throw InputError(file_name + ":" + std::to_string(line) + ": " + std::to_string(fields.size()) +
                       " fields, but the header has " + std::to_string(table.header_.size()) + " columns");
    }
    table.rows_.push_back(fields);
    table.lines_.push_back(line);
  }
  if (table.rows_.empty()) {
    throw InputError(file_name + ": the file has a header but no rows; expected at least one row of data");
  }
  return table;
}

std::optional<std::size_t> CsvTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return std::nullopt;
}

std::string CsvTable::field(std::size_t row, std::string_view column_name) const {
  const auto index = column(column_name);
  return index ? trimmed(rows_[row][*index]) : std::string();
}

}  // namespace distsim::io
