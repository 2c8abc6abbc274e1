// The GPU side of prefetch_to_device (executor/device_prefetcher.h).
//
// A worker thread (started with the prefetcher, joined by its destructor)
// pulls batches from the source and queues their copies, so the consumer's
// thread only waits for a ready batch: the gather into pinned memory and the
// copy both overlap the consumer's step. Each of `depth` slots owns pinned staging buffers (one per component,
// grown only when a batch is larger than any before) and an event recorded
// on the copy stream after its copies. A slot's staging is overwritten only
// after that event, and the compute stream waits on it before the batch is
// handed out. Device memory for each batch comes from the caching allocator;
// since a block may have been freed by kernels still queued on the compute
// stream, the copies first wait for the compute stream's work so far.
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "sluice/executor/cuda_gpu_backend.h"
#include "sluice/executor/device_context.h"
#include "sluice/ops/cuda_status.h"

namespace sluice {
namespace {

class CudaPrefetcher final : public DevicePrefetcher {
 public:
  CudaPrefetcher(BatchSource source, DeviceContext* context, int depth)
      : source_(std::move(source)), context_(context), slots_(depth) {}

  ~CudaPrefetcher() override {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    changed_.notify_all();
    // A worker inside the source finishes that call first.
    if (worker_.joinable()) worker_.join();
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
      free_.push_back(&slot);
    }
    worker_ = std::thread([this] { Work(); });
    return OkStatus();
  }

  Result<std::optional<Element>> GetNext() override {
    Slot* slot;
    {
      std::unique_lock lock(mu_);
      changed_.wait(lock, [&] { return !ready_.empty() || ended_; });
      if (ready_.empty()) return std::optional<Element>();  // the end, every batch handed out
      slot = ready_.front();
      ready_.pop_front();
    }
    Result<std::optional<Element>> batch = std::move(slot->batch);
    Status waited = OkStatus();
    if (batch.ok() && batch->has_value()) {
      waited = CudaStatus(cudaSetDevice(context_->index()), "cudaSetDevice");
      if (waited.ok()) {
        waited = CudaStatus(cudaStreamWaitEvent(context_->compute_stream(), slot->copied, 0), "cudaStreamWaitEvent");
      }
    }
    {
      std::lock_guard lock(mu_);
      free_.push_back(slot);
    }
    changed_.notify_all();
    if (!waited.ok()) return waited;
    return batch;
  }

 private:
  struct Slot {
    std::vector<std::shared_ptr<Buffer>> staging;  // pinned, per component
    cudaEvent_t copied = nullptr;                  // after this slot's last copies
    bool copy_pending = false;
    Result<std::optional<Element>> batch = std::optional<Element>();
  };

  // The worker: fills free slots in order until the source ends (or the
  // prefetcher is destroyed). A batch's error is that slot's result.
  void Work() {
    const Status device = CudaStatus(cudaSetDevice(context_->index()), "cudaSetDevice");
    while (true) {
      Slot* slot;
      {
        std::unique_lock lock(mu_);
        changed_.wait(lock, [&] { return !free_.empty() || stopping_; });
        if (stopping_) return;
        slot = free_.front();
        free_.pop_front();
      }
      slot->batch = device.ok() ? StartCopy(*slot) : Result<std::optional<Element>>(device);
      const bool end = slot->batch.ok() && !slot->batch->has_value();
      {
        std::lock_guard lock(mu_);
        if (end) {
          ended_ = true;
        } else {
          ready_.push_back(slot);
        }
      }
      changed_.notify_all();
      if (end) return;
    }
  }

  // Pulls the next batch and queues its copy into `slot`; an input error or
  // the end comes back as the slot's result.
  Result<std::optional<Element>> StartCopy(Slot& slot) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> host, source_());
    if (!host) return host;
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
  std::vector<Slot> slots_;  // a slot is in free_, in ready_, or held by one thread

  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Slot*> free_;   // GUARDED_BY(mu_)
  std::deque<Slot*> ready_;  // GUARDED_BY(mu_), oldest first
  bool ended_ = false;       // GUARDED_BY(mu_): the source said end
  bool stopping_ = false;    // GUARDED_BY(mu_)
  std::thread worker_;       // last: started by Init, joined by the destructor
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
