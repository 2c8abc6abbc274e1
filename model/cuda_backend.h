// RegisterCudaBackend: the one call that gives a program Sluice's GPU path.
// The CPU libraries (sluice_ops, sluice_executor, sluice_model, ...) never
// link CUDA, so the CLI, the Python module and every CPU program start
// without the CUDA runtime or cuBLAS. A program that uses a GPU links
// sluice_cuda (built where nvcc exists: the CUDA kernels, devices, streams,
// allocators, copies, prefetcher and fused optimizer updates) and calls
//
//   sluice::RegisterCudaBackend();  // once, at start-up
//
// which installs every op's CUDA kernel in OpRegistry::Global() and the
// executor's and optimizers' GPU functions (executor/gpu_backend.h,
// model/fused_updates.h). Without it a tensor on a GPU is a
// FailedPrecondition that says so. Registering needs no GPU: on a machine
// without one, GPU calls return CUDA's reason instead.
// Thread safety: safe from any thread, and calls after the first do
// nothing; call it before ops run on other threads (OpRegistry::SetKernel).
#pragma once

namespace sluice {

void RegisterCudaBackend();

}  // namespace sluice
