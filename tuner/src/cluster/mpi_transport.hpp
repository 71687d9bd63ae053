// The Transport over MPI's C API (OpenMPI, MPICH): MPI_COMM_WORLD, every message a JSON text
// (MessagePack) on one tag, sent with MPI_Isend and received with MPI_Iprobe / MPI_Recv, so that
// no call waits on one rank. Built only when CMake finds MPI (ADAEXPLORE_HAVE_MPI).
//
// MPI's default error handler on MPI_COMM_WORLD is MPI_ERRORS_ARE_FATAL: an error in any MPI
// call (a peer that died, among others) aborts every process of the job. This transport sets
// MPI_ERRORS_RETURN instead: a send that fails is dropped, a receive that fails is not delivered,
// and nothing waits on one peer; a peer that stops answering, for whatever reason, is declared
// lost by the heartbeats above it (cluster.hpp).
// The launcher decides what a dead process does to the others: OpenMPI's mpirun kills the whole
// job unless started with --enable-recovery; Slurm's srun kills the step's other tasks only with
// --kill-on-bad-exit=1 (docs/cluster.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cluster/transport.hpp"

namespace adaexplore {

/// Whether this tuner was built with MPI.
bool mpi_available();

/// MPI_Init_thread (MPI_THREAD_SERIALIZED: one thread at a time calls MPI) on construction,
/// MPI_Finalize on destruction. Throws std::runtime_error when this tuner was built without MPI,
/// saying how to build it with.
std::unique_ptr<Transport> make_mpi_transport();

/// Every rank's `mine`, in rank order, on every rank (MPI_Allgather of the lengths, then
/// MPI_Allgatherv): a collective, so every rank of MPI_COMM_WORLD must call it once, after
/// make_mpi_transport() and before the transport's messages start (tune --mpi's start check:
/// each rank's error, or ""). Throws std::runtime_error when an MPI call fails or this tuner was
/// built without MPI.
std::vector<std::string> mpi_allgather(const std::string& mine);


}  // namespace adaexplore
