#include "sluice/tfrecord/wire_reader.h"

#include <gtest/gtest.h>

#include "example_test_util.h"

namespace sluice {
namespace {

using testing::Tag;
using testing::Varint;

TEST(WireReaderTest, Varints) {
  for (uint64_t value : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{300},
                         uint64_t{1} << 35, ~uint64_t{0}}) {
    const std::string bytes = Varint(value);
    WireReader reader(bytes);
    uint64_t read = 0;
    ASSERT_TRUE(reader.ReadVarint(&read)) << value;
    EXPECT_EQ(read, value);
    EXPECT_TRUE(reader.AtEnd());
  }
  EXPECT_EQ(Varint(~uint64_t{0}).size(), 10u);  // negative int64s take 10 bytes
}

TEST(WireReaderTest, MalformedVarints) {
  uint64_t value;
  const std::string truncated_bytes("\x80\x80", 2);
  WireReader truncated(truncated_bytes);
  EXPECT_FALSE(truncated.ReadVarint(&value));
  EXPECT_STREQ(truncated.error(), "truncated varint");
  const std::string eleven = std::string(10, '\x80') + '\x01';
  WireReader too_long(eleven);
  EXPECT_FALSE(too_long.ReadVarint(&value));
  EXPECT_STREQ(too_long.error(), "varint longer than 10 bytes");
  WireReader empty{std::string_view()};
  EXPECT_FALSE(empty.ReadVarint(&value));
}

TEST(WireReaderTest, Tags) {
  uint32_t tag;
  const std::string two_byte = Tag(300, WireType::kLengthDelimited);
  WireReader reader(two_byte);
  ASSERT_TRUE(reader.ReadTag(&tag));
  EXPECT_EQ(tag >> 3, 300u);
  EXPECT_EQ(WireTypeOf(tag), WireType::kLengthDelimited);

  const std::string zero_bytes("\x00", 1);
  WireReader zero(zero_bytes);
  EXPECT_FALSE(zero.ReadTag(&tag));
  EXPECT_STREQ(zero.error(), "field number 0");
  const std::string overlong_zero_bytes("\x80\x00", 2);  // field 0 however spelled
  WireReader overlong_zero(overlong_zero_bytes);
  EXPECT_FALSE(overlong_zero.ReadTag(&tag));
  const std::string six_bytes_tag = std::string(5, '\x81') + '\x01';
  WireReader six_bytes(six_bytes_tag);
  EXPECT_FALSE(six_bytes.ReadTag(&tag));
  EXPECT_STREQ(six_bytes.error(), "tag longer than 5 bytes");
}

TEST(WireReaderTest, LengthDelimitedAliasesTheInput) {
  const std::string bytes = std::string("\x03") + "abcdef";
  WireReader reader(bytes);
  std::string_view payload;
  ASSERT_TRUE(reader.ReadLengthDelimited(&payload));
  EXPECT_EQ(payload, "abc");
  EXPECT_EQ(payload.data(), bytes.data() + 1);
  EXPECT_FALSE(reader.AtEnd());

  const std::string overrun_bytes = std::string("\x09") + "abc";
  WireReader overrun(overrun_bytes);
  EXPECT_FALSE(overrun.ReadLengthDelimited(&payload));
  EXPECT_STREQ(overrun.error(), "length-delimited field overruns its message");
}

// Skips one field of each wire type, then reads the varint field after it.
TEST(WireReaderTest, SkipsEveryWireType) {
  const std::vector<std::string> fields = {
      testing::VarintField(2, 300),
      Tag(2, WireType::kFixed64) + std::string(8, 'x'),
      testing::LengthDelimitedField(2, "payload"),
      testing::Fixed32Field(2, 1.0f),
      Tag(2, WireType::kStartGroup) + Tag(3, WireType::kStartGroup) + testing::VarintField(1, 5) +
          Tag(3, WireType::kEndGroup) + testing::LengthDelimitedField(4, "x") +
          Tag(2, WireType::kEndGroup),
  };
  for (const std::string& field : fields) {
    const std::string bytes = field + testing::VarintField(1, 42);
    WireReader reader(bytes);
    uint32_t tag;
    ASSERT_TRUE(reader.ReadTag(&tag));
    ASSERT_TRUE(reader.SkipField(tag)) << reader.error();
    ASSERT_TRUE(reader.ReadTag(&tag));
    EXPECT_EQ(tag, WireTag(1, WireType::kVarint));
  }
}

TEST(WireReaderTest, MalformedSkips) {
  const struct {
    std::string bytes;
    const char* error;
  } cases[] = {
      {Tag(1, WireType::kFixed64) + "1234567", "truncated fixed64"},
      {Tag(1, WireType::kFixed32) + "123", "truncated fixed32"},
      {Tag(1, WireType::kEndGroup), "end-group tag without a start"},
      {std::string("\x0e"), "invalid wire type"},
      {Tag(1, WireType::kStartGroup) + testing::VarintField(2, 1), "unterminated group"},
      {Tag(1, WireType::kStartGroup) + Tag(2, WireType::kEndGroup), "mismatched end-group tag"},
      {[] {
         std::string deep;
         for (int i = 0; i < 101; ++i) deep += Tag(1, WireType::kStartGroup);
         return deep;
       }(),
       "groups nested too deeply"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.error);
    WireReader reader(c.bytes);
    uint32_t tag;
    ASSERT_TRUE(reader.ReadTag(&tag));
    EXPECT_FALSE(reader.SkipField(tag));
    EXPECT_STREQ(reader.error(), c.error);
  }
}

}  // namespace
}  // namespace sluice
