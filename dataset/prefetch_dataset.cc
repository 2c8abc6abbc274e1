#include "sluice/dataset/prefetch_dataset.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "sluice/dataset/autotuner.h"
#include "sluice/dataset/buffered_bytes.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

// Most elements an autotuned buffer grows to; the autotuner caps its bytes
// by the traversal's RAM budget.
constexpr int64_t kMaxAutotuneElements = 1024;
// How long a starved consumer, or a producer held back by a full buffer,
// polls before it sleeps.
constexpr auto kPoll = std::chrono::microseconds(50);
// An autotuned prefetch times one call in this many on each side (two clock
// reads cost ~85 ns here, more than a small element's hand-off), and counts
// the times this many times: the autotuner needs averages only.
constexpr int64_t kMeasureEvery = 16;

// Returns once `done()` holds or `deadline` has passed, yielding the core
// between checks. (Spinning on the CPU's pause instruction instead was
// slower on a virtual machine, whose hypervisor deschedules such loops.)
template <typename Done>
void PollUntil(Done done, std::chrono::steady_clock::time_point deadline) {
  while (!done() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
}

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
// costs no system calls per element. With buffer_size kAutotune the limit
// is the autotuner's (dataset/autotuner.h), which may set it to 0: then the
// producer parks outside the input once the buffer is drained, and the
// consumer reads the input itself, until the limit rises again.
class PrefetchIterator final : public Iterator {
 public:
  PrefetchIterator(std::shared_ptr<const PrefetchDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)),
        runtime_(ctx.runtime),
        cancellation_(ctx.cancellation),
        input_(dataset_->input()->NewIterator(ctx)) {
    if (dataset_->buffer_size() == kAutotune) {
      tunable_ = runtime_->autotuner().RegisterBuffer(dataset_->op_name(), kMaxAutotuneElements);
    }
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
    DropBuffer();
  }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (dataset_->buffer_size() == 0) return input_->GetNext();
    if (tunable_ == nullptr) return Take();
    // The autotuner weighs the consumer's own work between calls against
    // the producer's: the time since the last timed call returned.
    if (consumer_timed_) {
      tunable_->RecordConsumerTime((std::chrono::steady_clock::now() - last_return_) * kMeasureEvery);
    }
    Result<std::optional<Element>> next = Take();
    consumer_timed_ = ++consumer_calls_ % kMeasureEvery == 0;
    if (consumer_timed_) last_return_ = std::chrono::steady_clock::now();
    return next;
  }

  // The next buffered result, waiting for one if need be; with no buffer
  // (limit 0) and the producer parked, the input's next, read inline.
  Result<std::optional<Element>> Take() {
    std::unique_lock<std::mutex> lock(mu_);
    if (!producer_.joinable() && !input_done_ && Limit() > 0) producer_ = std::thread([this] { Produce(); });
    if (producer_parked_ && Limit() > 0) producer_cond_.notify_one();
    RecordBufferSample(static_cast<int64_t>(buffer_.size()), Limit());
    RecordTunable(TunableParameter::kBufferSize, Limit(), tunable_ != nullptr);
    bool polled = false;
    while (buffer_.empty() && !input_done_ && !Cancelled()) {
      if (Limit() == 0 && (producer_parked_ || !producer_.joinable())) return ReadInline(lock);
      if (!polled) {
        PollForElement(lock);
        polled = true;
        continue;
      }
      consumer_waiting_ = true;
      consumer_cond_.wait(lock);
      consumer_waiting_ = false;
    }
    if (Cancelled()) return CancelledError("prefetch: Iterator was cancelled");
    if (buffer_.empty()) return std::nullopt;  // input_done_: end of sequence
    Result<std::optional<Element>> front = std::move(buffer_.front().result);
    runtime_->ram_budget().Release(buffer_.front().charge);
    buffer_.pop_front();
    taken_.store(taken_.load(std::memory_order_relaxed) + 1, std::memory_order_release);  // only here
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
        const Result<std::optional<Element>>& result = buffer_[i].result;
        writer.WriteStatus(key + "/status", result.status());
        if (result.ok()) writer.WriteElement(key + "/element", **result);
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
      DropBuffer();
      for (int64_t i = 0; i < size; ++i) {
        const std::string key = StrCat("buffer/", i);
        Status status;
        SLUICE_RETURN_IF_ERROR(reader.ReadStatus(key + "/status", &status));
        if (!status.ok()) {
          const int64_t bytes = BufferedBytes(status);
          runtime_->ram_budget().Add(bytes);
          buffer_.push_back({std::move(status), bytes});
          continue;
        }
        SLUICE_ASSIGN_OR_RETURN(Element element, reader.ReadElement(key + "/element", dataset_->element_spec()));
        const int64_t bytes = BufferedBytes(element);
        runtime_->ram_budget().Add(bytes);
        buffer_.push_back({std::optional<Element>(std::move(element)), bytes});
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
    PollUntil([this] { return produced_.load(std::memory_order_acquire); }, std::chrono::steady_clock::now() + kPoll);
    lock.lock();
  }
  // The same on the producer's side: a full buffer whose consumer takes
  // elements as fast as they come (a buffer of 1, a cheap element) would
  // otherwise cost two wake-ups an element.
  // REQUIRES: lock held and buffer_ full.
  void PollForRoom(std::unique_lock<std::mutex>& lock) {
    const int64_t takes_needed = static_cast<int64_t>(buffer_.size()) - Limit() / 2;  // to resume
    const int64_t taken_before = taken_.load(std::memory_order_relaxed);
    lock.unlock();
    PollUntil([&] { return taken_.load(std::memory_order_acquire) - taken_before >= takes_needed; },
              std::chrono::steady_clock::now() + kPoll);
    lock.lock();
  }
  int64_t Limit() const { return tunable_ != nullptr ? tunable_->value() : dataset_->buffer_size(); }
  // Empties the buffer and releases its charges. REQUIRES: the producer stopped.
  void DropBuffer() {
    for (const Buffered& buffered : buffer_) runtime_->ram_budget().Release(buffered.charge);
    buffer_.clear();
  }

  // Reads the input on the consumer's thread (no buffer); the producer stays
  // parked meanwhile.
  // REQUIRES: lock held, buffer_ empty, the producer parked or not running.
  Result<std::optional<Element>> ReadInline(std::unique_lock<std::mutex>& lock) {
    consumer_inline_ = true;
    lock.unlock();
    Result<std::optional<Element>> next = ReadInput();
    lock.lock();
    consumer_inline_ = false;
    if (next.ok() && !next->has_value()) input_done_ = true;
    if (producer_parked_ && (Limit() > 0 || input_done_)) producer_cond_.notify_one();
    return next;
  }

  // The input's next element; one read in kMeasureEvery timed for the
  // autotuner when it tunes, standing for the others.
  Result<std::optional<Element>> ReadInput() {
    if (tunable_ == nullptr || ++input_reads_ % kMeasureEvery != 0) return input_->GetNext();
    const auto start = std::chrono::steady_clock::now();
    Result<std::optional<Element>> next = input_->GetNext();
    const auto busy = std::chrono::steady_clock::now() - start;
    const int64_t bytes = next.ok() && next->has_value() ? static_cast<int64_t>((*next)->NumBytes()) : 0;
    tunable_->RecordWork(kMeasureEvery, bytes * kMeasureEvery, busy * kMeasureEvery);
    return next;
  }

  // Producer thread: keeps the buffer full until end of input or shutdown.
  // Errors are buffered like elements so they reach the consumer in order.
  void Produce() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      if (ProducerMustStop()) return;
      if (Limit() == 0) {  // no buffer: park until the limit rises
        producer_parked_ = true;
        if (consumer_waiting_) consumer_cond_.notify_one();
        producer_cond_.wait(lock, [this] {
          return ProducerMustStop() || input_done_ || (Limit() > 0 && !consumer_inline_);
        });
        producer_parked_ = false;
        if (input_done_) return;
        continue;
      }
      if (static_cast<int64_t>(buffer_.size()) >= Limit()) {
        PollForRoom(lock);
        while (static_cast<int64_t>(buffer_.size()) > Limit() / 2 && !ProducerMustStop()) {
          producer_waiting_ = true;
          producer_cond_.wait(lock);
          producer_waiting_ = false;
        }
        continue;
      }
      lock.unlock();
      Result<std::optional<Element>> next = ReadInput();
      // Charged once it exists, after its input has released it (so it is
      // never charged twice), with its entry (dataset/buffered_bytes.h), so
      // that errors and empty elements count too. Over the RAM budget the
      // producer waits with it, unless the consumer waits with nothing left
      // to take: then it goes to the consumer uncharged.
      int64_t charge = !next.ok() ? BufferedBytes(next.status()) : next->has_value() ? BufferedBytes(**next) : 0;
      if (charge > 0 && !runtime_->ram_budget().Reserve(charge, [this] {
            std::lock_guard<std::mutex> proceed_lock(mu_);
            return ProducerMustStop() || (buffer_.empty() && consumer_waiting_);
          })) {
        charge = 0;
      }
      lock.lock();
      if (next.ok() && !next->has_value()) {
        input_done_ = true;
      } else {
        buffer_.push_back({std::move(next), charge});
      }
      produced_.store(true, std::memory_order_release);
      if (consumer_waiting_) consumer_cond_.notify_one();
      if (input_done_) return;
    }
  }

  const std::shared_ptr<const PrefetchDataset> dataset_;
  const std::shared_ptr<Runtime> runtime_;  // for the RAM budget
  const std::shared_ptr<Cancellation> cancellation_;
  // Used by the producer thread only (or inline for buffer_size 0, or by
  // Save/Restore once StopProducer has joined the producer).
  const std::unique_ptr<Iterator> input_;
  std::shared_ptr<Tunable> tunable_;  // with buffer_size kAutotune: the limit
  // The autotuner's measurements (kMeasureEvery). The consumer's thread's:
  int64_t consumer_calls_ = 0;
  bool consumer_timed_ = false;                        // the last call's return was timed
  std::chrono::steady_clock::time_point last_return_;  // then
  // Whichever thread reads the input (the producer, or the consumer inline):
  int64_t input_reads_ = 0;
  int waker_ = 0;

  std::mutex mu_;
  std::condition_variable consumer_cond_;              // an element or the end arrived, or shutdown
  std::condition_variable producer_cond_;              // room in the buffer, or shutdown
  // A buffered result and what it is charged to the RAM budget (0 for one
  // handed to a waiting consumer over the budget).
  struct Buffered {
    Result<std::optional<Element>> result;
    int64_t charge = 0;
  };
  std::deque<Buffered, HostObjectAllocator<Buffered>> buffer_;  // guarded by mu_
  bool input_done_ = false;                            // guarded by mu_
  std::atomic<bool> produced_{false};                  // set on each push; what a polling consumer watches
  std::atomic<int64_t> taken_{0};                      // elements taken; written under mu_, polled without it
  bool stopping_ = false;                              // guarded by mu_
  bool pausing_ = false;                               // guarded by mu_; StopProducer is joining it
  bool consumer_waiting_ = false;                      // guarded by mu_
  bool producer_waiting_ = false;                      // guarded by mu_
  bool producer_parked_ = false;                       // guarded by mu_; limit 0, out of the input
  bool consumer_inline_ = false;                       // guarded by mu_; the consumer reads the input
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
  return Dataset::Make<PrefetchDataset>(std::move(input), options);
}

Result<DatasetPtr> PrefetchDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  return MakePrefetchDataset(context.input(), {.buffer_size = node.prefetch().buffer_size()});
}

}  // namespace sluice
