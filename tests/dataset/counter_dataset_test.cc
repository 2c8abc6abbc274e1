#include "sluice/dataset/counter_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

// tf.data's documented examples (Dataset.counter).
TEST(CounterDatasetTest, DocumentedExamples) {
  testing::ExpectProduces(Pipeline::Counter().Take(5), testing::Ints({0, 1, 2, 3, 4}));
  testing::ExpectProduces(Pipeline::Counter({.start = 2}).Take(5), testing::Ints({2, 3, 4, 5, 6}));
  testing::ExpectProduces(Pipeline::Counter({.start = 2, .step = 5}).Take(5), testing::Ints({2, 7, 12, 17, 22}));
  testing::ExpectProduces(Pipeline::Counter({.start = 10, .step = -1}).Take(5), testing::Ints({10, 9, 8, 7, 6}));
  EXPECT_EQ(testing::Build(Pipeline::Counter())->element_spec().ToString(), "(int64[])");
  EXPECT_EQ(testing::Build(Pipeline::Counter({.dtype = DType::kInt32}))->element_spec().ToString(), "(int32[])");
}

TEST(CounterDatasetTest, DTypesAndAConstantStep) {
  testing::ExpectProduces(Pipeline::Counter({.start = 1, .step = 2, .dtype = DType::kFloat32}).Take(3),
                          {Element{Tensor::Scalar<float>(1)}, Element{Tensor::Scalar<float>(3)},
                           Element{Tensor::Scalar<float>(5)}});
  testing::ExpectProduces(Pipeline::Counter({.start = 7, .step = 0}).Take(3), testing::Ints({7, 7, 7}));
}

TEST(CounterDatasetTest, IsInfinite) {
  EXPECT_EQ(testing::Build(Pipeline::Counter())->cardinality(), kInfiniteCardinality);
  EXPECT_EQ(testing::Build(Pipeline::Counter().Take(4))->cardinality(), 4);
}

TEST(CounterDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Counter({.dtype = DType::kString}), StatusCode::kInvalidArgument,
                       "counter: dtype must be an integer or floating dtype, got string");
  testing::ExpectError(Pipeline::Counter({.dtype = DType::kBool}), StatusCode::kInvalidArgument,
                       "counter: dtype must be an integer or floating dtype, got bool");
  testing::ExpectError(Pipeline::Counter({.start = 300, .dtype = DType::kUInt8}), StatusCode::kInvalidArgument,
                       "counter: start 300 does not fit uint8 [0, 255]");
}

// A value the dtype can't hold is an error for its element and every later
// one; nothing wraps.
TEST(CounterDatasetTest, ValuesPastTheDTypeAreOutOfRange) {
  auto it = testing::Build(Pipeline::Counter({.start = 254, .dtype = DType::kUInt8}))->MakeIterator();
  EXPECT_EQ((*testing::Ok(it->GetNext()))[0].scalar<uint8_t>(), 254);
  EXPECT_EQ((*testing::Ok(it->GetNext()))[0].scalar<uint8_t>(), 255);
  for (int i = 2; i < 4; ++i) {
    testing::ExpectStatus(it->GetNext().status(), StatusCode::kOutOfRange,
                          StrCat("counter: element ", i, " (start 254 + ", i, " * step 1) does not fit uint8 [0, 255]"));
  }
  // A restored iterator past the last value goes on failing.
  const std::string state = testing::Ok(SaveIteratorState(*it));
  auto resumed = testing::Build(Pipeline::Counter({.start = 254, .dtype = DType::kUInt8}))->MakeIterator();
  ASSERT_TRUE(RestoreIteratorState(*resumed, state).ok());
  EXPECT_EQ(resumed->GetNext().status().code(), StatusCode::kOutOfRange);

  auto down = testing::Build(Pipeline::Counter({.start = INT64_MIN + 1, .step = -1}))->MakeIterator();
  EXPECT_EQ((*testing::Ok(down->GetNext()))[0].scalar<int64_t>(), INT64_MIN + 1);
  EXPECT_EQ((*testing::Ok(down->GetNext()))[0].scalar<int64_t>(), INT64_MIN);
  EXPECT_EQ(down->GetNext().status().code(), StatusCode::kOutOfRange);
}

TEST(CounterDatasetTest, ResumesMidStream) {
  testing::ExpectResumesEverywhere([] { return Pipeline::Counter({.start = 3, .step = -2}).Take(6); });
  testing::ExpectResumesEverywhere([] { return Pipeline::Counter({.start = 250, .dtype = DType::kUInt8}).Take(6); });
}

TEST(CounterDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Counter().Prefetch(2)), 3);
}

}  // namespace
}  // namespace sluice
