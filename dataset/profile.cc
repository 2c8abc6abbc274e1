#include "sluice/dataset/profile.h"

#include <algorithm>

#include "sluice/dataset/dataset.h"

namespace sluice {

std::string_view TunableParameterName(TunableParameter parameter) {
  switch (parameter) {
    case TunableParameter::kNumParallelCalls: return "num_parallel_calls";
    case TunableParameter::kBufferSize: return "buffer_size";
    case TunableParameter::kCycleLength: return "cycle_length";
  }
  return "num_parallel_calls";
}

const TunableSnapshot* NodeSnapshot::FindTunable(TunableParameter parameter) const {
  for (const TunableSnapshot& tunable : tunables) {
    if (tunable.parameter == parameter) return &tunable;
  }
  return nullptr;
}

ProfileNode::ProfileNode(int index, ProfileNode* parent, std::string op_name, bool source, int64_t max_events,
                         std::chrono::steady_clock::time_point epoch)
    : index_(index), epoch_(epoch), parent_(parent), op_name_(std::move(op_name)), source_(source), max_events_(max_events) {
  sampling_.always_timed_left = kAlwaysTimedCalls;
  sampling_.rng = (0x9e3779b97f4a7c15ull ^ (static_cast<uint64_t>(index) << 32)) | 1;
}

SamplingState ProfileNode::Register(const IteratorProfile* iterator) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t calls = folded_.calls;
  for (const IteratorProfile* live : live_) calls += live->Read().calls;
  live_.push_back(iterator);
  if (first_start_ns_ < 0) first_start_ns_ = NowNs();
  if (sampling_holder_ == nullptr) {
    sampling_holder_ = iterator;
    return sampling_;
  }
  SamplingState own;
  own.rng = (sampling_.rng ^ (0xbf58476d1ce4e5b9ull * static_cast<uint64_t>(++fresh_states_))) | 1;
  own.always_timed_left = std::max<int64_t>(0, kAlwaysTimedCalls - calls);
  if (own.always_timed_left == 0) {
    own.offset = DrawSampleOffset(own.rng);
    own.countdown = own.offset + 1;
  }
  return own;
}

void ProfileNode::Unregister(const IteratorProfile* iterator, const SamplingState& sampling) {
  std::lock_guard<std::mutex> lock(mu_);
  folded_.Add(iterator->Read());
  live_.erase(std::find(live_.begin(), live_.end(), iterator));
  if (sampling_holder_ == iterator) {
    sampling_ = sampling;
    sampling_holder_ = nullptr;
  }
  last_end_ns_ = NowNs();
}

CallTotals ProfileNode::Totals() const {
  std::lock_guard<std::mutex> lock(mu_);
  CallTotals totals = folded_;
  for (const IteratorProfile* live : live_) totals.Add(live->Read());
  return totals;
}

void ProfileNode::ActiveSpan(int64_t* start_ns, int64_t* end_ns) const {
  std::lock_guard<std::mutex> lock(mu_);
  *start_ns = first_start_ns_;
  *end_ns = live_.empty() ? last_end_ns_ : NowNs();
}

bool ProfileNode::RecordEvent(int64_t start_ns, int64_t duration_ns) {
  if (events_recorded_.load(std::memory_order_relaxed) >= max_events_) return false;
  std::lock_guard<std::mutex> lock(mu_);
  if (static_cast<int64_t>(events_.size()) >= max_events_) return false;
  events_.push_back({start_ns, duration_ns});
  events_recorded_.store(static_cast<int64_t>(events_.size()), std::memory_order_relaxed);
  return true;
}

void ProfileNode::RecordBufferSample(int64_t size, int64_t capacity) {
  if (capacity <= 0) return;
  samples_.fetch_add(1, std::memory_order_relaxed);
  fill_permille_sum_.fetch_add(std::min<int64_t>(size, capacity) * 1000 / capacity, std::memory_order_relaxed);
  capacity_sum_.fetch_add(capacity, std::memory_order_relaxed);
  if (size == 0) empty_samples_.fetch_add(1, std::memory_order_relaxed);
  if (size >= capacity) full_samples_.fetch_add(1, std::memory_order_relaxed);
}

Profile::Profile(Options options) : options_(options), epoch_(std::chrono::steady_clock::now()) {}

void Profile::RecordConsumerStep(std::chrono::nanoseconds waiting_for_input, std::chrono::nanoseconds step_duration) {
  steps_.fetch_add(1, std::memory_order_relaxed);
  step_wait_ns_.fetch_add(waiting_for_input.count(), std::memory_order_relaxed);
  step_ns_.fetch_add(step_duration.count(), std::memory_order_relaxed);
}

ProfileNode* Profile::AddNode(const Dataset& dataset, ProfileNode* parent, const Dataset* parent_dataset) {
  // A static input is keyed by its place among the parent's inputs; the top
  // by its dataset; anything else (an interleave's sub-datasets, an op's
  // plan) by its op name, so that each new sub-dataset adds to one node.
  intptr_t tag = -1;
  if (parent == nullptr) {
    tag = reinterpret_cast<intptr_t>(&dataset);
  } else if (parent_dataset != nullptr) {
    const std::vector<DatasetPtr> inputs = parent_dataset->inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].get() == &dataset) tag = static_cast<intptr_t>(i);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto key = std::make_tuple(parent == nullptr ? -1 : parent->index(), tag, std::string(dataset.op_name()));
  if (auto found = by_key_.find(key); found != by_key_.end()) return found->second;
  auto node = std::unique_ptr<ProfileNode>(new ProfileNode(static_cast<int>(nodes_.size()), parent,
                                                           std::string(dataset.op_name()), dataset.inputs().empty(),
                                                           options_.max_trace_events_per_node, epoch_));
  ProfileNode* raw = node.get();
  nodes_.push_back(std::move(node));
  by_key_.emplace(std::move(key), raw);
  return raw;
}

void Profile::Delegate(ProfileNode* outer, ProfileNode* inner) {
  std::lock_guard<std::mutex> lock(mu_);
  if (inner->parent_ != outer) return;  // registered before, already in place
  inner->parent_ = outer->parent_;
  inner->op_name_ = outer->op_name_ + ">" + inner->op_name_;
  outer->delegated_ = true;
}

void Profile::SetAsync(ProfileNode* node, bool async) {
  std::lock_guard<std::mutex> lock(mu_);
  node->async_ = async;
}

void Profile::SetFunction(ProfileNode* node, StageFunction function) {
  std::lock_guard<std::mutex> lock(mu_);
  node->function_ = std::move(function);
}

ProfileSnapshot Profile::Snapshot() const {
  ProfileSnapshot snapshot;
  snapshot.consumer_steps = steps_.load(std::memory_order_relaxed);
  snapshot.consumer_wait_ns = step_wait_ns_.load(std::memory_order_relaxed);
  snapshot.consumer_step_ns = step_ns_.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mu_);
  // A node's input wait is the wall time of the nodes it is parent of.
  std::vector<CallTotals> totals(nodes_.size());
  std::vector<int64_t> input_ns(nodes_.size(), 0);
  for (const auto& node : nodes_) {
    totals[node->index_] = node->Totals();
    if (node->parent_ != nullptr) input_ns[node->parent_->index_] += totals[node->index_].elapsed_ns;
  }
  for (const auto& node : nodes_) {
    if (node->delegated_) continue;
    NodeSnapshot s;
    s.index = node->index_;
    s.parent = node->parent_ == nullptr ? -1 : node->parent_->index_;
    for (ProfileNode* p = node->parent_; p != nullptr; p = p->parent_) ++s.depth;
    s.op_name = node->op_name_;
    s.async = node->async_;
    s.source = node->source_;
    const auto load = [](const std::atomic<int64_t>& v) { return v.load(std::memory_order_relaxed); };
    const CallTotals& t = totals[node->index_];
    s.calls = t.calls;
    s.elements = t.elements;
    s.bytes = t.bytes;
    s.elapsed_ns = t.elapsed_ns;
    s.input_ns = input_ns[node->index_];
    s.parallelism = static_cast<int>(load(node->parallelism_));
    for (int i = 0; i < kTunableParameterCount; ++i) {
      const int64_t value = load(node->tunable_values_[i]);
      if (value == ProfileNode::kUnreported) continue;
      s.tunables.push_back({.parameter = static_cast<TunableParameter>(i),
                            .value = value,
                            .autotuned = node->tunable_autotuned_[i].load(std::memory_order_relaxed) != 0});
    }
    s.function = node->function_;
    if (s.async) {
      s.consumer_wait_ns = s.elapsed_ns;
      s.self_ns = load(node->work_ns_) / std::max(1, s.parallelism);  // as wall time, spread over its workers
    } else {
      // Measured inside its own timed calls (dataset/iterator_profile.h).
      s.self_ns = std::min(t.self_ns, s.elapsed_ns);
      s.input_ns = s.elapsed_ns - s.self_ns;
    }
    node->ActiveSpan(&s.start_ns, &s.end_ns);
    s.buffer_samples = load(node->samples_);
    if (s.buffer_samples > 0) {
      const double n = static_cast<double>(s.buffer_samples);
      s.mean_fill = static_cast<double>(load(node->fill_permille_sum_)) / 1000.0 / n;
      s.mean_capacity = static_cast<double>(load(node->capacity_sum_)) / n;
      s.empty_fraction = static_cast<double>(load(node->empty_samples_)) / n;
      s.full_fraction = static_cast<double>(load(node->full_samples_)) / n;
    }
    {
      std::lock_guard<std::mutex> events_lock(node->mu_);
      s.events = node->events_;
    }
    snapshot.nodes.push_back(std::move(s));
  }
  return snapshot;
}

}  // namespace sluice
