#include "sluice/ops/where.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(WhereTest, PicksWithBroadcasting) {
  const Tensor condition = Tensor::FromVector<bool>({true, false}, Shape{2, 1});
  const Tensor a = Tensor::FromVector<int32_t>({1, 2, 3});
  const Tensor b = Tensor::Scalar<int32_t>(0);
  Result<Tensor> out = Where(condition, a, b);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->Equals(Tensor::FromVector<int32_t>({1, 2, 3, 0, 0, 0}, Shape{2, 3})));
}

TEST(WhereTest, CopiesStrings) {
  Result<Tensor> out = Where(Tensor::FromVector<bool>({false, true}), Tensor::FromVector<std::string>({"a", "b"}),
                             Tensor::Scalar("z"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->Equals(Tensor::FromVector<std::string>({"z", "b"})));
}

TEST(WhereTest, Errors) {
  Result<Tensor> not_bool = Where(Tensor::Scalar(1), Tensor::Scalar(1), Tensor::Scalar(2));
  ASSERT_FALSE(not_bool.ok());
  EXPECT_EQ(not_bool.status().message(), "where: the condition must be bool, got int32");
  Result<Tensor> mixed = Where(Tensor::Scalar(true), Tensor::Scalar(1), Tensor::Scalar(2.0f));
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.status().message(), "where: the two branches have different dtypes, int32 and float32");
  Result<Tensor> shapes = Where(Tensor::FromVector<bool>({true, false}), Tensor::FromVector<int32_t>({1, 2, 3}),
                                Tensor::Scalar(0));
  ASSERT_FALSE(shapes.ok());
  EXPECT_EQ(shapes.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice
