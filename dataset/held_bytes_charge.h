// HeldBytesCharge: the bytes an element function holds while it is used
// (BoundElementFunction::held_bytes, a vocabulary's table), charged to one
// traversal's RAM budget (dataset/ram_budget.h) for as long as the iterator
// of the op that applies the function lives, and released when it ends.
// Thread safety: one owner; the budget itself is thread-safe.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "sluice/dataset/ram_budget.h"

namespace sluice {

class HeldBytesCharge {
 public:
  // `bytes` for function `fn_name`, charged if they fit; nothing to charge
  // for bytes <= 0. ResourceExhausted naming the function and the bytes
  // needed against those the budget has left when they don't fit.
  static Result<HeldBytesCharge> Make(RamBudget& budget, int64_t bytes, std::string_view fn_name);

  HeldBytesCharge() = default;
  HeldBytesCharge(HeldBytesCharge&& other) noexcept
      : budget_(std::exchange(other.budget_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  HeldBytesCharge& operator=(HeldBytesCharge&& other) noexcept;
  ~HeldBytesCharge();

  int64_t bytes() const { return bytes_; }

 private:
  HeldBytesCharge(RamBudget* budget, int64_t bytes) : budget_(budget), bytes_(bytes) {}
  RamBudget* budget_ = nullptr;  // null: nothing charged
  int64_t bytes_ = 0;
};

}  // namespace sluice
