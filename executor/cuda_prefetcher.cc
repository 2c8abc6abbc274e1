// The GPU side of prefetch_to_device (executor/device_prefetcher.h).
//
// Each of `depth` slots owns pinned staging buffers (one per component,
// grown only when a batch is larger than any before) and an event recorded
// on the copy stream after its copies. A slot's staging is overwritten only
// after that event, and the compute stream waits on it before the batch is
// handed out. Device memory for each batch comes from the caching allocator;
// since a block may have been freed by kernels still queued on the compute
// stream, the copies first wait for the compute stream's work so far.
#include <cstring>
#include <deque>
#include <vector>

#include "executor/device_context.h"
#include "executor/device_prefetcher.h"
#include "ops/cuda_status.h"

namespace sluice {
namespace {

class CudaPrefetcher final : public DevicePrefetcher {
 public:
  CudaPrefetcher(BatchSource source, DeviceContext* context, int depth)
      : source_(std::move(source)), context_(context), slots_(depth) {}

  ~CudaPrefetcher() override {
    // Staging buffers go back to the pinned cache: no copy may still read them.
    (void)cudaSetDevice(context_->index());
    (void)cudaStreamSynchronize(context_->copy_stream());
    for (Slot& slot : slots_) {
      if (slot.copied != nullptr) context_->events().Release(slot.copied);
    }
  }

  Status Init() {
    for (Slot& slot : slots_) {
      SLUICE_ASSIGN_OR_RETURN(slot.copied, context_->events().Acquire());
    }
    return OkStatus();
  }

  Result<std::optional<Element>> GetNext() override {
    SLUICE_CUDA_RETURN_IF_ERROR(cudaSetDevice(context_->index()));
    while (static_cast<int>(in_flight_.size()) < static_cast<int>(slots_.size()) && !input_done_) {
      Slot& slot = slots_[next_slot_];
      next_slot_ = (next_slot_ + 1) % slots_.size();
      slot.batch = StartCopy(slot);
      in_flight_.push_back(&slot);
    }
    if (in_flight_.empty()) return std::optional<Element>();
    Slot* slot = in_flight_.front();
    in_flight_.pop_front();
    if (slot->batch.ok() && slot->batch->has_value()) {
      SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(context_->compute_stream(), slot->copied, 0));
    }
    return std::move(slot->batch);
  }

 private:
  struct Slot {
    std::vector<std::shared_ptr<Buffer>> staging;  // pinned, per component
    cudaEvent_t copied = nullptr;                  // after this slot's last copies
    bool copy_pending = false;
    Result<std::optional<Element>> batch = std::optional<Element>();
  };

  // Pulls the next batch and queues its copy into `slot`; an input error or
  // the end comes back as the slot's result.
  Result<std::optional<Element>> StartCopy(Slot& slot) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> host, source_());
    if (!host) {
      input_done_ = true;
      return host;
    }
    if (slot.copy_pending) SLUICE_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(slot.copied));
    // Gather into staging and take the device blocks first, then order the
    // copies after every kernel queued so far: blocks freed before this
    // point may still be read by them.
    Element device_batch;
    device_batch.components.reserve(host->size());
    slot.staging.resize(host->size());
    for (size_t c = 0; c < host->size(); ++c) {
      const Tensor& from = (*host)[c];
      if (from.dtype() == DType::kString) {
        device_batch.components.push_back(from);
        continue;
      }
      std::shared_ptr<Buffer>& staging = slot.staging[c];
      if (staging == nullptr || staging->size() < from.NumBytes()) {
        staging = Buffer::Allocate(from.NumBytes(), PinnedAllocator(), Buffer::Fill::kUninitialized);
      }
      if (from.NumBytes() > 0) std::memcpy(staging->data(), from.raw_data(), from.NumBytes());
      device_batch.components.push_back(
          Tensor::AllocateUninitialized(from.dtype(), from.shape(), &context_->allocator()));
    }
    SLUICE_RETURN_IF_ERROR(WaitForComputeSoFar());
    for (size_t c = 0; c < host->size(); ++c) {
      Tensor& to = device_batch[c];
      if (to.dtype() == DType::kString || to.NumBytes() == 0) continue;
      SLUICE_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(to.raw_data(), slot.staging[c]->data(), to.NumBytes(),
                                                  cudaMemcpyHostToDevice, context_->copy_stream()));
    }
    SLUICE_CUDA_RETURN_IF_ERROR(cudaEventRecord(slot.copied, context_->copy_stream()));
    slot.copy_pending = true;
    return std::optional<Element>(std::move(device_batch));
  }

  // Orders the copy stream after everything queued on the compute stream so
  // far (work that may still read blocks the allocator is handing out).
  Status WaitForComputeSoFar() {
    SLUICE_ASSIGN_OR_RETURN(cudaEvent_t event, context_->events().Acquire());
    Status status = CudaStatus(cudaEventRecord(event, context_->compute_stream()), "cudaEventRecord");
    if (status.ok()) status = CudaStatus(cudaStreamWaitEvent(context_->copy_stream(), event, 0), "cudaStreamWaitEvent");
    // The wait took the event's state at the call: it can be recorded again.
    context_->events().Release(event);
    return status;
  }

  const BatchSource source_;
  DeviceContext* const context_;
  std::vector<Slot> slots_;
  std::deque<Slot*> in_flight_;  // oldest first
  size_t next_slot_ = 0;
  bool input_done_ = false;
};

}  // namespace

Result<std::unique_ptr<DevicePrefetcher>> MakeCudaPrefetcher(BatchSource source,
                                                             const PrefetchToDeviceOptions& options) {
  SLUICE_ASSIGN_OR_RETURN(DeviceContext * context, DeviceContext::Get(options.device.index));
  auto prefetcher = std::make_unique<CudaPrefetcher>(std::move(source), context, options.depth);
  SLUICE_RETURN_IF_ERROR(prefetcher->Init());
  return std::unique_ptr<DevicePrefetcher>(std::move(prefetcher));
}

}  // namespace sluice
