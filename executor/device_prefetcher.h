// DevicePrefetcher: prefetch_to_device(depth), the last stage of a training
// input path. For a GPU it keeps `depth` batches in flight ahead of the
// consumer: a worker thread of its own pulls each batch from the pipeline
// (the input is called from that thread), gathers it into the pinned
// staging buffers of one of `depth` slots (reused, never reallocated per
// step) and copies it to the device on the device's copy stream; GetNext
// hands it out once the compute stream has been told to wait for that copy
// (an event per batch). Input and copies thus overlap the current step's
// kernels, and a step costs max(input, compute) rather than their sum.
//
// For the host (the default device) batches pass through unchanged, so a
// training loop is written once for both. String components stay on the
// host in either case.
//
//   auto prefetcher = PrefetchToDevice(dataset->MakeIterator(), {.device = {DeviceType::kCuda, 0}, .depth = 2});
//   auto batch = (*prefetcher)->GetNext();  // Result<optional<Element>>
//
// Thread safety: one thread calls GetNext; destroying the prefetcher stops
// and joins its worker (after the source call in progress returns).
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "sluice/core/element.h"

namespace sluice {

class Iterator;  // dataset/dataset.h

// Where batches come from: the next one, nullopt at the end, or an error
// for one batch (the source stays usable, as an Iterator does).
using BatchSource = std::function<Result<std::optional<Element>>()>;

struct PrefetchToDeviceOptions {
  Device device;   // where batches go; the host (default): pass through
  int depth = 2;   // batches copied ahead of the consumer; at least 2 for a GPU
};

class DevicePrefetcher {
 public:
  virtual ~DevicePrefetcher() = default;
  // The next batch, its tensors on the device, or nullopt at the end of the
  // input. Work the caller queues on the device's compute stream afterwards
  // sees the batch's bytes. Errors from the input come back in order.
  virtual Result<std::optional<Element>> GetNext() = 0;
};

// InvalidArgument for depth < 2 on a GPU (< 1 anywhere); FailedPrecondition
// for a GPU in a program without the CUDA backend (executor/gpu_backend.h)
// or a machine without that device.
Result<std::unique_ptr<DevicePrefetcher>> PrefetchToDevice(std::unique_ptr<Iterator> input,
                                                           PrefetchToDeviceOptions options);
// The same for batches from any source (a benchmark's synthetic input).
Result<std::unique_ptr<DevicePrefetcher>> PrefetchToDevice(BatchSource source, PrefetchToDeviceOptions options);

}  // namespace sluice
