// CudaFusedUpdateKernels: the fused optimizer kernels of fused_updates.cu
// (model/fused_updates.h). Part of sluice_cuda; RegisterCudaBackend
// (model/cuda_backend.h) installs them.
// Thread safety: a pure function.
#pragma once

#include "sluice/model/fused_updates.h"

namespace sluice {

FusedUpdateKernels CudaFusedUpdateKernels();

}  // namespace sluice
