#include "dataset/iterator_profile.h"

#include <algorithm>

#include "dataset/profile.h"

namespace sluice {

void CallTotals::Add(const CallTotals& other) {
  calls += other.calls;
  elements += other.elements;
  bytes += other.bytes;
  elapsed_ns += other.elapsed_ns;
  if (other.first_start_ns >= 0 && (first_start_ns < 0 || other.first_start_ns < first_start_ns)) {
    first_start_ns = other.first_start_ns;
  }
  last_end_ns = std::max(last_end_ns, other.last_end_ns);
}

IteratorProfile::IteratorProfile(std::shared_ptr<const Profile> profile, ProfileNode* node, CallCounters* counters)
    : profile_(std::move(profile)),
      node_(node),
      counters_(*counters),
      rng_(0x9e3779b97f4a7c15ull ^ reinterpret_cast<uintptr_t>(this) ^ (static_cast<uint64_t>(node->index()) << 32)) {
  const int64_t calls = node_->Register(this);
  always_timed_left_ = std::max<int64_t>(0, ProfileNode::kAlwaysTimedCalls - calls);
  counters_.countdown = 1;
  if (always_timed_left_ == 0) {
    offset_ = DrawOffset();
    counters_.countdown = offset_ + 1;
  }
}

IteratorProfile::~IteratorProfile() { node_->Unregister(this); }

int64_t IteratorProfile::DrawOffset() {
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  return static_cast<int64_t>(rng_ % ProfileNode::kSamplePeriod);
}

int64_t IteratorProfile::BeginTimedCall() {
  if (always_timed_left_ > 0) {
    if (--always_timed_left_ > 0) {
      counters_.countdown = 1;
    } else {
      // Sampling starts with the next call's window.
      offset_ = DrawOffset();
      counters_.countdown = offset_ + 1;
    }
    return 1;
  }
  // The rest of this window, then the next one's drawn offset.
  const int64_t next = DrawOffset();
  counters_.countdown = ProfileNode::kSamplePeriod - offset_ + next;
  offset_ = next;
  return ProfileNode::kSamplePeriod;
}

void IteratorProfile::EndTimedCall(int64_t weight, int64_t start_ns, int64_t end_ns, int64_t elements, int64_t bytes) {
  counters_.Count(elements);
  const int64_t elapsed = end_ns - start_ns;
  if (elements > 0) CallCounters::Increment(bytes_, bytes * weight);
  CallCounters::Increment(elapsed_ns_, elapsed * weight);
  if (first_start_ns_.load(std::memory_order_relaxed) < 0) first_start_ns_.store(start_ns, std::memory_order_relaxed);
  last_end_ns_.store(end_ns, std::memory_order_relaxed);
  if (!events_full_) events_full_ = !node_->RecordEvent(start_ns, elapsed);
}

CallTotals IteratorProfile::Read() const {
  CallTotals totals;
  totals.calls = counters_.calls.load(std::memory_order_relaxed);
  totals.elements = counters_.elements.load(std::memory_order_relaxed);
  totals.bytes = bytes_.load(std::memory_order_relaxed);
  totals.elapsed_ns = elapsed_ns_.load(std::memory_order_relaxed);
  totals.first_start_ns = first_start_ns_.load(std::memory_order_relaxed);
  totals.last_end_ns = last_end_ns_.load(std::memory_order_relaxed);
  return totals;
}

}  // namespace sluice
