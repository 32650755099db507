#pragma once

#include <string>
#include <vector>

namespace distsim::search {

//! The processes that share one search (one per MPI rank). Each simulates its share of every
//! batch of candidates and the group makes every process end with every result, so that each
//! one ranks, prunes and would write exactly what a single process does. The search core knows
//! nothing of MPI: the CLI's edge supplies an implementation (cli/mpi_process_group).
class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;  //!< this process, 0 .. size - 1
  virtual int size() const = 0;
  //! Every process ends with the element-wise sum over the processes of `values` (the same
  //! length on each). A process fills only its own entries and leaves zeros elsewhere, so the
  //! sum is each entry's one value, exactly.
  virtual void sum(std::vector<double>& values) const = 0;
  //! Every process ends with process `from`'s `text`.
  virtual void broadcast(std::string& text, int from) const = 0;
};

}  // namespace distsim::search
