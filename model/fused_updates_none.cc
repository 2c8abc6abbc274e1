// A build without nvcc: no tensor is ever on a GPU.
#include "sluice/model/fused_updates.h"

namespace sluice {
namespace {

Status NoCuda() { return FailedPreconditionError("fused optimizer updates need CUDA: Sluice was built without it"); }

}  // namespace

Status SgdUpdateOnDevice(Tensor&, const Tensor&, Tensor*, const SgdStep&) { return NoCuda(); }
Status AdamUpdateOnDevice(Tensor&, Tensor&, Tensor&, const Tensor&, const AdamStep&) { return NoCuda(); }
Result<std::vector<double>> SumsOfSquaresOnDevice(std::span<const Tensor>) { return NoCuda(); }

}  // namespace sluice
