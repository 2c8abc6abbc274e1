#include "sluice/service/credit.h"

#include <algorithm>
#include <limits>

namespace sluice::service {
namespace {

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return b > std::numeric_limits<uint64_t>::max() - a ? std::numeric_limits<uint64_t>::max() : a + b;
}

}  // namespace

void SenderCredit::Grant(uint64_t bytes, uint64_t elements) {
  bytes_ = SaturatingAdd(bytes_, bytes);
  elements_ = SaturatingAdd(elements_, elements);
}

void SenderCredit::Spend(uint64_t bytes) {
  SLUICE_CHECK(CanSend()) << "an element sent without credit";
  bytes_ = bytes >= bytes_ ? 0 : bytes_ - bytes;
  --elements_;
}

void ReceiverCredit::Grant(uint64_t bytes, uint64_t elements) {
  bytes_ = SaturatingAdd(bytes_, bytes);
  elements_ = SaturatingAdd(elements_, elements);
}

Status ReceiverCredit::Receive(uint64_t bytes) {
  if (elements_ == 0 || bytes_ == 0) {
    return DataLossError("the peer sent an element of ", bytes, " bytes without credit (", elements_,
                         " elements and ", bytes_, " bytes granted and not used): it ignores flow control");
  }
  bytes_ = bytes >= bytes_ ? 0 : bytes_ - bytes;
  --elements_;
  return OkStatus();
}

void CreditReturns::Widen(uint64_t bytes, uint64_t elements) {
  window_bytes_ = SaturatingAdd(window_bytes_, bytes);
  window_elements_ = SaturatingAdd(window_elements_, elements);
}

bool CreditReturns::Due() const {
  // Half the window, rounded up: a window of one element returns each one.
  return bytes_ >= window_bytes_ - window_bytes_ / 2 || elements_ >= window_elements_ - window_elements_ / 2;
}

bool CreditReturns::Add(uint64_t bytes, uint64_t elements) {
  const bool was_due = Due() && (bytes_ > 0 || elements_ > 0);
  bytes_ = SaturatingAdd(bytes_, bytes);
  elements_ = SaturatingAdd(elements_, elements);
  return !was_due && Due();
}

CreditReturns::Batch CreditReturns::Take(const ReceiverCredit& outstanding) {
  auto room = [](uint64_t window, uint64_t held) { return held >= window ? 0 : window - held; };
  Batch batch{std::min(bytes_, room(window_bytes_, outstanding.bytes())),
              std::min(elements_, room(window_elements_, outstanding.elements()))};
  bytes_ = elements_ = 0;
  return batch;
}

}  // namespace sluice::service
