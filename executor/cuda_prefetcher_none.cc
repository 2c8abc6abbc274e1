// A build without nvcc: no GPU to prefetch to.
#include "sluice/executor/device_prefetcher.h"

namespace sluice {

Result<std::unique_ptr<DevicePrefetcher>> MakeCudaPrefetcher(BatchSource,
                                                             const PrefetchToDeviceOptions& options) {
  return FailedPreconditionError("prefetch_to_device: ", options.device.ToString(),
                                 " is unavailable: Sluice was built without CUDA");
}

}  // namespace sluice
