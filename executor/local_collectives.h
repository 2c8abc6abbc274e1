// LocalCollectives: the Collectives (executor/collectives.h) of a job of
// one process: every reduction, broadcast and gather returns this rank's
// own values. What a Trainer uses when no MPI world is there, and what the
// collectives' callers are tested against.
// Thread safety: one thread, as every Collectives.
#pragma once

#include "sluice/executor/collectives.h"

namespace sluice {

class LocalCollectives final : public Collectives {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Status AllReduce(Tensor& tensor, ReduceOp op) override;
  Result<std::unique_ptr<PendingAllReduce>> StartAllReduce(Tensor& tensor, ReduceOp op) override;
  Status Broadcast(Tensor& tensor) override;
  Status Barrier() override { return OkStatus(); }
  Result<std::vector<double>> AllGather(double value) override { return std::vector<double>{value}; }
  Result<std::vector<int64_t>> AllGather(int64_t value) override { return std::vector<int64_t>{value}; }
  Result<std::vector<std::string>> Gather(const std::string& bytes, int64_t max_bytes) override;
};

}  // namespace sluice
