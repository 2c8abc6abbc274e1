// Collectives: the communication data-parallel training needs between the
// processes (ranks) of one job, as an interface with one implementation
// per transport: MpiCollectives (executor/mpi_collectives.h, Open MPI) and
// LocalCollectives (executor/local_collectives.h, one process). A NCCL
// backend would be a third.
//
// Every call is collective: every rank makes the same calls in the same
// order (started all-reduces included), or the job hangs or fails.
// Reductions take host tensors of float32 or float64, broadcasts host
// tensors of any numeric dtype; both work in place, on bytes the caller
// owns (it allocated them and shares them with nobody while the call runs). Errors are Status values
// naming the call and the rank.
// Thread safety: one thread of each rank makes every call (the one that
// made the object).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sluice/core/status.h"
#include "sluice/core/tensor.h"

namespace sluice {

enum class ReduceOp {
  kSum,
  kMean,  // the sum divided by the number of ranks
};

// A started all-reduce. Its tensor is not to be read or written until Test
// says true or Wait returns; destroying it unfinished waits for it.
class PendingAllReduce {
 public:
  virtual ~PendingAllReduce() = default;
  // Whether it is done (and the tensor holds the result); also lets the
  // transport make progress, so call it now and then while computing.
  virtual Result<bool> Test() = 0;
  // Waits until it is done.
  virtual Status Wait() = 0;
};

class Collectives {
 public:
  virtual ~Collectives() = default;

  virtual int rank() const = 0;  // in [0, size)
  virtual int size() const = 0;  // the number of ranks, >= 1

  // `tensor` reduced element-wise over the ranks, on every rank.
  virtual Status AllReduce(Tensor& tensor, ReduceOp op) = 0;
  // The same, started: the transport moves the bytes while the caller goes
  // on (the gradient buckets of executor/gradient_buckets.h).
  virtual Result<std::unique_ptr<PendingAllReduce>> StartAllReduce(Tensor& tensor, ReduceOp op) = 0;
  // Rank 0's values of `tensor` into every rank's `tensor` (of the same
  // dtype and shape on every rank: InvalidArgument otherwise).
  virtual Status Broadcast(Tensor& tensor) = 0;
  // Returns once every rank has called it.
  virtual Status Barrier() = 0;
  // Every rank's `value`, in rank order, on every rank.
  virtual Result<std::vector<double>> AllGather(double value) = 0;
  virtual Result<std::vector<int64_t>> AllGather(int64_t value) = 0;
  // Every rank's `bytes`, in rank order, on rank 0; empty on the others.
  // Each rank's may hold at most `max_bytes` (the same on every rank, at
  // most kMaxGatherBytes): InvalidArgument on a rank that has more,
  // DataLoss on rank 0 when a rank sent more, before anything is allocated.
  virtual Result<std::vector<std::string>> Gather(const std::string& bytes, int64_t max_bytes) = 0;
};

// The most bytes one rank may contribute to a Gather.
inline constexpr int64_t kMaxGatherBytes = int64_t{64} << 20;

// InvalidArgument unless `bytes` holds at most `max_bytes`, itself at most
// kMaxGatherBytes.
Status CheckGatherLength(const std::string& bytes, int64_t max_bytes);

// InvalidArgument unless `tensor` is a host float32/float64 tensor, naming
// `call` (e.g. "AllReduce").
Status CheckReducible(const Tensor& tensor, std::string_view call);
// InvalidArgument unless `tensor` is a valid host tensor of a numeric dtype.
Status CheckBroadcastable(const Tensor& tensor);

}  // namespace sluice
