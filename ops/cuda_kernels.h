// RegisterCudaKernels: installs the CUDA kernel of every op that has one
// (ops/*.cu) into a registry whose ops are registered. Part of sluice_cuda;
// RegisterCudaBackend (model/cuda_backend.h) calls it on the global registry.
// Thread safety: as OpRegistry::SetKernel.
#pragma once

namespace sluice {

class OpRegistry;

void RegisterCudaKernels(OpRegistry& registry);

}  // namespace sluice
