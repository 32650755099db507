#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace distsim::io {

//! The statuses the search report knows how to draw; any other text is shown as given.
inline constexpr std::string_view kSearchStatusOk = "ok";
inline constexpr std::string_view kSearchStatusOutOfMemory = "out of memory";
inline constexpr std::string_view kSearchStatusInvalid = "invalid";

//! One candidate strategy of a search, as the report shows it.
struct SearchReportRow {
  std::string label;            //!< e.g. "2M8P1D mbs 1 1f1b"
  std::string status;           //!< "ok", "out of memory" or "invalid"
  std::string reason;           //!< why it is invalid or out of memory; empty when ok
  double iteration_time_s = 0;  //!< 0 when not simulated
  double samples_per_s = 0;
  double mfu = 0;                //!< fraction, 0..1
  double bubble_fraction = 0;    //!< fraction, 0..1
  double peak_memory_bytes = 0;  //!< per GPU, the largest over stages; 0 when unknown
  bool pareto = false;           //!< on the front of iteration time versus peak memory
  //! Candidates with exactly the same results, collapsed into this row (their labels).
  std::vector<std::string> same_as{};
  int gpus = 0;  //!< the GPUs it uses; shown when the candidates use different numbers
  //! Days to train the search's tokens, failures and checkpoints included (docs/goodput.md); 0
  //! when not simulated.
  double expected_days = 0;
};

//! Everything a search report shows, filled by the caller from the search result. Rows are drawn
//! in the order given (rank them first), both in the bar chart and in the table.
struct SearchReport {
  std::string title;                 //!< e.g. "Strategy search: bert-exlarge on 4 × 4 A10"
  std::string description;           //!< the job and the space searched, one line or a few
  std::string settings;              //!< the job's settings and the searched flags (search_settings_text)
  double memory_capacity_bytes = 0;  //!< the GPU's memory, drawn as the limit; 0 when unknown
  std::size_t table_rows = 10;       //!< how many of the first rows the table lists
  //! How many of the first rows the bar chart draws; a histogram shows the throughput of all.
  std::size_t chart_rows = 40;
  bool show_gpus = false;           //!< a GPU column, for a search over several cluster sizes
  bool show_expected_days = false;  //!< an expected-days column, for a search given tokens to train
  //! How far the front reaches, e.g. "at most 2× the best iteration time"; empty for every candidate.
  std::string front_reach;
  std::vector<SearchReportRow> rows;
};

}  // namespace distsim::io
