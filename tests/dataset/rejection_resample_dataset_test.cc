#include "sluice/dataset/rejection_resample_dataset.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "contract.h"
#include "sluice/dataset/pipeline_spec_io.h"

namespace sluice {
namespace {

// Elements {label, x} with label = labels[x].
Pipeline Labelled(const std::vector<int64_t>& labels) {
  std::vector<int64_t> xs(labels.size());
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<int64_t>(i);
  return Pipeline::FromSlices({{"label", Tensor::FromVector(labels)}, {"x", Tensor::FromVector(xs)}});
}

// n elements {label, x}: class 1 for every tenth x, else class 0.
Pipeline Imbalanced(int64_t n) {
  std::vector<int64_t> labels(n);
  for (int64_t i = 0; i < n; ++i) labels[i] = i % 10 == 0 ? 1 : 0;
  return Labelled(labels);
}

Element Kept(int64_t label, int64_t x) {
  return Element{{Tensor::Scalar<int64_t>(label), Tensor::Scalar<int64_t>(label), Tensor::Scalar<int64_t>(x)}};
}

// The x of each kept element (its third component).
std::vector<int64_t> Xs(const std::vector<Element>& kept) {
  std::vector<int64_t> xs;
  for (const Element& e : kept) xs.push_back(e[2].scalar<int64_t>());
  return xs;
}

// The share of class 1 among the kept elements' classes.
double ShareOfOne(const std::vector<Element>& kept) {
  const auto ones =
      std::count_if(kept.begin(), kept.end(), [](const Element& e) { return e[0].scalar<int64_t>() == 1; });
  return static_cast<double>(ones) / static_cast<double>(kept.size());
}

// With a known input distribution whose ratios are equal or 0, classes are
// kept always or never, whatever the draws: the output is exact.
TEST(RejectionResampleDatasetTest, KeepsByAcceptance) {
  auto pipeline = Labelled({0, 2, 1, 2, 0, 1})
                      .RejectionResample(
                          {.class_component = "label", .target_dist = {1, 1, 0}, .initial_dist = {1, 1, 1}, .seed = 3});
  testing::ExpectProduces(pipeline, {Kept(0, 0), Kept(1, 2), Kept(0, 4), Kept(1, 5)});
  const DatasetPtr dataset = testing::Build(pipeline);
  EXPECT_EQ(dataset->cardinality(), kUnknownCardinality);
  EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"class", DType::kInt64, PartialShape(Shape{})},
                                                  {"label", DType::kInt64, PartialShape(Shape{})},
                                                  {"x", DType::kInt64, PartialShape(Shape{})}}));
  // A target equal to the input's distribution keeps everything.
  auto all = Labelled({0, 1, 1}).RejectionResample(
      {.class_component = "label", .target_dist = {1, 2}, .initial_dist = {0.5, 1}, .seed = 1});
  testing::ExpectProduces(all, {Kept(0, 0), Kept(1, 1), Kept(1, 2)});
  EXPECT_EQ(
      testing::Build(Labelled({}).RejectionResample({.class_component = "label", .target_dist = {1}}))->cardinality(),
      0);
}

// The kept classes follow the target, with the input's distribution given
// or estimated; the op reads max(t / p) input elements per output.
TEST(RejectionResampleDatasetTest, KeptClassesFollowTheTarget) {
  constexpr int64_t kInputs = 40000;
  const std::vector<Element> given = testing::Collect(Imbalanced(kInputs).RejectionResample(
      {.class_component = "label", .target_dist = {0.5, 0.5}, .initial_dist = {0.9, 0.1}, .seed = 7}));
  EXPECT_NEAR(ShareOfOne(given), 0.5, 0.02);
  // Class 1 is always kept (a = 1), class 0 with a = (0.5 / 0.9) / 5.
  EXPECT_NEAR(static_cast<double>(given.size()), 4000 + 36000 * (0.5 / 0.9) / 5, 300);
  const std::vector<Element> estimated = testing::Collect(
      Imbalanced(kInputs).RejectionResample({.class_component = "label", .target_dist = {0.5, 0.5}, .seed = 7}));
  EXPECT_NEAR(ShareOfOne(estimated), 0.5, 0.02);
  const std::vector<Element> skewed = testing::Collect(
      Imbalanced(kInputs).RejectionResample({.class_component = "label", .target_dist = {1, 3}, .seed = 2}));
  EXPECT_NEAR(ShareOfOne(skewed), 0.75, 0.02);
}

// The same seed gives the same draws in a rebuilt pipeline; each iterator
// of one dataset draws anew.
TEST(RejectionResampleDatasetTest, DrawsPerSeedAndTraversal) {
  auto make = [](uint64_t seed) {
    return testing::Build(
        Imbalanced(400).RejectionResample({.class_component = "label", .target_dist = {1, 1}, .seed = seed}));
  };
  const DatasetPtr dataset = make(5);
  const std::vector<int64_t> first = Xs(testing::Collect(dataset));
  const std::vector<int64_t> second = Xs(testing::Collect(dataset));
  EXPECT_NE(first, second);
  const DatasetPtr again = make(5);
  EXPECT_EQ(Xs(testing::Collect(again)), first);
  EXPECT_EQ(Xs(testing::Collect(again)), second);
  EXPECT_NE(Xs(testing::Collect(make(6))), first);
}

// class_fn: a function of the element, int32 or int64; its dtype is the
// class component's.
TEST(RejectionResampleDatasetTest, ClassFunction) {
  ElementFunctionPtr parity = MakeLambdaFunction(
      [](Element e) -> Result<Element> {
        return Element{Tensor::Scalar<int32_t>(static_cast<int32_t>(e[0].scalar<int64_t>() % 2))};
      },
      {.output_spec = ElementSpec{{"", DType::kInt32, PartialShape(Shape{})}}});
  auto pipeline = Pipeline::Range(6).RejectionResample(
      {.class_fn = parity, .target_dist = {0, 1}, .initial_dist = {1, 1}, .seed = 1});
  testing::ExpectProduces(pipeline, {Element{{Tensor::Scalar<int32_t>(1), Tensor::Scalar<int64_t>(1)}},
                                     Element{{Tensor::Scalar<int32_t>(1), Tensor::Scalar<int64_t>(3)}},
                                     Element{{Tensor::Scalar<int32_t>(1), Tensor::Scalar<int64_t>(5)}}});
}

TEST(RejectionResampleDatasetTest, InvalidArguments) {
  auto resample = [](RejectionResampleOptions options) { return Labelled({0, 1}).RejectionResample(options); };
  testing::ExpectError(resample({.target_dist = {1}}), StatusCode::kInvalidArgument,
                       "rejection_resample: give exactly one of class_fn and class_component");
  testing::ExpectError(resample({.class_component = "y", .target_dist = {1}}), StatusCode::kInvalidArgument,
                       "rejection_resample: class_component");
  testing::ExpectError(Pipeline::FromSlices({{"f", Tensor::FromVector<float>({1})}})
                           .RejectionResample({.class_component = "f", .target_dist = {1}}),
                       StatusCode::kInvalidArgument,
                       "rejection_resample: class_component f is float32[]; the class is an int32 or int64 scalar");
  testing::ExpectError(resample({.class_component = "label"}), StatusCode::kInvalidArgument,
                       "rejection_resample: target_dist has 0 classes; it needs 1 to 1048576");
  testing::ExpectError(resample({.class_component = "label", .target_dist = {1, -1}}), StatusCode::kInvalidArgument,
                       "rejection_resample: target_dist[1] is -1; weights are finite and >= 0");
  testing::ExpectError(resample({.class_component = "label", .target_dist = {0, 0}}), StatusCode::kInvalidArgument,
                       "rejection_resample: target_dist sums to 0; it must have a positive, finite sum");
  testing::ExpectError(resample({.class_component = "label", .target_dist = {1, 1}, .initial_dist = {1}}),
                       StatusCode::kInvalidArgument, "rejection_resample: initial_dist has 1 classes, target_dist 2");
  testing::ExpectError(resample({.class_component = "label", .target_dist = {1, 1}, .initial_dist = {1, 0}}),
                       StatusCode::kInvalidArgument,
                       "rejection_resample: target_dist[1] is 1 but initial_dist[1] is 0: no element of class 1 "
                       "would ever come to be kept");
  testing::ExpectError(Pipeline::FromSlices({{"class", Tensor::FromVector<int64_t>({0})}})
                           .RejectionResample({.class_component = "class", .target_dist = {1}}),
                       StatusCode::kInvalidArgument,
                       "rejection_resample: the input already has a component named 'class'");
  ElementFunctionPtr two = MakeLambdaFunction([](Element e) -> Result<Element> { return e; });
  testing::ExpectError(resample({.class_fn = two, .target_dist = {1}}), StatusCode::kInvalidArgument,
                       "rejection_resample: class_func lambda returns");
}

// A class outside [0, K) is that element's error; input errors pass
// through; the traversal goes on after both.
TEST(RejectionResampleDatasetTest, ElementErrors) {
  auto pipeline =
      Labelled({0, 3, 1, -1, 0})
          .RejectionResample({.class_component = "label", .target_dist = {1, 1}, .initial_dist = {1, 1}, .seed = 1});
  const std::vector<Result<Element>> results = testing::CollectResults(testing::Build(pipeline));
  ASSERT_EQ(results.size(), 5u);
  EXPECT_TRUE(results[0]->Equals(Kept(0, 0)));
  testing::ExpectStatus(results[1].status(), StatusCode::kInvalidArgument,
                        "rejection_resample: an element's class is 3, outside [0, 2) (target_dist has 2 classes)");
  EXPECT_TRUE(results[2]->Equals(Kept(1, 2)));
  EXPECT_FALSE(results[3].ok());
  EXPECT_TRUE(results[4]->Equals(Kept(0, 4)));
  auto failing = testing::FailingRange(4, {2}).RejectionResample(
      {.class_fn = MakeLambdaFunction([](Element) -> Result<Element> { return Element{Tensor::Scalar<int64_t>(0)}; },
                                      {.output_spec = ElementSpec{{"", DType::kInt64, PartialShape(Shape{})}}}),
       .target_dist = {1},
       .seed = 1});
  const std::vector<Result<Element>> passed = testing::CollectResults(testing::Build(failing));
  ASSERT_EQ(passed.size(), 4u);
  testing::ExpectFailedElement(passed[2], 2);
  EXPECT_EQ((*passed[3])[1].scalar<int64_t>(), 3);
}

TEST(RejectionResampleDatasetTest, SpecRoundTrip) {
  const DatasetPtr dataset = testing::Build(
      Labelled({0, 2, 1, 2, 0, 1})
          .RejectionResample(
              {.class_component = "label", .target_dist = {1, 1, 0}, .initial_dist = {1, 1, 1}, .seed = 3}));
  const spec::Pipeline spec = testing::Ok(DatasetToSpec(*dataset));
  const std::string text = SpecToText(spec);
  EXPECT_NE(text.find("rejection_resample {"), std::string::npos) << text;
  testing::ExpectProduces(testing::Ok(DatasetFromSpec(spec)), {Kept(0, 0), Kept(1, 2), Kept(0, 4), Kept(1, 5)});
  // An estimated distribution and a seed round-trip too: the same draws.
  const DatasetPtr estimated =
      testing::Build(Imbalanced(300).RejectionResample({.class_component = "label", .target_dist = {1, 1}, .seed = 9}));
  const DatasetPtr parsed = testing::Ok(DatasetFromSpec(testing::Ok(DatasetToSpec(*estimated))));
  EXPECT_EQ(Xs(testing::Collect(parsed)), Xs(testing::Collect(estimated)));
}

// The draws' position and the class counts are part of the saved state.
TEST(RejectionResampleDatasetTest, ResumesMidStream) {
  testing::ExpectResumesEverywhere([] {
    return Imbalanced(60).RejectionResample({.class_component = "label", .target_dist = {1, 1}, .seed = 4});
  });
  testing::ExpectResumesEverywhere([] {
    return Labelled({0, 1, 3, 0, 0, 1, 0, 0})
        .RejectionResample({.class_component = "label", .target_dist = {1, 2}, .initial_dist = {3, 1}, .seed = 2});
  });
}

// Destroying an iterator mid-stream returns promptly, also while its
// prefetch thread is rejecting every element of an endless input.
TEST(RejectionResampleDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(
      testing::Build(Imbalanced(100)
                         .Repeat()
                         .RejectionResample({.class_component = "label", .target_dist = {1, 1}, .seed = 1})
                         .Prefetch(2)),
      3);
  // One element of class 1, kept, then class 0 without end, never kept.
  const DatasetPtr rejecting = testing::Build(
      Pipeline::FromSlices({{"label", Tensor::FromVector<int64_t>({1})}})
          .Concatenate(Pipeline::FromSlices({{"label", Tensor::FromVector<int64_t>({0})}}).Repeat())
          .RejectionResample({.class_component = "label", .target_dist = {0, 1}, .initial_dist = {1, 1}, .seed = 1})
          .Prefetch(2));
  std::unique_ptr<Iterator> it = rejecting->MakeIterator();
  ASSERT_TRUE(testing::Ok(it->GetNext()).has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto start = std::chrono::steady_clock::now();
  it.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace sluice
