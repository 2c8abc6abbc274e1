#include "sluice/dataset/range_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

using testing::ExpectProduces;
using testing::Ints;

// tf.data's documented examples for Dataset.range.
TEST(RangeDatasetTest, DocumentedExamples) {
  ExpectProduces(Pipeline::Range(5), Ints({0, 1, 2, 3, 4}));
  ExpectProduces(Pipeline::Range({.start = 2, .stop = 5}), Ints({2, 3, 4}));
  ExpectProduces(Pipeline::Range({.start = 1, .stop = 5, .step = 2}), Ints({1, 3}));
  ExpectProduces(Pipeline::Range({.start = 1, .stop = 5, .step = -2}), {});
  ExpectProduces(Pipeline::Range({.start = 5, .stop = 1}), {});
  ExpectProduces(Pipeline::Range({.start = 5, .stop = 1, .step = -2}), Ints({5, 3}));
}

TEST(RangeDatasetTest, OutputDType) {
  auto pipeline = Pipeline::Range({.start = 1, .stop = 5, .step = 2, .dtype = DType::kFloat32});
  ExpectProduces(pipeline, {Element{Tensor::Scalar(1.0f)}, Element{Tensor::Scalar(3.0f)}});
  EXPECT_EQ((*pipeline.Build())->element_spec(), (ElementSpec{{"", DType::kFloat32, Shape{}}}));
}

TEST(RangeDatasetTest, Cardinality) {
  EXPECT_EQ((*MakeRangeDataset({.start = 0, .stop = 10, .step = 3}))->cardinality(), 4);
  EXPECT_EQ((*MakeRangeDataset({.start = 10, .stop = 0, .step = -3}))->cardinality(), 4);
  EXPECT_EQ((*MakeRangeDataset({.start = 0, .stop = 0}))->cardinality(), 0);
}

TEST(RangeDatasetTest, InvalidArguments) {
  testing::ExpectError(MakeRangeDataset({.start = 0, .stop = 3, .step = 0}), StatusCode::kInvalidArgument,
                       "step must be a non-zero integer");
  testing::ExpectError(MakeRangeDataset({.stop = 3, .dtype = DType::kString}), StatusCode::kInvalidArgument,
                       "numeric");
}

TEST(RangeDatasetTest, EarlyDestruction) { testing::ExpectEarlyDestructionIsClean(*MakeRangeDataset({.stop = 100}), 3); }

// Runs (as batch reads them) give the same values as GetNext, across the
// values GetNext reads ahead and past a run's largest size.
TEST(RangeDatasetTest, RunsMatchElements) {
  for (int64_t max_rows : {1, 7, 64, 100, 5000}) {
    SCOPED_TRACE(max_rows);
    testing::ExpectRunsMatchElements(*MakeRangeDataset({.start = -3, .stop = 9000, .step = 1}), max_rows);
    testing::ExpectRunsMatchElements(*MakeRangeDataset({.start = 9000, .stop = 0, .step = -7, .dtype = DType::kFloat32}),
                                     max_rows);
  }
  Pipeline batched = Pipeline::Range({.start = 0, .stop = 9000, .dtype = DType::kInt32}).Batch({.batch_size = 4500});
  auto it = *batched.MakeIterator();
  for (int64_t b = 0; b < 2; ++b) {
    Result<std::optional<Element>> batch = it->GetNext();
    ASSERT_TRUE(batch.ok() && batch->has_value());
    const Tensor& values = (**batch)[0];
    ASSERT_EQ(values.shape(), Shape{4500});
    for (int64_t i = 0; i < 4500; ++i) ASSERT_EQ(values.data<int32_t>()[i], b * 4500 + i);
  }
  EXPECT_FALSE(it->GetNext()->has_value());
}

// A run after some single elements starts at the next value: what GetNext
// read ahead comes first.
TEST(RangeDatasetTest, RunAfterElementsContinuesFromTheNextValue) {
  auto it = (*MakeRangeDataset({.stop = 200}))->MakeIterator();
  for (int64_t v = 0; v < 3; ++v) EXPECT_EQ(it->GetNext()->value()[0].data<int64_t>()[0], v);
  std::vector<int64_t> values;
  for (int calls = 0; calls < 10; ++calls) {
    Result<std::optional<Element>> run = it->GetNextRun(50);
    ASSERT_TRUE(run.ok());
    if (!run->has_value()) break;
    const Tensor& rows = (**run)[0];
    for (int64_t r = 0; r < rows.dim(0); ++r) values.push_back(rows.data<int64_t>()[r]);
  }
  ASSERT_EQ(values.size(), 197u);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], static_cast<int64_t>(i) + 3);
}

// Saved anywhere, inside the values read ahead included, a restored
// iterator goes on from the next value.
TEST(RangeDatasetTest, ResumesEverywhere) {
  testing::ExpectResumesEverywhere([] { return Pipeline::Range({.start = 5, .stop = 150, .step = 1}); });
}

// Lengths and values over all of int64, without overflow: stop - start
// does not fit int64 here, and the last value is 2^62 from the end.
TEST(RangeDatasetTest, ExtremeBoundsCountAndIterateExactly) {
  constexpr int64_t k2To62 = int64_t{1} << 62;
  ExpectProduces(Pipeline::Range({.start = INT64_MIN, .stop = INT64_MAX, .step = k2To62}),
                 Ints({INT64_MIN, -k2To62, 0, k2To62}));
  ExpectProduces(Pipeline::Range({.start = INT64_MAX, .stop = INT64_MIN, .step = -k2To62}),
                 Ints({INT64_MAX, k2To62 - 1, -1, -k2To62 - 1}));
  ExpectProduces(Pipeline::Range({.start = INT64_MAX - 2, .stop = INT64_MAX, .step = INT64_MAX}), Ints({INT64_MAX - 2}));
  ExpectProduces(Pipeline::Range({.start = 0, .stop = INT64_MIN, .step = INT64_MIN}), Ints({0}));
  EXPECT_EQ((*MakeRangeDataset({.start = INT64_MIN + 1, .stop = INT64_MAX, .step = 2}))->cardinality(), INT64_MAX);
  // 2^64 - 1 elements: more than a cardinality can say.
  testing::ExpectError(MakeRangeDataset({.start = INT64_MIN, .stop = INT64_MAX}), StatusCode::kInvalidArgument,
                       "gives 18446744073709551615 elements");
  testing::ExpectError(MakeRangeDataset({.start = INT64_MAX, .stop = INT64_MIN, .step = -1}),
                       StatusCode::kInvalidArgument, "gives 18446744073709551615 elements");
}

// Values an integer dtype can't hold are rejected, not truncated.
TEST(RangeDatasetTest, ValuesMustFitTheDType) {
  testing::ExpectError(MakeRangeDataset({.stop = 300, .dtype = DType::kUInt8}), StatusCode::kInvalidArgument,
                       "range: values from 0 to 299 do not fit uint8 [0, 255]");
  testing::ExpectError(MakeRangeDataset({.start = -1, .stop = 3, .dtype = DType::kUInt8}),
                       StatusCode::kInvalidArgument, "range: values from -1 to 2 do not fit uint8");
  testing::ExpectError(MakeRangeDataset({.start = 0, .stop = int64_t{1} << 40, .step = int64_t{1} << 38, .dtype = DType::kInt32}),
                       StatusCode::kInvalidArgument, "do not fit int32");
  ExpectProduces(Pipeline::Range({.start = 250, .stop = 256, .step = 5, .dtype = DType::kUInt8}),
                 {Element{Tensor::Scalar<uint8_t>(250)}, Element{Tensor::Scalar<uint8_t>(255)}});
  EXPECT_TRUE(MakeRangeDataset({.start = 5, .stop = 5, .dtype = DType::kUInt8}).ok());  // empty
  EXPECT_TRUE(MakeRangeDataset({.stop = int64_t{1} << 40, .dtype = DType::kFloat32}).ok());
}

}  // namespace
}  // namespace sluice
