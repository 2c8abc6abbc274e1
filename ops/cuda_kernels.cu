#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/cuda_kernels.h"

namespace sluice {

void RegisterCudaKernels(OpRegistry& registry) {
  RegisterBiasAddCudaKernels(registry);
  RegisterBinaryCudaKernels(registry);
  RegisterCastCudaKernels(registry);
  RegisterConcatCudaKernels(registry);
  RegisterCrossEntropyCudaKernels(registry);
  RegisterDropoutCudaKernels(registry);
  RegisterEmbeddingLookupCudaKernels(registry);
  RegisterFillCudaKernels(registry);
  RegisterMaskedMeanCudaKernels(registry);
  RegisterMatMulCudaKernels(registry);
  RegisterReduceCudaKernels(registry);
  RegisterReshapeCudaKernels(registry);
  RegisterSoftmaxCudaKernels(registry);
  RegisterUnaryCudaKernels(registry);
}

}  // namespace sluice
