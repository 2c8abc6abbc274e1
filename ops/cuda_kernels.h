// RegisterCudaKernels: installs the CUDA kernel of every op that has one
// (ops/*.cu) into a registry whose ops are registered. RegisterAllOps calls
// it; in a build without nvcc it installs nothing (cuda_kernels_none.cc).
// Thread safety: as OpRegistry::SetKernel.
#pragma once

namespace sluice {

class OpRegistry;

void RegisterCudaKernels(OpRegistry& registry);

}  // namespace sluice
