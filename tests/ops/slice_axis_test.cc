#include "sluice/ops/slice_axis.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(SliceAxisTest, AsPythonSlices) {
  const Tensor x = Tensor::FromVector<int32_t>({0, 1, 2, 3, 4, 5}, Shape{2, 3});
  const struct {
    int64_t axis, begin;
    std::optional<int64_t> end;
    Tensor expected;
  } cases[] = {
      {1, 1, std::nullopt, Tensor::FromVector<int32_t>({1, 2, 4, 5}, Shape{2, 2})},
      {-1, 0, 2, Tensor::FromVector<int32_t>({0, 1, 3, 4}, Shape{2, 2})},
      {1, -1, std::nullopt, Tensor::FromVector<int32_t>({2, 5}, Shape{2, 1})},
      {0, 1, 10, Tensor::FromVector<int32_t>({3, 4, 5}, Shape{1, 3})},  // clamped
      {1, 2, 1, Tensor::FromVector<int32_t>({}, Shape{2, 0})},           // empty
  };
  for (const auto& c : cases) {
    Result<Tensor> out = SliceAxis(x, c.axis, c.begin, c.end);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(out->Equals(c.expected)) << out->DebugString();
  }
  Result<Tensor> strings = SliceAxis(Tensor::FromVector<std::string>({"a", "b", "c"}), 0, 1, std::nullopt);
  ASSERT_TRUE(strings.ok());
  EXPECT_TRUE(strings->Equals(Tensor::FromVector<std::string>({"b", "c"})));
}

TEST(SliceAxisTest, Errors) {
  Result<Tensor> scalar = SliceAxis(Tensor::Scalar(1), 0, 0, std::nullopt);
  ASSERT_FALSE(scalar.ok());
  EXPECT_EQ(scalar.status().message(), "slice: cannot slice a scalar");
  Result<Tensor> axis = SliceAxis(Tensor::FromVector<int32_t>({1, 2}), 1, 0, std::nullopt);
  ASSERT_FALSE(axis.ok());
  EXPECT_EQ(axis.status().message(), "slice: axis 1 is outside [-1, 1) for shape [2]");
}

}  // namespace
}  // namespace sluice
