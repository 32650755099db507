#include "cli/mpi_process_group.hpp"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "core/input_error.hpp"

#ifdef DISTSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace distsim::cli {

namespace {

//! How many processes the launcher says it started: 1 when it started none.
int launched_processes() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const char* value = std::getenv(name)) return std::max(1, std::atoi(value));
  }
  return std::getenv("PMIX_RANK") != nullptr ? 2 : 1;
}

#ifdef DISTSIM_HAVE_MPI
class MpiProcessGroup final : public search::ProcessGroup {
 public:
  MpiProcessGroup() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void sum(std::vector<double>& values) const override {
    MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  void broadcast(std::string& text, int from) const override {
    auto length = static_cast<long long>(text.size());
    MPI_Bcast(&length, 1, MPI_LONG_LONG, from, MPI_COMM_WORLD);
    text.resize(static_cast<std::size_t>(length));
    MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, from, MPI_COMM_WORLD);
  }

 private:
  int rank_ = 0;
  int size_ = 1;
};

std::unique_ptr<MpiProcessGroup>& group() {
  static std::unique_ptr<MpiProcessGroup> instance;
  return instance;
}
#endif

}  // namespace

#ifdef DISTSIM_HAVE_MPI
void start_mpi(int& argc, char**& argv) {
  if (launched_processes() <= 1 && std::getenv("PMIX_RANK") == nullptr) return;
  MPI_Init(&argc, &argv);
  group() = std::make_unique<MpiProcessGroup>();
  if (group()->rank() != 0) {
    (void)std::freopen("/dev/null", "w", stdout);
    (void)std::freopen("/dev/null", "w", stderr);
  }
}

const search::ProcessGroup* mpi_processes() { return group().get(); }

void stop_mpi() {
  if (group()) {
    group().reset();
    MPI_Finalize();
  }
}
#else
void start_mpi(int& /*argc*/, char**& /*argv*/) {
  if (const int processes = launched_processes(); processes > 1) {
    throw InputError("launched as " + std::to_string(processes) +
                     " processes, but this distsim was built without MPI: each would run the whole job alone; "
                     "install libopenmpi-dev and rebuild, or run one process");
  }
}

const search::ProcessGroup* mpi_processes() { return nullptr; }

void stop_mpi() {}
#endif

}  // namespace distsim::cli
