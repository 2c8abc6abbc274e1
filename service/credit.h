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
// the peer ignores flow control. The credit of consumed elements goes back
// in batches (CreditReturns): one Credit frame per half window, not one per
// element.
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

// The credit a receiver's consumer gives back as it takes elements, sent
// back in batches. The window is all the credit granted (Widen); a batch is
// due once half of it waits to return, in bytes or in elements, and what a
// batch returns is capped so that the sender never holds more than the
// window (an element larger than the bytes left took less than its size).
class CreditReturns {
 public:
  void Widen(uint64_t bytes, uint64_t elements);
  // Adds the return of consumed elements (`bytes`: their decoded size); true
  // when this makes a batch due (once per batch).
  bool Add(uint64_t bytes, uint64_t elements);
  struct Batch {
    uint64_t bytes = 0;
    uint64_t elements = 0;
  };
  // Takes all that waits, capped by the window less what the sender may
  // still hold (`outstanding`: granted and not yet arrived).
  Batch Take(const ReceiverCredit& outstanding);
  uint64_t window_bytes() const { return window_bytes_; }
  uint64_t window_elements() const { return window_elements_; }

 private:
  bool Due() const;

  uint64_t window_bytes_ = 0;
  uint64_t window_elements_ = 0;
  uint64_t bytes_ = 0;     // waiting to return
  uint64_t elements_ = 0;
};

}  // namespace sluice::service
