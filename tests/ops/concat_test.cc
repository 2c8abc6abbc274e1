#include "sluice/ops/concat.h"

#include <gtest/gtest.h>

#include "gradient_checker.h"
#include "op_test_util.h"

namespace sluice {
namespace {

using testing::ExpectGradientsMatchFiniteDifferences;
using testing::ExpectInvalidArgument;
using testing::RandomTensor;

TEST(ConcatTest, JoinsAlongAnyAxis) {
  const Tensor a = Tensor::FromVector<int32_t>({1, 2, 3, 4}, Shape{2, 2});
  const Tensor b = Tensor::FromVector<int32_t>({5, 6}, Shape{1, 2});
  const Tensor c = Tensor::FromVector<int32_t>({7, 8}, Shape{2, 1});
  const Tensor rows[] = {a, b};
  EXPECT_TRUE(Concat(rows, 0)->Equals(Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, Shape{3, 2})));
  const Tensor columns[] = {a, c, a};
  const Tensor want = Tensor::FromVector<int32_t>({1, 2, 7, 1, 2, 3, 4, 8, 3, 4}, Shape{2, 5});
  EXPECT_TRUE(Concat(columns, 1)->Equals(want));
  EXPECT_TRUE(Concat(columns, -1)->Equals(want));
  // One input is a copy; empty inputs add nothing.
  const Tensor one[] = {a};
  EXPECT_TRUE(Concat(one, 0)->Equals(a));
  const Tensor with_empty[] = {Tensor::Allocate(DType::kInt32, Shape{0, 2}), b};
  EXPECT_TRUE(Concat(with_empty, 0)->Equals(b));
}

TEST(ConcatTest, MiddleAxisOfRankThree) {
  const Tensor a = Tensor::FromVector<double>({1, 2, 3, 4}, Shape{2, 1, 2});
  const Tensor b = Tensor::FromVector<double>({5, 6, 7, 8}, Shape{2, 1, 2});
  const Tensor values[] = {a, b};
  EXPECT_TRUE(Concat(values, 1)->Equals(Tensor::FromVector<double>({1, 2, 5, 6, 3, 4, 7, 8}, Shape{2, 2, 2})));
}

TEST(ConcatTest, Errors) {
  const Tensor a = Tensor::Allocate(DType::kFloat32, Shape{2, 3});
  const Tensor mismatched[] = {a, Tensor::Allocate(DType::kFloat32, Shape{3, 2})};
  ExpectInvalidArgument(Concat(mismatched, 0),
                        "concat: input 1 has shape [3, 2] but input 0 has [2, 3]; all dimensions but axis 0 must match");
  const Tensor ranks[] = {a, Tensor::Allocate(DType::kFloat32, Shape{6})};
  ExpectInvalidArgument(Concat(ranks, 0), "concat: input 1 has shape [6] but input 0 has [2, 3]");
  const Tensor dtypes[] = {a, Tensor::Allocate(DType::kFloat64, Shape{2, 3})};
  ExpectInvalidArgument(Concat(dtypes, 0), "concat: input 1 has dtype float64 but input 0 has float32");
  const Tensor same[] = {a, a};
  ExpectInvalidArgument(Concat(same, 2), "concat: axis 2 is out of range for input 0 of shape [2, 3]");
  ExpectInvalidArgument(Concat(same, -3), "concat: axis -3 is out of range");
  const Tensor scalars[] = {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2)};
  ExpectInvalidArgument(Concat(scalars, 0), "concat: input 0 must have rank >= 1, got a scalar");
  ExpectInvalidArgument(Concat({}, 0), "concat: expected at least one input, got none");
  const Tensor strings[] = {Tensor::FromVector<std::string>({"a"})};
  ExpectInvalidArgument(Concat(strings, 0), "concat: input 0 must be numeric, got string");
}

TEST(ConcatTest, GradientsMatchFiniteDifferences) {
  for (int64_t axis : {0, 1, -1}) {
    SCOPED_TRACE(axis);
    ExpectGradientsMatchFiniteDifferences(
        [axis](const std::vector<Tensor>& x) { return Concat(x, axis); },
        {RandomTensor(Shape{2, 3}, 1), RandomTensor(Shape{2, 3}, 2), RandomTensor(Shape{2, 3}, 3)});
  }
  // Different extents along the axis.
  ExpectGradientsMatchFiniteDifferences([](const std::vector<Tensor>& x) { return Concat(x, 1); },
                                        {RandomTensor(Shape{2, 1, 2}, 4), RandomTensor(Shape{2, 3, 2}, 5)});
}

}  // namespace
}  // namespace sluice
