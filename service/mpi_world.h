// MpiWorld: this process's place in an Open MPI job (its rank among the
// world's) and the two collectives `sluice serve --mpi` exchanges its
// addresses with, on the executor's MpiCollectives
// (executor/mpi_collectives.h): joining loads the Open MPI module on demand,
// so a process that never joins never loads libmpi.
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
#include "sluice/executor/mpi_collectives.h"

namespace sluice::service {

// The most bytes one rank's message may hold.
inline constexpr int64_t kMaxMpiMessageBytes = int64_t{1} << 20;

class MpiWorld {
 public:
  // Loads the module and initialises MPI. FailedPrecondition when the
  // module or libmpi cannot be loaded, naming what and why.
  static Result<std::unique_ptr<MpiWorld>> Join();
  int rank() const { return collectives_->rank(); }
  int size() const { return collectives_->size(); }

  // Rank 0's `bytes`, on every rank (the others' argument is not read).
  Result<std::string> Broadcast(const std::string& bytes);
  // Every rank's `bytes` in rank order, on rank 0; empty on the others.
  Result<std::vector<std::string>> Gather(const std::string& bytes);
  // For a rank that stops on SIGINT or SIGTERM: the destructor then skips
  // MPI_Finalize. mpirun sends SIGTERM to every rank as it takes a job
  // down, and MPI_Finalize would wait on its daemon, which is going (until
  // mpirun's SIGKILL a second later); a rank signalled alone would wait for
  // peers that still serve. Leaving without it has mpirun end the others.
  void LeaveWithoutFinalize() { collectives_->LeaveWithoutFinalize(); }

 private:
  explicit MpiWorld(std::unique_ptr<MpiCollectives> collectives) : collectives_(std::move(collectives)) {}

  // Finalises MPI when it goes, unless LeaveWithoutFinalize was called.
  const std::unique_ptr<MpiCollectives> collectives_;
};

}  // namespace sluice::service
