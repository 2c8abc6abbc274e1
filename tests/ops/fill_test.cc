#include "sluice/ops/fill.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(FillTest, OnesAndZerosLike) {
  const Tensor x = Tensor::FromVector<float>({3, 4}, Shape{1, 2});
  EXPECT_TRUE(OnesLike(x)->Equals(Tensor::FromVector<float>({1, 1}, Shape{1, 2})));
  EXPECT_TRUE(ZerosLike(Tensor::FromVector<int64_t>({5}))->Equals(Tensor::FromVector<int64_t>({0})));
}

}  // namespace
}  // namespace sluice
