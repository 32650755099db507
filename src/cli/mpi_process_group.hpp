#pragma once

#include "search/process_group.hpp"

namespace distsim::cli {

//! The MPI processes that `mpirun -n N distsim search ...` (or Slurm's `srun`) started, as the
//! search's process group. Built only where MPI was found at configure time.
//!
//! `start_mpi` initializes MPI when the launcher's environment says this process is one of
//! several (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK), and silences the standard output and
//! error of every process but rank 0, which alone prints and writes files. It throws InputError
//! when several processes were launched but this build has no MPI (each would print the same).
void start_mpi(int& argc, char**& argv);
//! The group, or null when MPI was not started (a single process).
const search::ProcessGroup* mpi_processes();
//! Finalizes MPI if it was started.
void stop_mpi();

}  // namespace distsim::cli
