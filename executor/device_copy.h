// Copies of tensors between the host and a GPU. ToDevice makes a tensor in
// the device's caching allocator (executor/device_context.h); ToHost brings
// one back into host memory. Both wait for their copy to finish, so the
// source may be freed and the result read at once; the overlapped input
// path is the device prefetcher (executor/device_prefetcher.h).
// A copy to the device a tensor is on returns the tensor itself (DeepCopy
// makes a new one there). GPU copies go through the CUDA backend
// (executor/gpu_backend.h); without it a GPU device is FailedPrecondition.
// Thread safety: safe from any thread.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

// REQUIRES nothing of `tensor`'s device; string tensors stay on the host
// (InvalidArgument for a GPU).
Result<Tensor> ToDevice(const Tensor& tensor, Device device);
Result<Tensor> ToHost(const Tensor& tensor);

// A copy of a numeric tensor in fresh memory of its own device (host
// tensors, strings included, as Tensor::Clone).
Result<Tensor> DeepCopy(const Tensor& tensor);

// Copies the bytes of `from` into `to`, wherever each lives.
// REQUIRES: same numeric dtype and shape.
Status CopyInto(const Tensor& from, Tensor& to);

}  // namespace sluice
