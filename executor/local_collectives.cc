#include "sluice/executor/local_collectives.h"

namespace sluice {
namespace {

// An all-reduce over one rank: done when started.
class DonePendingAllReduce final : public PendingAllReduce {
 public:
  Result<bool> Test() override { return true; }
  Status Wait() override { return OkStatus(); }
};

}  // namespace

Status LocalCollectives::AllReduce(Tensor& tensor, ReduceOp) { return CheckReducible(tensor, "AllReduce"); }

Result<std::unique_ptr<PendingAllReduce>> LocalCollectives::StartAllReduce(Tensor& tensor, ReduceOp) {
  SLUICE_RETURN_IF_ERROR(CheckReducible(tensor, "StartAllReduce"));
  return std::unique_ptr<PendingAllReduce>(new DonePendingAllReduce);
}

Status LocalCollectives::Broadcast(Tensor& tensor) { return CheckBroadcastable(tensor); }

Result<std::vector<std::string>> LocalCollectives::Gather(const std::string& bytes, int64_t max_bytes) {
  SLUICE_RETURN_IF_ERROR(CheckGatherLength(bytes, max_bytes));
  return std::vector<std::string>{bytes};
}

}  // namespace sluice
