#include "sluice/dataset/ram_budget.h"


#include <chrono>
#include <fstream>
#include <string>

namespace sluice {
namespace {

// How often a throttled producer checks whether it may proceed anyway.
constexpr auto kPoll = std::chrono::milliseconds(5);

}  // namespace

bool RamBudget::TryAdd(int64_t bytes) {
  int64_t used = used_.load();
  while (used + bytes <= limit_) {
    if (used_.compare_exchange_weak(used, used + bytes)) {
      RaisePeak(used + bytes);
      return true;
    }
  }
  return false;
}

bool RamBudget::Reserve(int64_t bytes, const std::function<bool()>& proceed) {
  if (TryAdd(bytes)) return true;
  if (proceed()) return false;
  throttles_.fetch_add(1, std::memory_order_relaxed);
  // Sequentially consistent with Release: either it sees this waiter, or
  // the wait's check sees its release. proceed() runs without mu_ held (it
  // may take the caller's locks, under which Release is called).
  waiting_.fetch_add(1);
  bool charged = true;
  while (!TryAdd(bytes)) {
    if (proceed()) {
      charged = false;
      break;
    }
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait_for(lock, kPoll, [&] { return used_.load() + bytes <= limit_; });
  }
  waiting_.fetch_sub(1);
  return charged;
}

int64_t RamBudget::Settle(int64_t charged, int64_t bytes) {
  if (bytes <= charged) {
    if (bytes < charged) Release(charged - bytes);
    return bytes;
  }
  return TryAdd(bytes - charged) ? bytes : charged;
}

void RamBudget::Add(int64_t bytes) { RaisePeak(used_.fetch_add(bytes) + bytes); }

void RamBudget::RaisePeak(int64_t now) {
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void RamBudget::Release(int64_t bytes) {
  used_.fetch_sub(bytes);
  if (waiting_.load() == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  room_.notify_all();
}

int64_t DefaultRamBudget() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024 / 2;
  }
  return HostMemoryBytes() / 2;
}

int64_t HeldBytes(const Element& element) {
  constexpr int64_t kTensorOverheadBytes = sizeof(Tensor) + 64;
  return static_cast<int64_t>(element.NumBytes()) + static_cast<int64_t>(element.size()) * kTensorOverheadBytes;
}

Status ChargeRecordBytes(RamBudget& budget, int64_t bytes) {
  if (bytes < 0) {
    budget.Release(-bytes);
  } else if (!budget.TryAdd(bytes)) {
    return ResourceExhaustedError("the RAM budget has ", budget.limit() - budget.used(), " of its ", budget.limit(),
                                  " bytes free");
  }
  return OkStatus();
}

}  // namespace sluice
