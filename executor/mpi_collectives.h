// MpiCollectives: the Collectives (executor/collectives.h) of an Open MPI
// job, over MPI_COMM_WORLD: this process is one rank of the processes
// `mpirun -np N` started. Joining loads the Open MPI module on demand
// (executor/mpi_module_loader.h), so a process that never joins never
// loads libmpi.
//
// Lengths that arrive from other ranks are checked before anything is
// allocated; messages longer than MPI's int counts are split.
// Thread safety: one thread only, the one that joined (MPI_THREAD_FUNNELED).
#pragma once

#include <memory>

#include "sluice/executor/collectives.h"
#include "sluice/executor/mpi_module.h"

namespace sluice {

class MpiCollectives final : public Collectives {
 public:
  // Loads the module and initialises MPI. FailedPrecondition when the
  // module or libmpi cannot be loaded, or MPI_Init_thread fails, naming
  // what and why.
  static Result<std::unique_ptr<MpiCollectives>> Join();
  // Finalises MPI, unless LeaveWithoutFinalize was called.
  ~MpiCollectives() override;
  MpiCollectives(const MpiCollectives&) = delete;
  MpiCollectives& operator=(const MpiCollectives&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Status AllReduce(Tensor& tensor, ReduceOp op) override;
  Result<std::unique_ptr<PendingAllReduce>> StartAllReduce(Tensor& tensor, ReduceOp op) override;
  Status Broadcast(Tensor& tensor) override;
  Status Barrier() override;
  Result<std::vector<double>> AllGather(double value) override;
  Result<std::vector<int64_t>> AllGather(int64_t value) override;
  Result<std::vector<std::string>> Gather(const std::string& bytes, int64_t max_bytes) override;

  // Ends every rank of the job with exit status `code` (MPI_Abort), for a
  // rank that failed: the others would otherwise wait in their next
  // collective forever. Does not return.
  [[noreturn]] void Abort(int code);
  // For a rank that stops on a signal: the destructor then skips
  // MPI_Finalize, which would wait on an mpirun daemon that is going, or on
  // peers that still run.
  void LeaveWithoutFinalize() { finalize_ = false; }

 private:
  MpiCollectives(const SluiceMpiFunctions* mpi, int rank, int size) : mpi_(mpi), rank_(rank), size_(size) {}
  // `call` failed with MPI's `code`, as a Status naming this rank.
  Status Error(std::string_view call, int code) const;

  const SluiceMpiFunctions* const mpi_;
  const int rank_;
  const int size_;
  bool finalize_ = true;
};

}  // namespace sluice
