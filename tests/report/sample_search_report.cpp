// Writes a search report filled by hand, so the page can be rendered and looked at without
// running a search. The numbers are made up for the picture, not results of distsim.
#include <fstream>
#include <iostream>

#include "io/report/html_report.hpp"

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

distsim::io::SearchReportRow ok(const char* label, double iteration_s, double mfu, double bubble, double peak_gib,
                                bool pareto = false) {
  // Global batch 16: samples per second is 16 over the iteration time.
  return {label, "ok", "", iteration_s, 16 / iteration_s, mfu, bubble, peak_gib * kGiB, pareto};
}

distsim::io::SearchReport sample() {
  distsim::io::SearchReport report;
  report.title = "Sample search report: bert-exlarge on 4 × 4 a10";
  report.description =
      "Hand-filled numbers to show the layout (not a simulation). Global batch 16, "
      "micro-batch sizes 1 and 2, 1f1b; sorted by throughput.";
  report.memory_capacity_bytes = 24 * kGiB;
  report.table_rows = 8;
  report.rows = {
      ok("1M8P2D mbs 1 1f1b", 0.340, 0.412, 0.30, 7.9, true),
      ok("2M8P1D mbs 1 1f1b", 0.343, 0.408, 0.44, 5.1, true),
      ok("1M16P1D mbs 1 1f1b", 0.352, 0.398, 0.48, 4.2, true),
      ok("1M4P4D mbs 1 1f1b", 0.371, 0.377, 0.16, 12.6),
      ok("2M4P2D mbs 1 1f1b", 0.402, 0.348, 0.27, 8.1),
      ok("1M4P4D mbs 2 1f1b", 0.415, 0.337, 0.08, 15.8),
      ok("4M4P1D mbs 1 1f1b", 0.498, 0.281, 0.39, 4.6),
      ok("2M2P4D mbs 1 1f1b", 0.522, 0.268, 0.09, 14.2),
      ok("1M2P8D mbs 1 1f1b", 0.610, 0.229, 0.06, 21.7),
      ok("4M2P2D mbs 1 1f1b", 0.688, 0.203, 0.18, 9.0),
      ok("8M2P1D mbs 1 1f1b", 1.105, 0.127, 0.33, 4.9),
      ok("2M1P8D mbs 1 1f1b", 1.310, 0.107, 0.0, 19.5),
      ok("4M1P4D mbs 1 1f1b", 1.720, 0.081, 0.0, 11.3),
      ok("8M1P2D mbs 1 1f1b", 2.240, 0.062, 0.0, 7.6),
      ok("16M1P1D mbs 1 1f1b", 2.512, 0.056, 0.0, 4.3, false),
      {"1M1P16D mbs 1 1f1b", "out of memory", "stage 0 needs 27.9 GiB, the a10 has 24 GiB", 0, 0, 0, 0, 27.9 * kGiB,
       false},
      {"1M1P16D mbs 2 1f1b", "out of memory", "stage 0 needs 31.2 GiB, the a10 has 24 GiB", 0, 0, 0, 0, 31.2 * kGiB,
       false},
      {"1M16P1D mbs 2 1f1b", "invalid", "micro-batch 2 × data parallel 1 leaves 8 micro-batches < 16 stages", 0, 0, 0,
       0, 0, false},
      {"1M1P16D mbs 2 gpipe", "invalid", "global batch 16 is not divisible by micro-batch 2 × data parallel 16", 0, 0,
       0, 0, 0, false},
  };
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: sample_search_report OUT.html\n";
    return 2;
  }
  std::ofstream out(argv[1]);
  distsim::io::write_search_report(out, sample());
  return out ? 0 : 1;
}
