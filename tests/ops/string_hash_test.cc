#include "sluice/ops/string_hash.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

// Values TensorFlow pins as frozen (tensorflow/core/platform/fingerprint_test.cc),
// and the empty string, whose fingerprint is farmhashna's constant k2.
TEST(Fingerprint64Test, FrozenValues) {
  EXPECT_EQ(Fingerprint64("Hello"), 15404698994557526151ULL);
  EXPECT_EQ(Fingerprint64("World"), 18308117990299812472ULL);
  EXPECT_EQ(Fingerprint64(""), 0x9ae16a3b2f90404fULL);
}

// Fingerprint64 hashes every byte, NULs included, and no more.
TEST(Fingerprint64Test, HashesExactlyTheBytes) {
  const std::string with_nul("ab\0cd", 5);
  EXPECT_NE(Fingerprint64(with_nul), Fingerprint64("ab"));
  EXPECT_EQ(Fingerprint64(std::string_view("Hello, world").substr(0, 5)), Fingerprint64("Hello"));
}

// The tf.strings.to_hash_bucket_fast documentation example.
TEST(StringToHashBucketFastTest, DocumentationExample) {
  Result<Tensor> ids = StringToHashBucketFast(Tensor::FromVector<std::string>({"Hello", "TensorFlow", "2.x"}), 3);
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_TRUE(ids->Equals(Tensor::FromVector<int64_t>({0, 2, 2})));
}

TEST(StringToHashBucketFastTest, KeepsTheShape) {
  Result<Tensor> ids =
      StringToHashBucketFast(Tensor::FromVector<std::string>({"a", "b", "c", "d"}, Shape{2, 2}), 1000);
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_EQ(ids->shape(), (Shape{2, 2}));
  EXPECT_EQ(ids->data<int64_t>()[3], static_cast<int64_t>(Fingerprint64("d") % 1000));
  Result<Tensor> scalar = StringToHashBucketFast(Tensor::Scalar("Hello"), 1);
  ASSERT_TRUE(scalar.ok());
  EXPECT_TRUE(scalar->Equals(Tensor::Scalar<int64_t>(0)));
}

TEST(StringToHashBucketFastTest, InvalidArguments) {
  Result<Tensor> numeric = StringToHashBucketFast(Tensor::Scalar<int64_t>(1), 3);
  EXPECT_EQ(numeric.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(numeric.status().message(), "to_hash_bucket_fast: expected strings, got int64[]");
  Result<Tensor> zero = StringToHashBucketFast(Tensor::Scalar("a"), 0);
  EXPECT_EQ(zero.status().message(), "to_hash_bucket_fast: num_buckets must be at least 1, got 0");
}

}  // namespace
}  // namespace sluice
