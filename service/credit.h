// Credit-based flow control of an element stream, as the two ends count it.
//
// The receiver grants credit in bytes and elements (Credit frames, which add
// to what was granted before); it grants again as its consumer takes
// elements, not as they arrive. The sender sends an element only while it
// holds credit: at least one element and at least one byte. An element may
// be larger than the bytes left (it would never go otherwise), so what is in
// flight is bounded by the bytes granted plus one element:
//   in flight <= granted bytes + the largest element.
// A receiver that sees an element beyond its grants drops the connection:
// the peer ignores flow control.
// Thread safety: plain values, used on a connection's io thread.
#pragma once

#include <cstdint>

#include "sluice/core/status.h"

namespace sluice::service {

// What a sender may still send.
class SenderCredit {
 public:
  void Grant(uint64_t bytes, uint64_t elements);
  // True while an element may go: an element and a byte of credit are left.
  bool CanSend() const { return elements_ > 0 && bytes_ > 0; }
  // Charges an element of `bytes` (decoded size). REQUIRES: CanSend().
  void Spend(uint64_t bytes);
  uint64_t bytes() const { return bytes_; }
  uint64_t elements() const { return elements_; }

 private:
  uint64_t bytes_ = 0;  // may not go below 0: an oversized element takes what is left
  uint64_t elements_ = 0;
};

// What a receiver has granted and not yet seen arrive.
class ReceiverCredit {
 public:
  void Grant(uint64_t bytes, uint64_t elements);
  // Charges an arriving element of `bytes`; DataLoss naming the grants when
  // the sender had no credit for it.
  Status Receive(uint64_t bytes);
  uint64_t bytes() const { return bytes_; }
  uint64_t elements() const { return elements_; }

 private:
  uint64_t bytes_ = 0;
  uint64_t elements_ = 0;
};

}  // namespace sluice::service
