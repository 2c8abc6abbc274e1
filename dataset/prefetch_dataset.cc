#include "dataset/prefetch_dataset.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "dataset/iterator_state.h"
#include "dataset/pipeline_spec.pb.h"
#include "dataset/prefetch_autotuner.h"

namespace sluice {
namespace {

// Most elements an autotuned buffer grows to; its bytes are capped by the
// traversal's RAM budget.
constexpr int64_t kMaxAutotuneElements = 1024;
// How long a starved consumer polls before it sleeps.
constexpr auto kConsumerPoll = std::chrono::microseconds(50);

class PrefetchDataset final : public Dataset {
 public:
  PrefetchDataset(DatasetPtr input, PrefetchOptions options)
      : Dataset(input->element_spec(), input->cardinality()), input_(std::move(input)), options_(options) {}

  std::string_view op_name() const override { return "prefetch"; }
  std::string DebugParams() const override {
    return options_.buffer_size == kAutotune ? "buffer_size=autotune"
                                             : StrCat("buffer_size=", options_.buffer_size);
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    pipeline->add_ops()->mutable_prefetch()->set_buffer_size(options_.buffer_size);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  int64_t buffer_size() const { return options_.buffer_size; }

 private:
  const DatasetPtr input_;
  const PrefetchOptions options_;
};

// One producer thread and the consumer share a deque under mu_. Each side
// signals the other only when it is actually waiting, so a steady stream
// costs no system calls per element.
class PrefetchIterator final : public Iterator {
 public:
  PrefetchIterator(std::shared_ptr<const PrefetchDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)),
        autotuner_(kMaxAutotuneElements, static_cast<size_t>(ctx.runtime->ram_budget().limit())),
        runtime_(ctx.runtime),
        cancellation_(ctx.cancellation),
        input_(dataset_->input()->NewIterator(ctx)) {
    waker_ = cancellation_->Register([this] {
      std::lock_guard<std::mutex> lock(mu_);
      consumer_cond_.notify_all();
      producer_cond_.notify_all();
    });
  }

  ~PrefetchIterator() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    producer_cond_.notify_all();
    if (producer_.joinable()) producer_.join();
    cancellation_->Deregister(waker_);
    for (const auto& buffered : buffer_) Uncharge(buffered);
  }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (dataset_->buffer_size() == 0) return input_->GetNext();
    std::unique_lock<std::mutex> lock(mu_);
    if (!producer_.joinable() && !input_done_) producer_ = std::thread([this] { Produce(); });
    RecordBufferSample(static_cast<int64_t>(buffer_.size()), Limit());
    if (buffer_.empty() && dataset_->buffer_size() == kAutotune) {
      autotuner_.RecordConsumerStarved(last_element_bytes_);
    }
    if (buffer_.empty() && !input_done_) PollForElement(lock);
    while (buffer_.empty() && !input_done_ && !Cancelled()) {
      consumer_waiting_ = true;
      consumer_cond_.wait(lock);
      consumer_waiting_ = false;
    }
    if (Cancelled()) return CancelledError("prefetch: Iterator was cancelled");
    if (buffer_.empty()) return std::nullopt;  // input_done_: end of sequence
    Result<std::optional<Element>> front = std::move(buffer_.front());
    buffer_.pop_front();
    Uncharge(front);
    if (dataset_->buffer_size() == kAutotune && front.ok()) last_element_bytes_ = (*front)->NumBytes();
    // A throttled producer resumes once the buffer is down to half, so it
    // refills in bursts instead of waking for every element.
    if (producer_waiting_ && static_cast<int64_t>(buffer_.size()) <= Limit() / 2) producer_cond_.notify_one();
    return front;
  }

  // The producer is stopped first (it finishes the input element it is
  // reading, and GetNext starts it again), so the input and the buffer hold
  // still. Buffered errors are saved in place, as statuses. The autotuner's
  // buffer limit is not part of the position and starts afresh.
  bool is_async() const override { return dataset_->buffer_size() != 0; }

  Status SaveInternal(IteratorStateWriter& writer) override {
    if (dataset_->buffer_size() != 0) {
      StopProducer();
      std::lock_guard<std::mutex> lock(mu_);
      writer.WriteBool("input_done", input_done_);
      writer.WriteInt("buffer/size", static_cast<int64_t>(buffer_.size()));
      for (size_t i = 0; i < buffer_.size(); ++i) {
        const std::string key = StrCat("buffer/", i);
        writer.WriteStatus(key + "/status", buffer_[i].status());
        if (buffer_[i].ok()) writer.WriteElement(key + "/element", **buffer_[i]);
      }
    }
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    if (dataset_->buffer_size() != 0) {
      StopProducer();
      std::lock_guard<std::mutex> lock(mu_);
      SLUICE_ASSIGN_OR_RETURN(input_done_, reader.ReadBool("input_done"));
      SLUICE_ASSIGN_OR_RETURN(int64_t size, reader.ReadInt("buffer/size", 0, std::numeric_limits<int32_t>::max()));
      for (const auto& buffered : buffer_) Uncharge(buffered);
      buffer_.clear();
      for (int64_t i = 0; i < size; ++i) {
        const std::string key = StrCat("buffer/", i);
        Status status;
        SLUICE_RETURN_IF_ERROR(reader.ReadStatus(key + "/status", &status));
        if (!status.ok()) {
          buffer_.push_back(std::move(status));
          continue;
        }
        SLUICE_ASSIGN_OR_RETURN(Element element, reader.ReadElement(key + "/element", dataset_->element_spec()));
        runtime_->ram_budget().Add(static_cast<int64_t>(element.NumBytes()));
        buffer_.push_back(std::optional<Element>(std::move(element)));
      }
    }
    return reader.ReadIterator("input", *input_);
  }

 private:
  bool Cancelled() const { return stopping_ || cancellation_->cancelled(); }
  bool ProducerMustStop() const { return Cancelled() || pausing_; }

  // Joins the producer thread; afterwards input_ and the buffer belong to
  // the consumer's thread alone until GetNext starts a new producer.
  void StopProducer() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      pausing_ = true;
    }
    producer_cond_.notify_all();
    if (producer_.joinable()) producer_.join();
    std::lock_guard<std::mutex> lock(mu_);
    pausing_ = false;
  }

  // Waking a sleeping thread costs tens of microseconds on a virtual CPU,
  // more than producing a typical batch, so before it sleeps the consumer
  // polls for a short while with the lock released.
  // REQUIRES: lock held and buffer_ empty.
  void PollForElement(std::unique_lock<std::mutex>& lock) {
    produced_.store(false, std::memory_order_relaxed);  // any push from now on sets it
    lock.unlock();
    const auto deadline = std::chrono::steady_clock::now() + kConsumerPoll;
    while (!produced_.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    lock.lock();
  }
  // A buffered result leaves the RAM budget.
  void Uncharge(const Result<std::optional<Element>>& buffered) {
    if (buffered.ok() && buffered->has_value()) {
      runtime_->ram_budget().Release(static_cast<int64_t>((*buffered)->NumBytes()));
    }
  }
  int64_t Limit() const {
    return dataset_->buffer_size() == kAutotune ? autotuner_.buffer_limit() : dataset_->buffer_size();
  }

  // Producer thread: keeps the buffer full until end of input or shutdown.
  // Errors are buffered like elements so they reach the consumer in order.
  void Produce() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      if (static_cast<int64_t>(buffer_.size()) >= Limit()) {
        autotuner_.RecordProducerThrottled();
        while (static_cast<int64_t>(buffer_.size()) > Limit() / 2 && !ProducerMustStop()) {
          producer_waiting_ = true;
          producer_cond_.wait(lock);
          producer_waiting_ = false;
        }
      }
      if (ProducerMustStop()) return;
      const int64_t estimate = static_cast<int64_t>(produced_bytes_);
      lock.unlock();
      // Over the RAM budget the producer waits, unless the consumer waits
      // with nothing left to take.
      runtime_->ram_budget().Reserve(estimate, [this] {
        std::lock_guard<std::mutex> proceed_lock(mu_);
        return ProducerMustStop() || (buffer_.empty() && consumer_waiting_);
      });
      Result<std::optional<Element>> next = input_->GetNext();
      const bool element = next.ok() && next->has_value();
      runtime_->ram_budget().Adjust((element ? static_cast<int64_t>((*next)->NumBytes()) : 0) - estimate);
      lock.lock();
      if (next.ok() && next->has_value()) produced_bytes_ = (*next)->NumBytes();
      if (next.ok() && !next->has_value()) {
        input_done_ = true;
      } else {
        buffer_.push_back(std::move(next));
      }
      produced_.store(true, std::memory_order_release);
      if (consumer_waiting_) consumer_cond_.notify_one();
      if (input_done_) return;
    }
  }

  const std::shared_ptr<const PrefetchDataset> dataset_;
  PrefetchAutotuner autotuner_;  // guarded by mu_; used when buffer_size is kAutotune
  const std::shared_ptr<Runtime> runtime_;  // for the RAM budget
  const std::shared_ptr<Cancellation> cancellation_;
  // Used by the producer thread only (or inline for buffer_size 0, or by
  // Save/Restore once StopProducer has joined the producer).
  const std::unique_ptr<Iterator> input_;
  int waker_ = 0;

  std::mutex mu_;
  std::condition_variable consumer_cond_;              // an element or the end arrived, or shutdown
  std::condition_variable producer_cond_;              // room in the buffer, or shutdown
  std::deque<Result<std::optional<Element>>, HostObjectAllocator<Result<std::optional<Element>>>>
      buffer_;  // guarded by mu_
  bool input_done_ = false;                            // guarded by mu_
  std::atomic<bool> produced_{false};                  // set on each push; what a polling consumer watches
  bool stopping_ = false;                              // guarded by mu_
  bool pausing_ = false;                               // guarded by mu_; StopProducer is joining it
  bool consumer_waiting_ = false;                      // guarded by mu_
  bool producer_waiting_ = false;                      // guarded by mu_
  size_t last_element_bytes_ = 0;                      // guarded by mu_; for the autotuner's cap
  size_t produced_bytes_ = 0;                          // guarded by mu_; the last element produced
  std::thread producer_;                               // started on the first GetNext
};

std::unique_ptr<Iterator> PrefetchDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<PrefetchIterator>(SharedThis<PrefetchDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakePrefetchDataset(DatasetPtr input, PrefetchOptions options) {
  if (input == nullptr) return InvalidArgumentError("prefetch: input dataset is null");
  if (options.buffer_size < 0 && options.buffer_size != kAutotune) {
    return InvalidArgumentError("prefetch: buffer_size must be >= 0 or set buffer_size to be ",
                                kAutotune, " for auto-tuning (got ", options.buffer_size, ")");
  }
  return DatasetPtr(std::make_shared<PrefetchDataset>(std::move(input), options));
}

}  // namespace sluice
