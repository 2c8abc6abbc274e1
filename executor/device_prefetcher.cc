#include "sluice/executor/device_prefetcher.h"

#include "sluice/dataset/dataset.h"
#include "sluice/executor/gpu_backend.h"

namespace sluice {
namespace {

// The host: batches are already where they are used.
class PassThroughPrefetcher final : public DevicePrefetcher {
 public:
  explicit PassThroughPrefetcher(BatchSource source) : source_(std::move(source)) {}
  Result<std::optional<Element>> GetNext() override { return source_(); }

 private:
  const BatchSource source_;
};

}  // namespace

Result<std::unique_ptr<DevicePrefetcher>> PrefetchToDevice(std::unique_ptr<Iterator> input,
                                                           PrefetchToDeviceOptions options) {
  if (input == nullptr) return InvalidArgumentError("prefetch_to_device: no input iterator");
  // shared_ptr: BatchSource is a copyable std::function.
  std::shared_ptr<Iterator> iterator = std::move(input);
  return PrefetchToDevice([iterator] { return iterator->GetNext(); }, options);
}

Result<std::unique_ptr<DevicePrefetcher>> PrefetchToDevice(BatchSource source, PrefetchToDeviceOptions options) {
  if (source == nullptr) return InvalidArgumentError("prefetch_to_device: no input");
  if (options.device.type == DeviceType::kCpu) {
    if (options.depth < 1) return InvalidArgumentError("prefetch_to_device: depth must be >= 1, got ", options.depth);
    return std::unique_ptr<DevicePrefetcher>(new PassThroughPrefetcher(std::move(source)));
  }
  if (options.depth < 2) {
    return InvalidArgumentError("prefetch_to_device: depth must be >= 2 for ", options.device.ToString(),
                                " (one batch in use, one being copied), got ", options.depth);
  }
  SLUICE_ASSIGN_OR_RETURN(const GpuBackend* gpu, InstalledGpuBackend("prefetch_to_device", options.device));
  return gpu->make_prefetcher(std::move(source), options);
}

}  // namespace sluice
