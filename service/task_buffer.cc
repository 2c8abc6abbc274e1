#include "sluice/service/task_buffer.h"

namespace sluice::service {

bool TaskBuffer::Push(TaskItem item) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] { return cancelled_ || bytes_ == 0 || bytes_ + item.bytes <= max_bytes_; });
  if (cancelled_) return false;
  if (dropped_.count(item.split_id) > 0) return true;
  bytes_ += item.bytes;
  if (num_consumers_ > 0) {
    if (item.kind == TaskItem::Kind::kSplitEnd) {
      for (size_t consumer = 0; consumer < by_consumer_.size(); ++consumer) {
        if (dropped_consumers_.count(static_cast<int64_t>(consumer)) == 0) by_consumer_[consumer].push_back(item);
      }
    } else {
      const int64_t consumer = static_cast<int64_t>(item.index % static_cast<uint64_t>(num_consumers_));
      if (dropped_consumers_.count(consumer) > 0) {
        bytes_ -= item.bytes;
        return true;
      }
      by_consumer_[static_cast<size_t>(consumer)].push_back(std::move(item));
    }
  } else {
    if (splits_.empty() || splits_.back().split_id != item.split_id) splits_.push_back({.split_id = item.split_id});
    splits_.back().items.push_back(std::move(item));
  }
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
                                      TaskItem* out) {
  std::unique_lock<std::mutex> lock(mu_);
  std::deque<TaskItem>* queue = nullptr;
  const bool ready = changed_.wait_for(lock, timeout, [&] {
    if (cancelled_) return true;
    if (dropped_consumers_.count(consumer_index) > 0) return true;
    queue = QueueFor(session, consumer_index);
    return (queue != nullptr && !queue->empty()) || (finished_ && queue == nullptr) ||
           (finished_ && queue->empty() && num_consumers_ > 0);
  });
  if (cancelled_) return PopResult::kEnd;
  if (dropped_consumers_.count(consumer_index) > 0) return PopResult::kDropped;
  if (!ready) return PopResult::kTimeout;
  if (queue == nullptr || queue->empty()) return PopResult::kEnd;
  *out = std::move(queue->front());
  queue->pop_front();
  bytes_ -= out->bytes;
  for (SplitQueue& split : splits_) {
    if (split.owner == session) split.started = true;
  }
  if (num_consumers_ == 0 && out->kind == TaskItem::Kind::kSplitEnd) {
    for (auto it = splits_.begin(); it != splits_.end(); ++it) {
      if (it->owner == session) {
        splits_.erase(it);
        break;
      }
    }
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
        for (const TaskItem& item : it->items) bytes_ -= item.bytes;
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
    for (const TaskItem& item : queue) bytes_ -= item.bytes;
    queue.clear();
  }
  changed_.notify_all();
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
