// interleave's parallel iterator (dataset/interleave_dataset.h says what it
// does; dataset/interleave_internal.h, what it shares with the sequential
// one).
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <thread>

#include "sluice/dataset/buffered_bytes.h"
#include "sluice/dataset/interleave_internal.h"
#include "sluice/dataset/iterator_state.h"

namespace sluice {
namespace {

// Parallel interleave: input elements opened ahead of the cycle, and the
// results buffered per open dataset (tf.data's prefetch_input_elements and
// buffer_output_elements).
constexpr int64_t kMaxFutureElements = 8;
int64_t StreamBufferSize(int64_t block_length) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  return block_length >= kMax / 2 ? kMax : 2 * block_length + 1;
}


// The parallel iterator. The consumer thread alone reads the input, opens
// datasets and moves streams between the future queue and the cycle; the
// workers only fill the streams' buffers. Everything below mu_ is shared.
class ParallelInterleaveIterator final : public Iterator {
 public:
  ParallelInterleaveIterator(std::shared_ptr<const InterleaveDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)),
        ctx_(ctx),
        input_(dataset_->input()->NewIterator(ctx)),
        deterministic_(ctx.runtime->IsDeterministic(dataset_->options().deterministic)),
        future_limit_(std::min(dataset_->slot_count(), kMaxFutureElements)),
        stream_buffer_(StreamBufferSize(dataset_->block_length())),
        cycle_(static_cast<size_t>(dataset_->slot_count())) {
    const int64_t slots = dataset_->slot_count();
    if (dataset_->options().num_parallel_calls == kAutotune) {
      tunable_ = ctx.runtime->autotuner().Register(
          "interleave", 1, slots, std::min<int64_t>(slots, ctx.runtime->options().cpu_budget));
    }
    waker_ = ctx_.cancellation->Register([this] {
      std::lock_guard<std::mutex> lock(mu_);
      consumer_cond_.notify_all();
      worker_cond_.notify_all();
    });
  }

  ~ParallelInterleaveIterator() override {
    StopWorkers();
    ctx_.cancellation->Deregister(waker_);
    for (const auto& stream : cycle_) DropStream(stream.get());
    for (const auto& stream : future_) DropStream(stream.get());
  }

 protected:
  bool is_async() const override { return true; }

  // Finished streams are destroyed after mu_ is released: destroying an
  // iterator deregisters from the cancellation, whose Cancel() holds its own
  // lock while it runs this iterator's waker, which takes mu_.
  Result<std::optional<Element>> GetNextInternal() override {
    std::vector<std::shared_ptr<Stream>> finished;
    return GetNextLocked(finished);
  }

  // Saved like the sequential iterator, plus each stream's buffered results
  // and the future queue; workers are joined first and restart on the next
  // GetNext.
  Status SaveInternal(IteratorStateWriter& writer) override {
    StopWorkers();
    std::lock_guard<std::mutex> lock(mu_);
    writer.WriteInt("cursor", static_cast<int64_t>(cursor_));
    writer.WriteInt("block_index", block_index_);
    writer.WriteBool("input_done", input_done_);
    SLUICE_RETURN_IF_ERROR(writer.WriteIterator("input", *input_));
    for (size_t i = 0; i < cycle_.size(); ++i) {
      writer.WriteBool(StrCat("slot_", i, "/open"), cycle_[i] != nullptr);
      if (cycle_[i] != nullptr) SLUICE_RETURN_IF_ERROR(SaveStream(writer, StrCat("slot_", i), *cycle_[i]));
    }
    writer.WriteInt("future/size", static_cast<int64_t>(future_.size()));
    for (size_t i = 0; i < future_.size(); ++i) {
      SLUICE_RETURN_IF_ERROR(SaveStream(writer, StrCat("future_", i), *future_[i]));
    }
    return OkStatus();
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    StopWorkers();
    std::vector<std::shared_ptr<Stream>> finished;  // destroyed after mu_ is released
    std::lock_guard<std::mutex> lock(mu_);
    SLUICE_ASSIGN_OR_RETURN(int64_t cursor, reader.ReadInt("cursor", 0, static_cast<int64_t>(cycle_.size()) - 1));
    cursor_ = static_cast<size_t>(cursor);
    SLUICE_ASSIGN_OR_RETURN(block_index_, reader.ReadInt("block_index", 0, dataset_->block_length()));
    SLUICE_ASSIGN_OR_RETURN(input_done_, reader.ReadBool("input_done"));
    SLUICE_RETURN_IF_ERROR(reader.ReadIterator("input", *input_));
    open_slots_ = 0;
    for (size_t i = 0; i < cycle_.size(); ++i) {
      DropStream(cycle_[i].get());
      finished.push_back(std::move(cycle_[i]));
      SLUICE_ASSIGN_OR_RETURN(bool open, reader.ReadBool(StrCat("slot_", i, "/open")));
      if (open) {
        SLUICE_ASSIGN_OR_RETURN(cycle_[i], RestoreStream(reader, StrCat("slot_", i)));
        ++open_slots_;
      }
    }
    for (auto& stream : future_) {
      DropStream(stream.get());
      finished.push_back(std::move(stream));
    }
    future_.clear();
    SLUICE_ASSIGN_OR_RETURN(int64_t futures, reader.ReadInt("future/size", 0, future_limit_));
    for (int64_t i = 0; i < futures; ++i) {
      SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<Stream> stream, RestoreStream(reader, StrCat("future_", i)));
      future_.push_back(std::move(stream));
    }
    return OkStatus();
  }

 private:
  // A result read ahead and what it is charged to the RAM budget (0 for one
  // read over the budget for a waiting consumer, or for an error).
  struct Buffered {
    Result<Element> result;
    int64_t charge = 0;
  };
  // One input element's dataset being read, or the error in its place (an
  // input or open error, returned when the cursor reaches it).
  struct Stream {
    Element args;                          // the input element it was opened from
    std::unique_ptr<Iterator> iterator;    // null for an error entry
    Status error;                          // an error entry's error
    std::deque<Buffered> buffer;           // results read ahead
    bool claimed = false;                  // a worker is reading it
    bool ended = false;                    // its iterator reached the end
  };

  Result<std::optional<Element>> GetNextLocked(std::vector<std::shared_ptr<Stream>>& finished) {
    std::unique_lock<std::mutex> lock(mu_);
    finished.swap(finished_);
    StartWorkers();
    RecordBufferSample(BufferedResults(), stream_buffer_ * dataset_->slot_count());
    RecordTunable(TunableParameter::kCycleLength, dataset_->cycle_length(), dataset_->cycle_length_autotuned());
    RecordTunable(TunableParameter::kNumParallelCalls, Parallelism(), tunable_ != nullptr);
    while (true) {
      if (ctx_.cancellation->cancelled()) return CancelledError("interleave: Iterator was cancelled");
      SLUICE_RETURN_IF_ERROR(FillFuture(lock));
      std::optional<Result<std::optional<Element>>> next = deterministic_ ? NextInOrder() : NextReady();
      if (next) return std::move(*next);
      if (!input_done_ && future_.empty()) continue;  // the cycle took every future element: open more
      consumer_cond_.wait(lock);
    }
  }

  int64_t Parallelism() const {
    const int64_t n = tunable_ != nullptr ? tunable_->value() : dataset_->options().num_parallel_calls;
    return std::min(n, dataset_->slot_count());
  }
  bool MustStop() const { return stopping_ || ctx_.cancellation->cancelled(); }

  // REQUIRES: mu_ held. Starts workers up to the current parallelism.
  void StartWorkers() {
    while (static_cast<int64_t>(workers_.size()) < Parallelism()) {
      const int64_t id = static_cast<int64_t>(workers_.size());
      workers_.emplace_back([this, id] { Work(id); });
    }
  }
  void StopWorkers() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    worker_cond_.notify_all();
    for (std::thread& worker : workers_) worker.join();
    workers_.clear();
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = false;
  }
  // REQUIRES: workers stopped, or the stream neither claimed nor reachable.
  void DropStream(Stream* stream) {
    if (stream == nullptr) return;
    for (const Buffered& buffered : stream->buffer) ctx_.runtime->ram_budget().Release(buffered.charge);
    stream->buffer.clear();
  }
  int64_t BufferedResults() const {
    int64_t n = 0;
    for (const auto& stream : cycle_) n += stream != nullptr ? static_cast<int64_t>(stream->buffer.size()) : 0;
    return n;
  }

  // Keeps future_limit_ input elements opened ahead of the cycle. The input
  // is read and datasets opened with mu_ released; only this thread changes
  // the queue and the cycle.
  Status FillFuture(std::unique_lock<std::mutex>& lock) {
    while (!input_done_ && static_cast<int64_t>(future_.size()) < future_limit_) {
      lock.unlock();
      auto stream = std::make_shared<Stream>();
      bool end = false;
      Result<std::optional<Element>> next = input_->GetNext();
      if (!next.ok()) {
        stream->error = next.status();
      } else if (!next->has_value()) {
        end = true;
      } else {
        Result<DatasetPtr> dataset = dataset_->Open(**next);
        if (dataset.ok()) {
          stream->iterator = (*dataset)->NewIterator(ctx_);
          stream->args = std::move(**next);
        } else {
          stream->error = dataset.status();
        }
      }
      lock.lock();
      if (end) {
        input_done_ = true;
        break;
      }
      future_.push_back(std::move(stream));
      worker_cond_.notify_one();
    }
    return OkStatus();
  }

  // Moves the next future element into the empty slot at the cursor; its
  // error instead if it is one (the slot stays empty, as in the sequential
  // op). False if there is none.
  std::optional<Status> FillSlotAtCursor() {
    if (future_.empty()) return std::nullopt;
    std::shared_ptr<Stream> stream = std::move(future_.front());
    future_.pop_front();
    if (stream->iterator == nullptr) return stream->error;
    cycle_[cursor_] = std::move(stream);
    ++open_slots_;
    worker_cond_.notify_all();
    return OkStatus();
  }

  // The sequential order. REQUIRES: mu_ held. nullopt: wait for a worker.
  std::optional<Result<std::optional<Element>>> NextInOrder() {
    while (true) {
      std::shared_ptr<Stream>& slot = cycle_[cursor_];
      if (slot != nullptr) {
        if (!slot->buffer.empty()) return TakeFromCursor();
        if (!slot->ended) return std::nullopt;
        finished_.push_back(std::move(slot));
        --open_slots_;
        AdvanceCursor();
      } else if (!input_done_ || !future_.empty()) {
        std::optional<Status> filled = FillSlotAtCursor();
        if (!filled) return std::nullopt;  // none opened yet: GetNext opens more
        if (!filled->ok()) return Result<std::optional<Element>>(*filled);
      } else if (open_slots_ > 0) {
        AdvanceCursor();
      } else {
        return Result<std::optional<Element>>(std::optional<Element>());
      }
    }
  }

  // The first ready result from the cursor on. A slot whose stream ended
  // is refilled from the future queue at once, so that a pass never leaves
  // a free slot behind while opened input elements wait (the consumer would
  // then wait for workers with nothing left to read). REQUIRES: mu_ held.
  std::optional<Result<std::optional<Element>>> NextReady() {
    for (size_t step = 0; step < cycle_.size(); ++step) {
      std::shared_ptr<Stream>& slot = cycle_[cursor_];
      while (true) {
        if (slot == nullptr) {
          std::optional<Status> filled = FillSlotAtCursor();
          if (!filled) break;
          if (!filled->ok()) return Result<std::optional<Element>>(*filled);
        }
        if (!slot->buffer.empty()) return TakeFromCursor();
        if (!slot->ended) break;
        finished_.push_back(std::move(slot));
        --open_slots_;
      }
      AdvanceCursor();
    }
    if (open_slots_ == 0 && input_done_ && future_.empty()) {
      return Result<std::optional<Element>>(std::optional<Element>());
    }
    return std::nullopt;
  }

  // The front result of the stream at the cursor. An error doesn't use up
  // a turn of the block, as in the sequential op: the slot's next result
  // follows it. REQUIRES: mu_ held, that stream's buffer not empty.
  Result<std::optional<Element>> TakeFromCursor() {
    Result<Element> result = TakeFront(*cycle_[cursor_]);
    if (!result.ok()) return result.status();
    if (++block_index_ == dataset_->block_length()) AdvanceCursor();
    return std::optional<Element>(std::move(result).value());
  }
  Result<Element> TakeFront(Stream& stream) {
    Result<Element> result = std::move(stream.buffer.front().result);
    ctx_.runtime->ram_budget().Release(stream.buffer.front().charge);
    stream.buffer.pop_front();
    worker_cond_.notify_one();
    return result;
  }
  void AdvanceCursor() {
    block_index_ = 0;
    cursor_ = (cursor_ + 1) % cycle_.size();
  }

  // A stream a worker may read now: the cycle's from the cursor on (the
  // consumer needs them first), then the future queue's in order.
  // REQUIRES: mu_ held.
  Stream* PickStream() {
    auto wants_work = [this](const std::shared_ptr<Stream>& s) {
      return s != nullptr && s->iterator != nullptr && !s->claimed && !s->ended &&
             static_cast<int64_t>(s->buffer.size()) < stream_buffer_;
    };
    for (size_t step = 0; step < cycle_.size(); ++step) {
      const auto& stream = cycle_[(cursor_ + step) % cycle_.size()];
      if (wants_work(stream)) return stream.get();
    }
    for (const auto& stream : future_) {
      if (wants_work(stream)) return stream.get();
    }
    return nullptr;
  }

  // Whether the consumer can't go on without a result from `stream`: the
  // next result in order (deterministic), or any (all buffers are empty).
  // REQUIRES: mu_ held.
  bool ConsumerWaitsFor(const Stream& stream) const {
    if (!stream.buffer.empty()) return false;
    if (deterministic_) return cycle_[cursor_].get() == &stream;
    return BufferedResults() == 0 && std::any_of(cycle_.begin(), cycle_.end(),
                                                 [&](const auto& s) { return s.get() == &stream; });
  }

  // A worker: reads one result at a time from the stream that needs it most.
  void Work(int64_t id) {
    RamBudget& budget = ctx_.runtime->ram_budget();
    std::unique_lock<std::mutex> lock(mu_);
    while (!MustStop()) {
      Stream* stream = id < Parallelism() ? PickStream() : nullptr;
      if (stream == nullptr) {
        worker_cond_.wait(lock);
        continue;
      }
      // Until a result has arrived, element sizes are unknown: with the
      // budget over half full, one read at a time.
      if (!measured_ && reading_ > 0 && !budget.Fits(budget.limit() / 2)) {
        worker_cond_.wait(lock);
        continue;
      }
      stream->claimed = true;
      ++reading_;
      const int64_t estimate = bytes_per_element_;
      lock.unlock();
      // Over budget, only the result the consumer is waiting for is read,
      // and it goes to the consumer uncharged.
      const int64_t reserved = budget.Reserve(estimate, [this, stream] {
        std::lock_guard<std::mutex> proceed_lock(mu_);
        return MustStop() || ConsumerWaitsFor(*stream);
      }) ? estimate : 0;
      const auto start = std::chrono::steady_clock::now();
      Result<std::optional<Element>> next = stream->iterator->GetNext();
      const auto busy = std::chrono::steady_clock::now() - start;
      int64_t bytes = 0;  // the tensors', for the autotuner
      int64_t held = 0;   // what the result is charged, with its entry (dataset/buffered_bytes.h)
      if (!next.ok()) {
        held = BufferedBytes(next.status());
      } else if (next->has_value()) {
        bytes = static_cast<int64_t>((**next).NumBytes());
        held = BufferedBytes(**next);
      }
      const int64_t charge = budget.Settle(reserved, held);
      if (tunable_ != nullptr) tunable_->RecordWork(1, bytes, busy);
      RecordAsyncWork(std::chrono::duration_cast<std::chrono::nanoseconds>(busy).count(), Parallelism());
      lock.lock();
      stream->claimed = false;
      --reading_;
      if (!measured_) worker_cond_.notify_all();
      measured_ = true;
      if (held > 0) bytes_per_element_ = held;  // the next read's reservation
      if (!next.ok()) {
        stream->buffer.push_back({next.status(), charge});
      } else if (!next->has_value()) {
        stream->ended = true;
      } else {
        stream->buffer.push_back({std::move(**next), charge});
      }
      consumer_cond_.notify_one();
    }
  }

  Status SaveStream(IteratorStateWriter& writer, const std::string& key, const Stream& stream) {
    writer.WriteStatus(key + "/error", stream.error);
    if (stream.iterator == nullptr) return OkStatus();
    writer.WriteElement(key + "/args", stream.args);
    writer.WriteBool(key + "/ended", stream.ended);
    writer.WriteInt(key + "/buffer/size", static_cast<int64_t>(stream.buffer.size()));
    for (size_t i = 0; i < stream.buffer.size(); ++i) {
      const Result<Element>& result = stream.buffer[i].result;
      writer.WriteStatus(StrCat(key, "/buffer/", i, "/status"), result.status());
      if (result.ok()) writer.WriteElement(StrCat(key, "/buffer/", i, "/element"), *result);
    }
    return writer.WriteIterator(key + "/iterator", *stream.iterator);
  }
  Result<std::shared_ptr<Stream>> RestoreStream(IteratorStateReader& reader, const std::string& key) {
    auto stream = std::make_shared<Stream>();
    SLUICE_RETURN_IF_ERROR(reader.ReadStatus(key + "/error", &stream->error));
    if (!stream->error.ok()) return stream;
    SLUICE_ASSIGN_OR_RETURN(stream->args, reader.ReadElement(key + "/args", dataset_->input()->element_spec()));
    SLUICE_ASSIGN_OR_RETURN(stream->ended, reader.ReadBool(key + "/ended"));
    SLUICE_ASSIGN_OR_RETURN(int64_t size, reader.ReadInt(key + "/buffer/size", 0, stream_buffer_));
    for (int64_t i = 0; i < size; ++i) {
      Status status;
      SLUICE_RETURN_IF_ERROR(reader.ReadStatus(StrCat(key, "/buffer/", i, "/status"), &status));
      if (!status.ok()) {
        const int64_t bytes = BufferedBytes(status);
        ctx_.runtime->ram_budget().Add(bytes);
        stream->buffer.push_back({std::move(status), bytes});
        continue;
      }
      SLUICE_ASSIGN_OR_RETURN(Element element,
                              reader.ReadElement(StrCat(key, "/buffer/", i, "/element"), dataset_->element_spec()));
      const int64_t bytes = BufferedBytes(element);
      ctx_.runtime->ram_budget().Add(bytes);
      stream->buffer.push_back({std::move(element), bytes});
    }
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset, dataset_->Open(stream->args));
    stream->iterator = dataset->NewIterator(ctx_);
    SLUICE_RETURN_IF_ERROR(reader.ReadIterator(key + "/iterator", *stream->iterator));
    return stream;
  }

  const std::shared_ptr<const InterleaveDataset> dataset_;
  const IteratorContext ctx_;
  const std::unique_ptr<Iterator> input_;  // read by the consumer's thread only
  const bool deterministic_;
  const int64_t future_limit_;   // input elements opened ahead
  const int64_t stream_buffer_;  // results read ahead per stream
  std::shared_ptr<Tunable> tunable_;  // with kAutotune
  int waker_ = 0;
  std::vector<std::thread> workers_;  // started by GetNext; changed by the consumer's thread only

  std::mutex mu_;
  std::condition_variable consumer_cond_;  // a stream got a result or ended, or shutdown
  std::condition_variable worker_cond_;    // a stream wants work, or shutdown
  std::vector<std::shared_ptr<Stream>> cycle_;  // guarded by mu_; cycle_length slots, null when empty
  std::deque<std::shared_ptr<Stream>> future_;  // guarded by mu_; opened ahead, in input order
  std::vector<std::shared_ptr<Stream>> finished_;  // guarded by mu_; to destroy without mu_ held
  size_t cursor_ = 0;                      // guarded by mu_
  int64_t block_index_ = 0;                // guarded by mu_
  int64_t open_slots_ = 0;                 // guarded by mu_
  bool input_done_ = false;                // guarded by mu_
  bool stopping_ = false;                  // guarded by mu_
  int64_t bytes_per_element_ = 0;          // guarded by mu_; of the last result read
  bool measured_ = false;                  // guarded by mu_; a result has arrived
  int64_t reading_ = 0;                    // guarded by mu_; workers inside a GetNext
};

}  // namespace

std::unique_ptr<Iterator> NewParallelInterleaveIterator(std::shared_ptr<const InterleaveDataset> dataset,
                                                        const IteratorContext& ctx) {
  return std::make_unique<ParallelInterleaveIterator>(std::move(dataset), ctx);
}

}  // namespace sluice
