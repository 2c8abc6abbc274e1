#include "sluice/service/task_buffer.h"

#include "sluice/dataset/buffered_bytes.h"

namespace sluice::service {
namespace {

// What an item is charged while held.
uint64_t Charge(const TaskItem& item) { return item.bytes + TaskBuffer::kItemOverheadBytes; }

}  // namespace

uint64_t TaskItem::ContentBytes(const Element& element) {
  // A buffered element's charge (dataset/buffered_bytes.h) without its entry.
  return static_cast<uint64_t>(BufferedBytes(element) - kBufferEntryBytes);
}

bool TaskBuffer::Push(std::vector<TaskItem>& items) {
  std::unique_lock<std::mutex> lock(mu_);
  for (TaskItem& item : items) {
    // A coordinated split's end is held once per consumer.
    const uint64_t copies =
        num_consumers_ > 0 && item.kind == TaskItem::Kind::kSplitEnd
            ? static_cast<uint64_t>(num_consumers_) - static_cast<uint64_t>(dropped_consumers_.size())
            : 1;
    const uint64_t charge = Charge(item) * copies;
    auto room = [&] { return cancelled_ || bytes_ == 0 || bytes_ + charge <= max_bytes_; };
    if (!room()) {
      changed_.notify_all();  // sessions may take the items pushed so far, and so make room
      changed_.wait(lock, room);
    }
    if (cancelled_) return false;
    if (dropped_.count(item.split_id) > 0) continue;
    if (num_consumers_ > 0) {
      if (item.kind == TaskItem::Kind::kSplitEnd) {
        for (size_t consumer = 0; consumer < by_consumer_.size(); ++consumer) {
          if (dropped_consumers_.count(static_cast<int64_t>(consumer)) > 0) continue;
          bytes_ += Charge(item);
          by_consumer_[consumer].push_back(item);
        }
        continue;
      }
      const int64_t consumer = static_cast<int64_t>(item.index % static_cast<uint64_t>(num_consumers_));
      if (dropped_consumers_.count(consumer) > 0) continue;
      bytes_ += Charge(item);
      by_consumer_[static_cast<size_t>(consumer)].push_back(std::move(item));
    } else {
      if (splits_.empty() || splits_.back().split_id != item.split_id) splits_.push_back({.split_id = item.split_id});
      bytes_ += Charge(item);
      splits_.back().items.push_back(std::move(item));
    }
  }
  items.clear();
  lock.unlock();
  changed_.notify_all();
  return true;
}

void TaskBuffer::Finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
  }
  changed_.notify_all();
}

void TaskBuffer::Cancel() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
  }
  changed_.notify_all();
}

std::deque<TaskItem>* TaskBuffer::QueueFor(uint64_t session, int64_t consumer_index) {
  if (num_consumers_ > 0) {
    if (consumer_index < 0 || consumer_index >= num_consumers_) return nullptr;
    return &by_consumer_[static_cast<size_t>(consumer_index)];
  }
  for (SplitQueue& split : splits_) {
    if (split.owner == session) return &split.items;
  }
  for (SplitQueue& split : splits_) {
    if (split.owner == 0) {
      split.owner = session;
      return &split.items;
    }
  }
  return nullptr;
}

TaskBuffer::PopResult TaskBuffer::Pop(uint64_t session, int64_t consumer_index, std::chrono::milliseconds timeout,
                                      PopLimits limits, std::vector<TaskItem>* out) {
  std::unique_lock<std::mutex> lock(mu_);
  std::deque<TaskItem>* queue = nullptr;
  auto ready_now = [&] {
    if (cancelled_) return true;
    if (dropped_consumers_.count(consumer_index) > 0) return true;
    queue = QueueFor(session, consumer_index);
    return (queue != nullptr && !queue->empty()) || (finished_ && queue == nullptr) ||
           (finished_ && queue->empty() && num_consumers_ > 0);
  };
  bool ready = ready_now();
  if (!ready) {
    waiting_sessions_.fetch_add(1, std::memory_order_relaxed);
    ready = changed_.wait_for(lock, timeout, ready_now);
    waiting_sessions_.fetch_sub(1, std::memory_order_relaxed);
  }
  if (cancelled_) return PopResult::kEnd;
  if (dropped_consumers_.count(consumer_index) > 0) return PopResult::kDropped;
  if (!ready) return PopResult::kTimeout;
  if (queue == nullptr || queue->empty()) return PopResult::kEnd;
  uint64_t taken_bytes = 0;
  size_t taken = 0;
  bool split_ended = false;
  do {
    TaskItem& item = out->emplace_back(std::move(queue->front()));
    queue->pop_front();
    bytes_ -= Charge(item);
    taken_bytes += item.bytes;
    ++taken;
    split_ended = num_consumers_ == 0 && item.kind == TaskItem::Kind::kSplitEnd;
  } while (!split_ended && !queue->empty() && taken < limits.items && taken_bytes < limits.bytes);
  for (auto it = splits_.begin(); it != splits_.end(); ++it) {
    if (it->owner != session) continue;
    // A split the session ended is no longer held.
    if (split_ended) {
      splits_.erase(it);
    } else {
      it->started = true;
    }
    break;
  }
  lock.unlock();
  changed_.notify_all();
  return PopResult::kItem;
}

void TaskBuffer::Release(uint64_t session) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = splits_.begin(); it != splits_.end();) {
      if (it->owner != session) {
        ++it;
      } else if (!it->started) {
        (it++)->owner = 0;
      } else {
        for (const TaskItem& item : it->items) bytes_ -= Charge(item);
        dropped_.insert(it->split_id);
        it = splits_.erase(it);
      }
    }
  }
  changed_.notify_all();
}

void TaskBuffer::DropConsumer(int64_t consumer_index) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (consumer_index < 0 || consumer_index >= num_consumers_) return;
    if (!dropped_consumers_.insert(consumer_index).second) return;
    std::deque<TaskItem>& queue = by_consumer_[static_cast<size_t>(consumer_index)];
    for (const TaskItem& item : queue) bytes_ -= Charge(item);
    queue.clear();
  }
  changed_.notify_all();
}

bool TaskBuffer::ConsumerDropped(int64_t consumer_index) const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_consumers_.count(consumer_index) > 0;
}

void TaskBuffer::BeginSplit(int64_t split_id) {
  std::lock_guard<std::mutex> lock(mu_);
  dropped_.erase(split_id);
}

uint64_t TaskBuffer::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

}  // namespace sluice::service
