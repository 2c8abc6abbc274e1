// CUDA kernels of concat and concat_slice (ops/concat.cc): each input (or
// the slice) is `outer` runs of contiguous bytes, so one strided 2-D copy
// (cudaMemcpy2DAsync) per input does it, ordered on the compute stream.
#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

// A tensor seen as [outer, dim(axis), inner], as the CPU kernel splits it.
struct AxisSplit {
  int64_t outer = 1;
  int64_t inner_bytes = 0;  // bytes of one step along the axis
};

AxisSplit SplitAt(const Tensor& t, int axis) {
  AxisSplit split{.inner_bytes = static_cast<int64_t>(DTypeSize(t.dtype()))};
  for (int d = 0; d < axis; ++d) split.outer *= t.dim(d);
  for (int d = axis + 1; d < t.rank(); ++d) split.inner_bytes *= t.dim(d);
  return split;
}

Status CopyRuns(const void* src, int64_t src_stride, void* dst, int64_t dst_stride, int64_t rows, int64_t bytes,
                cudaStream_t stream) {
  if (bytes == 0 || rows == 0) return OkStatus();
  SLUICE_CUDA_RETURN_IF_ERROR(cudaMemcpy2DAsync(dst, dst_stride, src, src_stride, bytes, rows,
                                                cudaMemcpyDeviceToDevice, stream));
  return OkStatus();
}

Status Concat(std::span<const Tensor> inputs, const OpAttrs& attrs, std::span<Tensor> outputs) {
  Tensor& out = outputs[0];
  if (out.NumBytes() == 0) return OkStatus();
  const int64_t axis_attr = attrs.GetInt("axis");
  const int axis = static_cast<int>(axis_attr < 0 ? axis_attr + out.rank() : axis_attr);
  const AxisSplit split = SplitAt(out, axis);
  const int64_t out_stride = out.dim(axis) * split.inner_bytes;
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(out));
  auto* dst = static_cast<char*>(out.raw_data());
  for (const Tensor& input : inputs) {
    const int64_t bytes = input.dim(axis) * split.inner_bytes;
    SLUICE_RETURN_IF_ERROR(CopyRuns(input.raw_data(), bytes, dst, out_stride, split.outer, bytes, launch.stream));
    dst += bytes;
  }
  return OkStatus();
}

Status ConcatSlice(std::span<const Tensor> inputs, const OpAttrs& attrs, std::span<Tensor> outputs) {
  const Tensor& x = inputs[0];
  if (outputs[0].NumBytes() == 0) return OkStatus();
  const int axis = static_cast<int>(attrs.GetInt("axis"));
  const AxisSplit split = SplitAt(x, axis);
  const int64_t bytes = attrs.GetInt("size") * split.inner_bytes;
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(x));
  return CopyRuns(static_cast<const char*>(x.raw_data()) + attrs.GetInt("begin") * split.inner_bytes,
                  x.dim(axis) * split.inner_bytes, outputs[0].raw_data(), bytes, split.outer, bytes, launch.stream);
}

}  // namespace

void RegisterConcatCudaKernels(OpRegistry& registry) {
  registry.SetKernel("concat", DeviceType::kCuda, Concat);
  registry.SetKernel("concat_slice", DeviceType::kCuda, ConcatSlice);
}

}  // namespace sluice
