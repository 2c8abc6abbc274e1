// CUDA kernel of cast (ops/cast.cc) between numeric dtypes, with the same
// conversions as core's ConvertValue: saturating float-to-integer with NaN
// to 0, `!= 0` to bool, float16 / bfloat16 through float with
// round-to-nearest-even (the hardware's __float2half_rn / __float2bfloat16_rn).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

__device__ float HalfToFloat(Float16 h) { return __half2float(__ushort_as_half(h.bits)); }
__device__ float HalfToFloat(BFloat16 h) { return __bfloat162float(__ushort_as_bfloat16(h.bits)); }

template <typename Half>
__device__ Half FloatToHalf(float value) {
  Half h;
  if constexpr (std::is_same_v<Half, Float16>) {
    h.bits = __half_as_ushort(__float2half_rn(value));
  } else {
    h.bits = __bfloat16_as_ushort(__float2bfloat16_rn(value));
  }
  return h;
}

// ConvertValue on the device: halves through the hardware's conversions,
// everything else through core's ConvertNumber.
template <typename To, typename From>
__device__ To DeviceConvert(From value) {
  if constexpr (std::is_same_v<To, From>) {
    return value;
  } else if constexpr (kIsHalf<From>) {
    return DeviceConvert<To>(HalfToFloat(value));
  } else if constexpr (kIsHalf<To>) {
    return FloatToHalf<To>(static_cast<float>(value));
  } else {
    return ConvertNumber<To>(value);
  }
}

template <typename To, typename From>
__global__ void CastKernel(const From* in, To* out, int64_t n) {
  SLUICE_CUDA_FOR_EACH(i, n) out[i] = DeviceConvert<To>(in[i]);
}

Status Cast(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const Tensor& x = inputs[0];
  Tensor& out = outputs[0];
  const int64_t n = x.NumElements();
  if (n == 0) return OkStatus();
  if (x.dtype() == DType::kString) return InvalidArgumentError("cast: string tensors live on the host");
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(out));
  VisitNumericDType(x.dtype(), [&](auto from_zero) {
    using From = decltype(from_zero);
    VisitNumericDType(out.dtype(), [&](auto to_zero) {
      using To = decltype(to_zero);
      CastKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(x.data<From>(), out.mutable_data<To>(), n);
    });
  });
  return LaunchStatus("CastKernel");
}

}  // namespace

void RegisterCastCudaKernels(OpRegistry& registry) { registry.SetKernel("cast", DeviceType::kCuda, Cast); }

}  // namespace sluice
