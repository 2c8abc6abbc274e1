#include "sluice/dataset/generator_dataset.h"

#include <atomic>

#include "contract.h"
#include "sluice/dataset/pipeline_spec_io.h"

namespace sluice {
namespace {

using testing::Int;

const ElementSpec kScalarInt{{"", DType::kInt64, Shape{}}};

// A generator of 0, 1, ..., n - 1; `starts` counts the traversals started.
GeneratorOptions Counting(int64_t n, std::shared_ptr<std::atomic<int>> starts = nullptr) {
  return {.start = [n, starts]() -> Result<Generator> {
            if (starts) ++*starts;
            return Generator([n, next = int64_t{0}]() mutable -> Result<std::optional<Element>> {
              if (next == n) return std::nullopt;
              return Int(next++);
            });
          },
          .element_spec = kScalarInt};
}

TEST(GeneratorDatasetTest, EachTraversalStartsItsOwnGenerator) {
  auto starts = std::make_shared<std::atomic<int>>(0);
  DatasetPtr dataset = testing::Build(Pipeline::FromGenerator(Counting(5, starts)));
  testing::ExpectProduces(dataset, testing::IntRange(0, 5));  // two traversals
  EXPECT_EQ(*starts, 2);
  EXPECT_EQ(dataset->op_name(), "from_generator");
  EXPECT_EQ(dataset->cardinality(), kUnknownCardinality);
  EXPECT_EQ(dataset->element_spec().ToString(), "(int64[])");
  // Nothing starts before the first GetNext.
  auto it = dataset->MakeIterator();
  EXPECT_EQ(*starts, 2);
  ASSERT_TRUE(it->GetNext().ok());
  EXPECT_EQ(*starts, 3);
}

TEST(GeneratorDatasetTest, ElementsThatMissTheSpecAreErrorsAndTheTraversalGoesOn) {
  GeneratorOptions options{.start =
                               [] {
                                 return Generator([next = 0]() mutable -> Result<std::optional<Element>> {
                                   switch (next++) {
                                     case 0: return Element{Tensor::FromVector<int64_t>({1, 2})};
                                     case 1: return Element{Tensor::FromVector<int64_t>({1, 2, 3})};  // dim 3, not 2
                                     case 2: return Element{Tensor::Scalar<float>(1.5f)};             // dtype
                                     case 3: return Element{};                                        // no component
                                     case 4: return Element{Tensor::FromVector<int64_t>({3, 4})};
                                     default: return std::nullopt;
                                   }
                                 });
                               },
                           .element_spec = {{"x", DType::kInt64, Shape{2}}}};
  auto it = testing::Build(Pipeline::FromGenerator(options))->MakeIterator();
  std::vector<Result<Element>> results = testing::CollectResults(*it);
  ASSERT_EQ(results.size(), 5u);
  EXPECT_TRUE(results[0].ok() && results[0]->Equals(Element{Tensor::FromVector<int64_t>({1, 2})}));
  for (int i : {1, 2, 3}) {
    ASSERT_FALSE(results[i].ok());
    EXPECT_EQ(results[i].status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(results[i].status().message().find(
                  StrCat("from_generator: element ", i, " does not match the element spec (x: int64[2])")),
              std::string::npos)
        << results[i].status();
  }
  EXPECT_TRUE(results[4].ok() && results[4]->Equals(Element{Tensor::FromVector<int64_t>({3, 4})}));
}

TEST(GeneratorDatasetTest, GeneratorErrorsAreElementErrors) {
  GeneratorOptions options{.start =
                               [] {
                                 return Generator([next = int64_t{0}]() mutable -> Result<std::optional<Element>> {
                                   const int64_t v = next++;
                                   if (v == 4) return std::nullopt;
                                   if (v == 1) return DataLossError("record ", v, " is damaged");
                                   return Int(v);
                                 });
                               },
                           .element_spec = kScalarInt};
  auto it = testing::Build(Pipeline::FromGenerator(options))->MakeIterator();
  std::vector<Result<Element>> results = testing::CollectResults(*it);
  ASSERT_EQ(results.size(), 4u);
  testing::ExpectStatus(results[1].status(), StatusCode::kDataLoss, "record 1 is damaged");
  EXPECT_EQ(results[2]->components[0].scalar<int64_t>(), 2);
  // ignore_errors drops them, as it drops any element's error.
  testing::ExpectProduces(Pipeline::FromGenerator(options).IgnoreErrors(), testing::Ints({0, 2, 3}));
}

TEST(GeneratorDatasetTest, AStartErrorIsReturnedOnceThenTheSequenceEnds) {
  auto starts = std::make_shared<std::atomic<int>>(0);
  GeneratorOptions options{.start = [starts]() -> Result<Generator> {
                             ++*starts;
                             return NotFoundError("no such table");
                           },
                           .element_spec = kScalarInt};
  auto it = testing::Build(Pipeline::FromGenerator(options))->MakeIterator();
  Result<std::optional<Element>> first = it->GetNext();
  testing::ExpectStatus(first.status(), StatusCode::kNotFound, "from_generator: starting the generator: no such table");
  for (int i = 0; i < 3; ++i) {
    Result<std::optional<Element>> next = it->GetNext();
    ASSERT_TRUE(next.ok());
    EXPECT_FALSE(next->has_value());
  }
  EXPECT_EQ(*starts, 1);

  GeneratorOptions empty{.start = []() -> Result<Generator> { return Generator(); }, .element_spec = kScalarInt};
  auto empty_it = testing::Build(Pipeline::FromGenerator(empty))->MakeIterator();
  testing::ExpectStatus(empty_it->GetNext().status(), StatusCode::kInvalidArgument,
                        "from_generator: the start function returned an empty generator");
  EXPECT_FALSE(*empty_it->GetNext());
}

// After the end the generator is let go (and what it holds) and never called again.
TEST(GeneratorDatasetTest, TheEndReleasesTheGenerator) {
  auto held = std::make_shared<int>(0);
  auto calls = std::make_shared<std::atomic<int>>(0);
  GeneratorOptions options{.start = [held, calls]() -> Result<Generator> {
                             return Generator([held, calls]() -> Result<std::optional<Element>> {
                               ++*calls;
                               return std::nullopt;
                             });
                           },
                           .element_spec = kScalarInt};
  DatasetPtr dataset = testing::Build(Pipeline::FromGenerator(options));
  auto it = dataset->MakeIterator();
  const long before = held.use_count();
  EXPECT_FALSE(*it->GetNext());
  EXPECT_EQ(held.use_count(), before);
  EXPECT_FALSE(*it->GetNext());
  EXPECT_EQ(*calls, 1);
}

TEST(GeneratorDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::FromGenerator({.element_spec = kScalarInt}), StatusCode::kInvalidArgument,
                       "from_generator: the start function is required");
  GeneratorOptions no_components = Counting(3);
  no_components.element_spec = ElementSpec();
  testing::ExpectError(Pipeline::FromGenerator(no_components), StatusCode::kInvalidArgument,
                       "from_generator: the element spec has no component");
}

TEST(GeneratorDatasetTest, NeitherSavedNorWrittenAsASpec) {
  DatasetPtr dataset = testing::Build(Pipeline::FromGenerator(Counting(3)).Map([](Element e) { return e; }));
  auto it = dataset->MakeIterator();
  ASSERT_TRUE(it->GetNext().ok());
  Result<std::string> state = SaveIteratorState(*it);
  EXPECT_EQ(state.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(state.status().message().find("from_generator: a generator's position cannot be saved"), std::string::npos)
      << state.status();
  Result<spec::Pipeline> spec = DatasetToSpec(*testing::Build(Pipeline::FromGenerator(Counting(3))));
  testing::ExpectStatus(spec.status(), StatusCode::kUnimplemented,
                        "from_generator holds a C++ or Python generator and cannot be written as a pipeline spec");
}

// Downstream ops run it as any source: parallel maps and prefetch call it
// from their workers, one call at a time, and stop with the iterator.
TEST(GeneratorDatasetTest, FeedsParallelOpsAndStopsWithTheIterator) {
  auto pipeline = Pipeline::FromGenerator(Counting(1000))
                      .Map([](Element e) -> Result<Element> { return Int(e[0].scalar<int64_t>() * 2); }, {},
                           {.num_parallel_calls = 4})
                      .Prefetch(8);
  std::vector<Element> expected;
  for (int64_t v = 0; v < 1000; ++v) expected.push_back(Int(2 * v));
  testing::ExpectProduces(pipeline, expected);
  testing::ExpectEarlyDestructionIsClean(testing::Build(pipeline), 10);
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::FromGenerator(Counting(1 << 30)).Prefetch(4)), 3);
}

}  // namespace
}  // namespace sluice
