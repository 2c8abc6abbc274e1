#include "sluice/ops/embedding_lookup.h"

#include <gtest/gtest.h>

#include "gradient_checker.h"
#include "op_test_util.h"

namespace sluice {
namespace {

using testing::ExpectGradientsMatchFiniteDifferences;
using testing::ExpectInvalidArgument;
using testing::RandomTensor;

const Tensor kTable = Tensor::FromVector<float>({0, 1, 10, 11, 20, 21}, Shape{3, 2});

TEST(EmbeddingLookupTest, GathersRowsIntoIdsShapePlusDepth) {
  Result<Tensor> out = EmbeddingLookup(kTable, Tensor::FromVector<int64_t>({2, 0, 2, 1}, Shape{2, 2}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->Equals(Tensor::FromVector<float>({20, 21, 0, 1, 20, 21, 10, 11}, Shape{2, 2, 2})));
  // A scalar id gives one row; int32 ids work the same.
  EXPECT_TRUE(EmbeddingLookup(kTable, Tensor::Scalar<int32_t>(1))->Equals(Tensor::FromVector<float>({10, 11})));
  Result<Tensor> empty = EmbeddingLookup(kTable, Tensor::Allocate(DType::kInt32, Shape{0}));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), (Shape{0, 2}));
}

TEST(EmbeddingLookupTest, LargeLookupMatchesReference) {
  const Tensor table = RandomTensor(Shape{50, 64}, 1);
  std::vector<int64_t> id_values(5000);
  for (size_t i = 0; i < id_values.size(); ++i) id_values[i] = static_cast<int64_t>((i * 7919) % 50);
  Result<Tensor> out = EmbeddingLookup(table, Tensor::FromVector<int64_t>(id_values));
  ASSERT_TRUE(out.ok()) << out.status();
  for (size_t i = 0; i < id_values.size(); ++i) {
    for (int64_t d = 0; d < 64; ++d) {
      ASSERT_EQ(out->data<double>()[i * 64 + d], table.data<double>()[id_values[i] * 64 + d]);
    }
  }
}

TEST(EmbeddingLookupTest, IdOutOfRangeNamesItsPosition) {
  ExpectInvalidArgument(EmbeddingLookup(kTable, Tensor::FromVector<int64_t>({0, 1, 2, 3}, Shape{2, 2})),
                        "embedding_lookup: id 3 at position [1, 1] of input 1 is outside the table's rows [0, 3)");
  ExpectInvalidArgument(EmbeddingLookup(kTable, Tensor::FromVector<int32_t>({-1})), "id -1 at position [0]");
}

TEST(EmbeddingLookupTest, ShapeErrors) {
  ExpectInvalidArgument(EmbeddingLookup(Tensor::Allocate(DType::kFloat32, Shape{3}), Tensor::Scalar<int64_t>(0)),
                        "embedding_lookup: input 0 must have rank 2, got shape [3]");
  ExpectInvalidArgument(EmbeddingLookup(kTable, Tensor::FromVector<float>({0})),
                        "embedding_lookup: input 1 must be int32 or int64, got float32");
  ExpectInvalidArgument(EmbeddingLookup(Tensor::Allocate(DType::kInt32, Shape{3, 2}), Tensor::Scalar<int64_t>(0)),
                        "embedding_lookup: input 0 must be float32 or float64, got int32");
}

TEST(EmbeddingLookupTest, RepeatedIdsAddTheirGradients) {
  // sum(lookup) counts row 2 twice, row 0 once, row 1 never.
  Result<Tensor> grad = testing::GradientOfSum(
      [](const Tensor& table) { return EmbeddingLookup(table, Tensor::FromVector<int64_t>({2, 0, 2})); }, kTable);
  ASSERT_TRUE(grad.ok()) << grad.status();
  EXPECT_TRUE(grad->Equals(Tensor::FromVector<float>({1, 1, 0, 0, 2, 2}, Shape{3, 2})));
}

TEST(EmbeddingLookupTest, GradientMatchesFiniteDifferences) {
  ExpectGradientsMatchFiniteDifferences(
      [](const std::vector<Tensor>& x) { return EmbeddingLookup(x[0], x[1]); },
      {RandomTensor(Shape{4, 3}, 1), Tensor::FromVector<int32_t>({3, 1, 3, 0, 1, 1}, Shape{3, 2})});
}

}  // namespace
}  // namespace sluice
