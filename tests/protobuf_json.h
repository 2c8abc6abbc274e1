// Whether tests may parse JSON with protobuf's JSON utilities in this build.
#pragma once

#include <gtest/gtest.h>

namespace sluice::testing {

// Debian's libprotobuf (3.21) is not built with ThreadSanitizer, and in a
// TSan build reading a google.protobuf.Struct that the library filled from
// JSON crashes inside protobuf's Map (a standalone 5-line program does too).
// Such checks are single-threaded, so TSan runs skip them; release and
// ASan runs cover them.
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kProtobufJsonUsable = false;
#else
inline constexpr bool kProtobufJsonUsable = true;
#endif
#define SLUICE_SKIP_WITHOUT_PROTOBUF_JSON()                                                  \
  if (!::sluice::testing::kProtobufJsonUsable) {                                           \
    GTEST_SKIP() << "protobuf's JSON parser can't be used in a TSan build (see protobuf_json.h)"; \
  }

}  // namespace sluice::testing
