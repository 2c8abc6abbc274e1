#include "sluice/tfrecord/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace sluice {
namespace {

// RFC 3720 (iSCSI) B.4 and the classic check value.
TEST(Crc32cTest, StandardCheckValues) {
  const std::string zeros(32, '\0'), ones(32, '\xff');
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  EXPECT_EQ(crc32c::Value("123456789", 9), 0xe3069283u);
  EXPECT_EQ(crc32c::Value(zeros.data(), zeros.size()), 0x8a9136aau);
  EXPECT_EQ(crc32c::Value(ones.data(), ones.size()), 0x62a8ab43u);
  EXPECT_EQ(crc32c::Value(ascending.data(), ascending.size()), 0x46dd794eu);
  EXPECT_EQ(crc32c::Value(descending.data(), descending.size()), 0x113fdb5cu);
  EXPECT_EQ(crc32c::Value("", 0), 0u);
}

TEST(Crc32cTest, PortableAndHardwareAgreeAtEverySizeAndAlignment) {
  if (!crc32c::HardwareAvailable()) GTEST_SKIP() << "this CPU has no SSE4.2";
  std::mt19937_64 rng(7);
  std::string data(100'000, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  // Sizes around the 3 x 64, 3 x 256 and 3 x 8192 stream blocks, at odd offsets.
  for (size_t size : {0, 1, 7, 8, 9, 191, 192, 193, 767, 768, 769, 1000, 1536, 24575, 24576, 24577, 60000, 99000}) {
    for (size_t offset : {0, 1, 3}) {
      const uint32_t seed = static_cast<uint32_t>(rng());
      EXPECT_EQ(crc32c::ExtendHardware(seed, data.data() + offset, size),
                crc32c::ExtendPortable(seed, data.data() + offset, size))
          << "size " << size << " offset " << offset;
    }
  }
}

TEST(Crc32cTest, ExtendEqualsValueOfTheConcatenation) {
  const std::string a = "hello ", b = "world";
  const std::string ab = a + b;
  EXPECT_EQ(crc32c::Extend(crc32c::Value(a.data(), a.size()), b.data(), b.size()),
            crc32c::Value(ab.data(), ab.size()));
  EXPECT_EQ(crc32c::ExtendPortable(crc32c::ExtendPortable(0, a.data(), a.size()), b.data(), b.size()),
            crc32c::Value(ab.data(), ab.size()));
}

// TensorFlow's masking (tfdata.md 4.1 vectors).
TEST(Crc32cTest, MaskMatchesTensorFlow) {
  EXPECT_EQ(crc32c::Mask(0x8c28b28au), 0x07980329u);  // CRC of 8 zero length bytes
  EXPECT_EQ(crc32c::Mask(0u), 0xa282ead8u);
  EXPECT_EQ(crc32c::Mask(0x9a71bb4cu), 0x191c1fbbu);  // "hello"
  EXPECT_EQ(crc32c::Mask(0xe3069283u), 0xc78ab0e5u);  // "123456789"
  for (uint32_t crc : {0u, 1u, 0xdeadbeefu, 0xffffffffu}) {
    EXPECT_EQ(crc32c::Unmask(crc32c::Mask(crc)), crc);
    EXPECT_NE(crc32c::Mask(crc), crc);
  }
}

}  // namespace
}  // namespace sluice
