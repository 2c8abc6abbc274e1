// CUDA kernels of embedding_lookup (a row gather) and its backward op
// embedding_lookup_grad (a scatter-add with atomicAdd, since ids repeat)
// from ops/embedding_lookup.cc. Ids are checked on the device first, with
// the CPU kernel's error.
#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

template <typename T>
__global__ void GatherKernel(const T* table, const void* ids, bool ids_int32, T* out, int64_t n, int64_t depth) {
  SLUICE_CUDA_FOR_EACH(i, n) out[i] = table[LoadIndex(ids, ids_int32, i / depth) * depth + i % depth];
}

template <typename T>
__global__ void ScatterAddKernel(const void* ids, bool ids_int32, const T* g, T* dtable, int64_t n, int64_t depth) {
  SLUICE_CUDA_FOR_EACH(i, n) atomicAdd(&dtable[LoadIndex(ids, ids_int32, i / depth) * depth + i % depth], g[i]);
}

Status CheckIds(std::string_view op, const Tensor& ids, int64_t rows, cudaStream_t stream) {
  SLUICE_ASSIGN_OR_RETURN(std::optional<BadIndex> bad, FindIndexOutOfRange(ids, rows, stream));
  if (bad) return IdOutOfRangeError(op, ids.shape(), bad->position, bad->value, rows);
  return OkStatus();
}

Status EmbeddingLookup(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const Tensor& table = inputs[0];
  const Tensor& ids = inputs[1];
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(table));
  SLUICE_RETURN_IF_ERROR(CheckIds("embedding_lookup", ids, table.dim(0), launch.stream));
  const int64_t n = outputs[0].NumElements(), depth = table.dim(1);
  if (n == 0) return OkStatus();
  VisitFloating(table.dtype(), [&](auto zero) {
    using T = decltype(zero);
    GatherKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(
        table.data<T>(), ids.raw_data(), ids.dtype() == DType::kInt32, outputs[0].mutable_data<T>(), n, depth);
  });
  return LaunchStatus("GatherKernel");
}

Status EmbeddingLookupGrad(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const Tensor& ids = inputs[0];
  const Tensor& g = inputs[1];
  Tensor& dtable = outputs[0];
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(dtable));
  SLUICE_RETURN_IF_ERROR(CheckIds("embedding_lookup_grad", ids, dtable.dim(0), launch.stream));
  if (dtable.NumBytes() == 0) return OkStatus();
  SLUICE_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(dtable.raw_data(), 0, dtable.NumBytes(), launch.stream));
  const int64_t n = g.NumElements(), depth = dtable.dim(1);
  if (n == 0) return OkStatus();
  VisitFloating(dtable.dtype(), [&](auto zero) {
    using T = decltype(zero);
    ScatterAddKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(
        ids.raw_data(), ids.dtype() == DType::kInt32, g.data<T>(), dtable.mutable_data<T>(), n, depth);
  });
  return LaunchStatus("ScatterAddKernel");
}

}  // namespace

void RegisterEmbeddingLookupCudaKernels(OpRegistry& registry) {
  registry.SetKernel("embedding_lookup", DeviceType::kCuda, EmbeddingLookup);
  registry.SetKernel("embedding_lookup_grad", DeviceType::kCuda, EmbeddingLookupGrad);
}

}  // namespace sluice
