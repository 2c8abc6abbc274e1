#include "sluice/executor/size_classes.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(SizeClassTest, SmallRequestsRoundUpToSteps) {
  struct Case {
    size_t bytes, size_class;
  };
  for (const Case& c : {Case{/*bytes=*/0, /*size_class=*/512}, Case{1, 512}, Case{512, 512}, Case{513, 1024},
                        Case{4000, 4096}, Case{kLargeSizeFrom, kLargeSizeFrom}}) {
    EXPECT_EQ(SizeClass(c.bytes), c.size_class) << c.bytes;
  }
}

TEST(SizeClassTest, LargeRequestsTakeQuartersOfTheirPowerOfTwo) {
  const size_t mib = size_t{1} << 20;
  EXPECT_EQ(SizeClass(mib + 1), mib + mib / 4);
  EXPECT_EQ(SizeClass(3 * mib - 1), 3 * mib);
  EXPECT_EQ(SizeClass(64 * mib + 5), 64 * mib + 16 * mib);
}

TEST(SizeClassTest, NeverBelowTheRequestNorMoreThanAQuarterOver) {
  for (size_t bytes = 1; bytes < (size_t{1} << 34); bytes = bytes * 3 / 2 + 7) {
    const size_t size_class = SizeClass(bytes);
    EXPECT_GE(size_class, bytes);
    if (bytes > kLargeSizeFrom) {
      EXPECT_LE(size_class, bytes + bytes / 4) << bytes;
    }
    EXPECT_EQ(SizeClass(size_class), size_class) << "a class is its own class: " << bytes;
  }
}

}  // namespace
}  // namespace sluice
