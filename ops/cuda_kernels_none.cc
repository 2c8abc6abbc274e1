// A build without nvcc: no CUDA kernels to install.
#include "sluice/ops/cuda_kernels.h"

namespace sluice {

void RegisterCudaKernels(OpRegistry&) {}

}  // namespace sluice
