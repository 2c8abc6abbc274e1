#include "sluice/service/credit.h"

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

}  // namespace sluice::service
