// TaskBuffer: a worker's elements of one job between the thread that runs
// its splits and the consumer sessions that send them, bounded in bytes.
//
// Uncoordinated reads hand out whole splits, first come first served: a
// session takes the first split no other session holds and sends all of it,
// so that each consumer sees a split's elements in order (what lets it drop
// duplicates by index). Coordinated reads (num_consumers > 0) give element k
// of a split to consumer k % num_consumers, and every consumer the split's
// end. The producer waits while the buffer holds max_bytes or more (an
// element larger than that still goes alone), so a slow consumer holds the
// worker's memory at the bound. Each item held is charged its bytes and
// kItemOverheadBytes for itself, so that a buffer of empty elements, errors
// or split ends is bounded too. A consumer the dispatcher left out of a
// coordinated job (DropConsumer) has its share dropped, buffered and to
// come, so that the others read on.
// Thread safety: all methods from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <set>
#include <vector>

#include "sluice/core/element.h"
#include "sluice/core/status.h"

namespace sluice::service {

struct TaskItem {
  enum class Kind { kElement, kError, kSplitEnd };
  Kind kind = Kind::kElement;
  int64_t split_id = 0;
  uint64_t index = 0;  // kElement/kError: position in the split; kSplitEnd: the split's element count
  uint64_t first_index = 0;  // the split's first index this run sends (GetSplitResponse.first_index)
  Element element;
  Status error;
  // What the element or the error holds beside the item (ContentBytes);
  // the buffer charges this plus kItemOverheadBytes against max_bytes.
  uint64_t bytes = 0;

  // An element's tensors and their handles; an error's message.
  static uint64_t ContentBytes(const Element& element);
  static uint64_t ContentBytes(const Status& error) { return error.message().size(); }
};

class TaskBuffer {
 public:
  // What each item held takes beside its bytes: the item and its queue's
  // bookkeeping.
  static constexpr uint64_t kItemOverheadBytes = sizeof(TaskItem) + 32;

  TaskBuffer(int64_t num_consumers, uint64_t max_bytes) : num_consumers_(num_consumers), max_bytes_(max_bytes) {
    if (num_consumers_ > 0) by_consumer_.resize(static_cast<size_t>(num_consumers_));
  }

  // Adds `items` in order (and clears it), each waiting while the buffer is
  // full; false once cancelled. One lock for many: a producer gathers items
  // and pushes them together, at once while SessionsWaiting.
  bool Push(std::vector<TaskItem>& items);
  // Whether a session waits for items now.
  bool SessionsWaiting() const { return waiting_sessions_.load(std::memory_order_relaxed) > 0; }
  // No more items: sessions end once they have taken what is left.
  void Finish();
  // Wakes and ends every wait; pushes fail from now on.
  void Cancel();

  enum class PopResult { kItem, kTimeout, kEnd, kDropped };
  // What one Pop may take: at least one item, and more while there are
  // fewer than `items` and their elements hold less than `bytes`.
  struct PopLimits {
    size_t items = 1;
    uint64_t bytes = 0;
  };
  // The next items for session `session` (any id unique per session) of
  // consumer `consumer_index` (coordinated reads only), appended to *out,
  // waiting at most `timeout` for the first. An uncoordinated session's
  // items end with its split's end: the next Pop starts the next split.
  // kDropped for a consumer that was dropped.
  PopResult Pop(uint64_t session, int64_t consumer_index, std::chrono::milliseconds timeout, PopLimits limits,
                std::vector<TaskItem>* out);
  // A session that ends gives up the split it held (uncoordinated reads):
  // one it sent nothing of goes to the next session; one it sent part of is
  // dropped, with the rest of its items as they come, so that the split is
  // run again whole (the worker gives it back to the dispatcher).
  void Release(uint64_t session);
  // Coordinated reads: drops consumer `consumer_index`'s share, buffered
  // and to come. Idempotent.
  void DropConsumer(int64_t consumer_index);
  // Whether consumer `consumer_index` was dropped.
  bool ConsumerDropped(int64_t consumer_index) const;
  // The producer starts (again) on `split_id`: its items are kept from now.
  void BeginSplit(int64_t split_id);

  // What the items held are charged: their bytes and kItemOverheadBytes each.
  uint64_t bytes() const;
  int64_t num_consumers() const { return num_consumers_; }

 private:
  struct SplitQueue {
    int64_t split_id = 0;
    uint64_t owner = 0;  // the session sending it; 0: none yet
    bool started = false;  // the owner has taken an item of it
    std::deque<TaskItem> items;
  };
  // The queue a session takes from; null if none. REQUIRES: mu_ held.
  std::deque<TaskItem>* QueueFor(uint64_t session, int64_t consumer_index);

  const int64_t num_consumers_;
  const uint64_t max_bytes_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::deque<SplitQueue> splits_;                   // GUARDED_BY(mu_), uncoordinated
  std::vector<std::deque<TaskItem>> by_consumer_;   // GUARDED_BY(mu_), coordinated
  std::set<int64_t> dropped_;                       // GUARDED_BY(mu_), splits whose items are dropped
  std::set<int64_t> dropped_consumers_;             // GUARDED_BY(mu_), coordinated
  uint64_t bytes_ = 0;                              // GUARDED_BY(mu_)
  bool finished_ = false;                           // GUARDED_BY(mu_)
  bool cancelled_ = false;                          // GUARDED_BY(mu_)
  std::atomic<int> waiting_sessions_{0};            // written under mu_
};

}  // namespace sluice::service
