#include "sluice/dataset/parallel_transform.h"

#include <algorithm>
#include <chrono>

#include "sluice/dataset/buffered_bytes.h"
#include "sluice/dataset/iterator_state.h"

namespace sluice {

ParallelTransformIterator::ParallelTransformIterator(const IteratorContext& ctx, std::unique_ptr<Iterator> input,
                                                     std::shared_ptr<const GroupTransform> transform,
                                                     Options options)
    : runtime_(ctx.runtime),
      cancellation_(ctx.cancellation),
      transform_(std::move(transform)),
      options_(options),
      input_(std::move(input)) {
  if (options_.seeds != nullptr) seeds_.emplace(*options_.seeds);
  if (options_.parallelism == kAutotune) {
    const int64_t budget = runtime_->options().cpu_budget;
    tunable_ = runtime_->autotuner().Register(options_.op_name, 1, std::max<int64_t>(2, 2 * budget), budget);
  }
  waker_ = cancellation_->Register([this] {
    std::lock_guard<std::mutex> lock(mu_);
    consumer_cond_.notify_all();
    runner_cond_.notify_all();
  });
}

ParallelTransformIterator::~ParallelTransformIterator() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  runner_cond_.notify_all();
  if (runner_.joinable()) runner_.join();
  tasks_.Wait();
  cancellation_->Deregister(waker_);
  for (const auto& group : groups_) runtime_->ram_budget().Release(group->charge);
}

int64_t ParallelTransformIterator::Parallelism() const {
  return tunable_ != nullptr ? tunable_->value() : options_.parallelism;
}

void ParallelTransformIterator::StartRunner() {
  if (!runner_.joinable() && !input_done_) runner_ = std::thread([this] { Run(); });
}

void ParallelTransformIterator::StopRunner() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pausing_ = true;
  }
  runner_cond_.notify_all();
  if (runner_.joinable()) runner_.join();
  tasks_.Wait();
  std::lock_guard<std::mutex> lock(mu_);
  pausing_ = false;
}

// The runner: while there is room for another group, reads one from the
// input and queues its transform on the CPU pool.
void ParallelTransformIterator::Run() {
  RamBudget& budget = runtime_->ram_budget();
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    // Until a group has finished, element sizes are unknown: with the
    // budget over half full, one group at a time.
    runner_cond_.wait(lock, [&] {
      return MustStop() || (static_cast<int64_t>(groups_.size()) < Parallelism() &&
                            (measured_ || groups_.empty() || budget.Fits(budget.limit() / 2)));
    });
    if (MustStop()) return;
    // All groups together may take at most half the budget, leaving the
    // rest to the other buffers (a prefetch after this op).
    int64_t size =
        std::max<int64_t>(1, transform_->NextGroupSize(seconds_per_element_));
    if (bytes_per_element_ > 0) {
      size = std::clamp<int64_t>(budget.limit() / (2 * Parallelism() * bytes_per_element_), 1, size);
    }
    const int64_t estimate = size * bytes_per_element_;
    GroupTransform::Input input{.elements = TakeSpare(spare_inputs_)};
    lock.unlock();
    // Over budget, the runner waits unless its consumer waits on it with
    // no group here to take (it may hold memory it can only release after
    // more input, as a shuffle does): then the group goes to it uncharged.
    const int64_t reserved = budget.Reserve(estimate, [this] {
      std::lock_guard<std::mutex> proceed_lock(mu_);
      return MustStop() || (groups_.empty() && consumer_waiting_);
    }) ? estimate : 0;
    bool end = false;
    int64_t input_bytes = 0;
    while (static_cast<int64_t>(input.elements.size()) < size) {
      Result<std::optional<Element>> next = input_->GetNext();
      if (!next.ok()) {
        input.error = next.status();
        break;
      }
      if (!next->has_value()) {
        end = true;
        break;
      }
      input_bytes += BufferedBytes(**next);
      input.elements.push_back(std::move(**next));
    }
    if (seeds_) {
      input.seed = seeds_->iterator_seed();
      input.first_position = seeds_->position();
      seeds_->Skip(static_cast<int64_t>(input.elements.size()));
    }
    // Charged at the larger of its input and its estimated output until
    // done, where that fits.
    const int64_t charge = budget.Settle(reserved, std::max(input_bytes, estimate));
    lock.lock();
    if (end) input_done_ = true;
    if (!input.elements.empty() || !input.error.ok()) {
      groups_.push_back(std::make_unique<Group>());
      Group* group = groups_.back().get();
      group->charge = charge;
      runtime_->cpu_pool().Run(
          tasks_, [this, group, input = std::move(input), outputs = TakeSpare(spare_outputs_)]() mutable {
            RunGroup(group, std::move(input), std::move(outputs));
          });
    } else {
      budget.Release(charge);
      Recycle(input.elements, spare_inputs_);
    }
    if (end) {
      consumer_cond_.notify_all();
      return;
    }
  }
}

void ParallelTransformIterator::RunGroup(Group* group, GroupTransform::Input input, GroupOutputs outputs) {
  const int64_t elements = static_cast<int64_t>(input.elements.size()) + (input.error.ok() ? 0 : 1);
  const auto start = std::chrono::steady_clock::now();
  transform_->Transform(input, outputs);
  const auto busy = std::chrono::steady_clock::now() - start;
  int64_t output_bytes = 0;  // the tensors', for the autotuner
  int64_t held_bytes = 0;    // what the outputs are charged, errors and entries included
  for (const Result<Element>& output : outputs) {
    if (output.ok()) output_bytes += static_cast<int64_t>(output->NumBytes());
    held_bytes += BufferedBytes(output);
  }
  if (tunable_ != nullptr) tunable_->RecordWork(elements, output_bytes, busy);
  RecordAsyncWork(std::chrono::duration_cast<std::chrono::nanoseconds>(busy).count(), Parallelism());
  RecordTunable(TunableParameter::kNumParallelCalls, Parallelism(), tunable_ != nullptr);
  std::lock_guard<std::mutex> lock(mu_);
  Recycle(input.elements, spare_inputs_);
  group->charge = runtime_->ram_budget().Settle(group->charge, held_bytes);
  // Cost and size are learnt together, so the runner never sizes a group by
  // a known cost at an unknown (zero) size.
  seconds_per_element_ = std::chrono::duration<double>(busy).count() / elements;
  if (!outputs.empty()) bytes_per_element_ = held_bytes / static_cast<int64_t>(outputs.size());
  measured_ = true;
  runner_cond_.notify_one();
  group->outputs = std::move(outputs);
  group->done = true;
  consumer_cond_.notify_all();
}

template <typename Vector>
void ParallelTransformIterator::Recycle(Vector& vector, std::vector<Vector>& spares) {
  vector.clear();
  // One per group that can exist at once, and one being filled.
  if (static_cast<int64_t>(spares.size()) <= Parallelism()) spares.push_back(std::move(vector));
}

template <typename Vector>
Vector ParallelTransformIterator::TakeSpare(std::vector<Vector>& spares) {
  if (spares.empty()) return Vector();
  Vector spare = std::move(spares.back());
  spares.pop_back();
  return spare;
}

void ParallelTransformIterator::Release(Group& group, int64_t bytes) {
  bytes = std::min(bytes, group.charge);
  group.charge -= bytes;
  runtime_->ram_budget().Release(bytes);
}

std::optional<Result<Element>> ParallelTransformIterator::TakeReadyOutput() {
  for (auto it = groups_.begin(); it != groups_.end();) {
    Group& group = **it;
    if (!group.done) {
      if (options_.deterministic) return std::nullopt;
      ++it;
      continue;
    }
    if (group.outputs.empty()) {  // a group without outputs (a dropped remainder)
      Release(group, group.charge);
      Recycle(group.outputs, spare_outputs_);
      it = groups_.erase(it);
      runner_cond_.notify_one();
      continue;
    }
    Result<Element> output = std::move(group.outputs[group.next++]);
    Release(group, BufferedBytes(output));
    if (group.next == group.outputs.size()) {
      Release(group, group.charge);
      Recycle(group.outputs, spare_outputs_);
      groups_.erase(it);
      runner_cond_.notify_one();
    }
    return output;
  }
  return std::nullopt;
}

Result<std::optional<Element>> ParallelTransformIterator::GetNextInternal() {
  std::unique_lock<std::mutex> lock(mu_);
  StartRunner();
  // Fill = finished groups waiting for the consumer (not those in flight).
  if (profiled()) {
    RecordBufferSample(std::count_if(groups_.begin(), groups_.end(), [](const auto& group) { return group->done; }),
                       Parallelism());
  }
  while (true) {
    if (cancellation_->cancelled()) return CancelledError(options_.op_name, ": Iterator was cancelled");
    std::optional<Result<Element>> output = TakeReadyOutput();
    if (output) {
      if (!output->ok()) return output->status();
      return std::optional<Element>(std::move(*output).value());
    }
    if (groups_.empty() && input_done_) return std::nullopt;
    consumer_waiting_ = true;
    consumer_cond_.wait(lock);
    consumer_waiting_ = false;
  }
}

Status ParallelTransformIterator::SaveInternal(IteratorStateWriter& writer) {
  StopRunner();
  std::lock_guard<std::mutex> lock(mu_);
  writer.WriteBool("input_done", input_done_);
  int64_t count = 0;
  for (const auto& group : groups_) {
    for (size_t i = group->next; i < group->outputs.size(); ++i) {
      const Result<Element>& output = group->outputs[i];
      const std::string key = StrCat("outputs/", count++);
      writer.WriteStatus(key + "/status", output.status());
      if (output.ok()) writer.WriteElement(key + "/element", *output);
    }
  }
  writer.WriteInt("outputs/size", count);
  if (seeds_) seeds_->Save(writer);
  return writer.WriteIterator("input", *input_);
}

Status ParallelTransformIterator::RestoreInternal(IteratorStateReader& reader) {
  StopRunner();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& group : groups_) Release(*group, group->charge);
  groups_.clear();
  SLUICE_ASSIGN_OR_RETURN(input_done_, reader.ReadBool("input_done"));
  SLUICE_ASSIGN_OR_RETURN(int64_t count, reader.ReadInt("outputs/size", 0, std::numeric_limits<int32_t>::max()));
  auto group = std::make_unique<Group>();
  group->done = true;
  for (int64_t i = 0; i < count; ++i) {
    const std::string key = StrCat("outputs/", i);
    Status status;
    SLUICE_RETURN_IF_ERROR(reader.ReadStatus(key + "/status", &status));
    if (status.ok()) {
      SLUICE_ASSIGN_OR_RETURN(Element element, reader.ReadElement(key + "/element", *options_.output_spec));
      group->outputs.push_back(std::move(element));
    } else {
      group->outputs.push_back(std::move(status));
    }
    const int64_t bytes = BufferedBytes(group->outputs.back());
    group->charge += bytes;
    runtime_->ram_budget().Add(bytes);
  }
  if (count > 0) groups_.push_back(std::move(group));
  if (seeds_) SLUICE_RETURN_IF_ERROR(seeds_->Restore(reader));
  return reader.ReadIterator("input", *input_);
}

}  // namespace sluice
