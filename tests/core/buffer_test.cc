#include "sluice/core/buffer.h"

#include <gtest/gtest.h>

#include <cstring>

#include "sluice/core/tstring.h"

namespace sluice {
namespace {

TEST(BufferTest, StringBuffersHaveExtraBytesAfterTheStrings) {
  auto buffer = Buffer::AllocateStrings(2, 10);
  EXPECT_EQ(buffer->size(), 2 * sizeof(TString) + 10);
  auto* strings = static_cast<TString*>(buffer->data());
  EXPECT_TRUE(strings[0].empty());
  EXPECT_EQ(buffer->string_bytes(), static_cast<char*>(buffer->data()) + 2 * sizeof(TString));
  std::memcpy(buffer->string_bytes(), "0123456789", 10);
  strings[1] = TString::View({buffer->string_bytes() + 3, 4});
  EXPECT_EQ(strings[1], "3456");
}

// Retained bytes: the buffer's own, its owned strings', and its backings'
// recursively; adding the backing added last again changes nothing.
TEST(BufferTest, RetainedBytesCountOwnedStringsAndBackings) {
  auto chunk = Buffer::Allocate(1000, CpuAllocator(), Buffer::Fill::kUninitialized);
  EXPECT_EQ(chunk->RetainedBytes(), 1000u);
  auto records = Buffer::AllocateStrings(2);
  static_cast<TString*>(records->data())[0] = std::string_view("owned");
  records->AddBacking(chunk);
  records->AddBacking(chunk);
  EXPECT_EQ(records->backings().size(), 1u);
  EXPECT_EQ(records->RetainedBytes(), 2 * sizeof(TString) + 5 + 1000);
  auto features = Buffer::AllocateStrings(1);
  features->AddBacking(records);
  EXPECT_EQ(features->RetainedBytes(), sizeof(TString) + records->RetainedBytes());
}

// A byte's origin comes from the buffer holding it, found among backings
// recursively; bytes of a buffer without one have none.
TEST(BufferTest, OriginOfFindsTheBufferHoldingTheByte) {
  auto chunk = Buffer::Allocate(100, CpuAllocator(), Buffer::Fill::kUninitialized);
  const auto file = std::make_shared<const std::string>("data.tfrecord");
  chunk->set_origin({file, 5000});
  auto records = Buffer::AllocateStrings(1);
  records->AddBacking(chunk);
  auto features = Buffer::AllocateStrings(1);
  features->AddBacking(records);
  const char* byte = static_cast<const char*>(chunk->data()) + 40;
  const Buffer::Origin origin = features->OriginOf(byte);
  EXPECT_EQ(origin.source, file);
  EXPECT_EQ(origin.offset, 5040u);
  EXPECT_EQ(features->OriginOf(records->data()).source, nullptr);
  EXPECT_EQ(features->OriginOf(static_cast<const char*>(chunk->data()) + 100).source, nullptr);
}

TEST(BufferDeathTest, ABufferCannotBackItself) {
  auto buffer = Buffer::AllocateStrings(1);
  EXPECT_DEATH(buffer->AddBacking(buffer), "own backing");
}

// A request the host can't satisfy is an error value, not an abort.
TEST(BufferTest, TryAllocateReportsExhaustion) {
  Result<std::shared_ptr<Buffer>> huge = Buffer::TryAllocate(size_t{1} << 62);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(huge.status().message().find("4611686018427387904 bytes"), std::string::npos) << huge.status();
  // count * sizeof(TString) wraps around size_t.
  Result<std::shared_ptr<Buffer>> strings = Buffer::TryAllocateStrings(SIZE_MAX / 4);
  ASSERT_FALSE(strings.ok());
  EXPECT_EQ(strings.status().code(), StatusCode::kResourceExhausted);
  EXPECT_GT(HostMemoryBytes(), 0);
}

}  // namespace
}  // namespace sluice
