#include "sluice/dataset/iterator_profile.h"

#include <algorithm>

#include "sluice/dataset/profile.h"

namespace sluice {

void CallTotals::Add(const CallTotals& other) {
  calls += other.calls;
  elements += other.elements;
  bytes += other.bytes;
  elapsed_ns += other.elapsed_ns;
  self_ns += other.self_ns;
}

constinit thread_local TimedCallFrame* current_timed_call = nullptr;

int64_t DrawSampleOffset(uint64_t& rng) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return static_cast<int64_t>(rng % ProfileNode::kSamplePeriod);
}

IteratorProfile::IteratorProfile(std::shared_ptr<const Profile> profile, ProfileNode* node, CallCounters* counters)
    : profile_(std::move(profile)), node_(node), counters_(*counters), sampling_(node_->Register(this)) {
  counters_.countdown = sampling_.countdown;
}

IteratorProfile::~IteratorProfile() {
  sampling_.countdown = counters_.countdown;
  node_->Unregister(this, sampling_);
}

int64_t IteratorProfile::BeginTimedCall() {
  SamplingState& s = sampling_;
  if (s.always_timed_left > 0) {
    if (--s.always_timed_left > 0) {
      counters_.countdown = 1;
    } else {
      // Sampling starts with the next call's window.
      s.offset = DrawSampleOffset(s.rng);
      counters_.countdown = s.offset + 1;
    }
    return 1;
  }
  // The rest of this window, then the next one's drawn offset.
  const int64_t next = DrawSampleOffset(s.rng);
  counters_.countdown = ProfileNode::kSamplePeriod - s.offset + next;
  s.offset = next;
  return ProfileNode::kSamplePeriod;
}

void IteratorProfile::EndTimedCall(int64_t weight, int64_t start_ns, int64_t end_ns, int64_t input_ns,
                                   int64_t elements, int64_t bytes) {
  counters_.Count(elements);
  const int64_t elapsed = end_ns - start_ns;
  if (elements > 0) CallCounters::Increment(bytes_, bytes * weight);
  CallCounters::Increment(elapsed_ns_, elapsed * weight);
  CallCounters::Increment(self_ns_, std::max<int64_t>(0, elapsed - input_ns) * weight);
  if (!events_full_) events_full_ = !node_->RecordEvent(start_ns, elapsed);
}

CallTotals IteratorProfile::Read() const {
  CallTotals totals;
  totals.calls = counters_.calls.load(std::memory_order_relaxed);
  totals.elements = counters_.elements.load(std::memory_order_relaxed);
  totals.bytes = bytes_.load(std::memory_order_relaxed);
  totals.elapsed_ns = elapsed_ns_.load(std::memory_order_relaxed);
  totals.self_ns = self_ns_.load(std::memory_order_relaxed);
  return totals;
}

}  // namespace sluice
