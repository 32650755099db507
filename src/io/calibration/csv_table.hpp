#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distsim::io {

//! A CSV file read into memory (RFC 4180: quoted fields may hold commas, newlines and doubled
//! quotes). Every row has as many fields as the header; `line` is where each row starts.
class CsvTable {
 public:
  //! Throws InputError naming `file_name` and the line of an unterminated quote or a row with
  //! the wrong number of fields.
  static CsvTable parse(std::string_view text, const std::string& file_name);

  const std::vector<std::string>& header() const { return header_; }
  std::size_t rows() const { return rows_.size(); }
  int line(std::size_t row) const { return lines_[row]; }
  std::optional<std::size_t> column(std::string_view name) const;
  //! The field, trimmed of surrounding spaces; empty when the column does not exist.
  std::string field(std::size_t row, std::string_view column_name) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> lines_;
};

}  // namespace distsim::io
