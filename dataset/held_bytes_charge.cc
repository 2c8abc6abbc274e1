#include "sluice/dataset/held_bytes_charge.h"

#include <algorithm>

namespace sluice {

Result<HeldBytesCharge> HeldBytesCharge::Make(RamBudget& budget, int64_t bytes, std::string_view fn_name) {
  if (bytes <= 0) return HeldBytesCharge();
  if (!budget.TryAdd(bytes)) {
    return ResourceExhaustedError(fn_name, " holds ", bytes, " bytes while it runs, more than the RAM budget has left: ",
                                  std::max<int64_t>(budget.limit() - budget.used(), 0), " of ", budget.limit(),
                                  " bytes (RuntimeOptions::ram_budget_bytes)");
  }
  return HeldBytesCharge(&budget, bytes);
}

HeldBytesCharge& HeldBytesCharge::operator=(HeldBytesCharge&& other) noexcept {
  if (this != &other) {
    if (budget_ != nullptr) budget_->Release(bytes_);
    budget_ = std::exchange(other.budget_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

HeldBytesCharge::~HeldBytesCharge() {
  if (budget_ != nullptr) budget_->Release(bytes_);
}

}  // namespace sluice
