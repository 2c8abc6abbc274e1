#include "sluice/executor/variable.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(VariableTest, OwnsAPrivateCopyWithATapeId) {
  Tensor initial = Tensor::FromVector<float>({1, 2});
  Variable v("dense/bias", initial);
  EXPECT_EQ(v.name(), "dense/bias");
  EXPECT_TRUE(v.trainable());
  EXPECT_NE(v.value().tape_id(), 0u);
  initial.mutable_data<float>()[0] = 9;
  EXPECT_EQ(v.value().data<float>()[0], 1);
  Variable other("other", initial, /*trainable=*/false);
  EXPECT_NE(other.value().tape_id(), v.value().tape_id());
  EXPECT_FALSE(other.trainable());
}

TEST(VariableTest, AssignKeepsIdentityAndChecksShape) {
  Variable v("w", Tensor::FromVector<float>({1, 2}));
  const uint64_t id = v.value().tape_id();
  ASSERT_TRUE(v.Assign(Tensor::FromVector<float>({3, 4})).ok());
  EXPECT_TRUE(v.value().Equals(Tensor::FromVector<float>({3, 4})));
  EXPECT_EQ(v.value().tape_id(), id);
  Status bad = v.Assign(Tensor::FromVector<float>({1, 2, 3}));
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("variable 'w' is float32[2] but the assigned value is float32[3]"),
            std::string::npos)
      << bad;
}

}  // namespace
}  // namespace sluice
