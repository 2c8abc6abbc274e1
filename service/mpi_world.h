// MpiWorld: this process's place in an Open MPI job (its rank among the
// world's) and the two collectives `sluice serve --mpi` exchanges its
// addresses with. Joining loads the Open MPI module (service/mpi_module.h)
// on demand, so a process that never joins never loads libmpi.
//
// Every rank of the job calls each collective in the same order. Lengths
// that arrive from other ranks are checked against kMaxMpiMessageBytes
// before anything is allocated.
// Thread safety: one thread only, the one that joined (MPI_THREAD_FUNNELED).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sluice/core/status.h"
#include "sluice/service/mpi_module.h"

namespace sluice::service {

// The most bytes one rank's message may hold.
inline constexpr int64_t kMaxMpiMessageBytes = int64_t{1} << 20;

class MpiWorld {
 public:
  // Loads the module and initialises MPI. FailedPrecondition when the
  // module or libmpi cannot be loaded, naming what and why.
  static Result<std::unique_ptr<MpiWorld>> Join();
  // Finalises MPI, unless LeaveWithoutFinalize was called.
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Rank 0's `bytes`, on every rank (the others' argument is not read).
  Result<std::string> Broadcast(const std::string& bytes);
  // Every rank's `bytes` in rank order, on rank 0; empty on the others.
  Result<std::vector<std::string>> Gather(const std::string& bytes);
  // For a rank that stops on SIGINT or SIGTERM: the destructor then skips
  // MPI_Finalize. mpirun sends SIGTERM to every rank as it takes a job
  // down, and MPI_Finalize would wait on its daemon, which is going (until
  // mpirun's SIGKILL a second later); a rank signalled alone would wait for
  // peers that still serve. Leaving without it has mpirun end the others.
  void LeaveWithoutFinalize() { finalize_ = false; }

 private:
  MpiWorld(const SluiceMpiFunctions* mpi, int rank, int size) : mpi_(mpi), rank_(rank), size_(size) {}
  // `what` failed with MPI's `code`, as a Status.
  Status Error(const std::string& what, int code) const;

  const SluiceMpiFunctions* const mpi_;
  const int rank_;
  const int size_;
  bool finalize_ = true;
};

}  // namespace sluice::service
