#include "sluice/dataset/window_dataset.h"

#include "contract.h"
#include "planted_stages.h"
#include "sluice/dataset/buffered_bytes.h"
#include "sluice/dataset/pipeline_spec_io.h"

namespace sluice {
namespace {

using testing::Vec;

// The eager reference: window k holds inputs k * shift + i * stride, i < size, that exist.
std::vector<std::vector<int64_t>> ReferenceWindows(int64_t n, int64_t size, int64_t shift, int64_t stride,
                                                   bool drop_remainder) {
  std::vector<std::vector<int64_t>> out;
  for (int64_t start = 0; start < n; start += shift) {
    std::vector<int64_t> window;
    for (int64_t i = 0; i < size && start + i * stride < n; ++i) window.push_back(start + i * stride);
    if (drop_remainder && static_cast<int64_t>(window.size()) < size) break;
    out.push_back(window);
  }
  return out;
}

// tf.data's documented examples (Dataset.window).
TEST(WindowDatasetTest, DocumentedExamples) {
  testing::ExpectProduces(Pipeline::Range(7).Window({.size = 3}), testing::VecElements({{0, 1, 2}, {3, 4, 5}, {6}}));
  testing::ExpectProduces(Pipeline::Range(7).Window({.size = 3, .drop_remainder = true}),
                          testing::VecElements({{0, 1, 2}, {3, 4, 5}}));
  testing::ExpectProduces(Pipeline::Range(7).Window({.size = 3, .shift = 2, .drop_remainder = true}),
                          testing::VecElements({{0, 1, 2}, {2, 3, 4}, {4, 5, 6}}));
  testing::ExpectProduces(Pipeline::Range(7).Window({.size = 3, .shift = 1, .stride = 2, .drop_remainder = true}),
                          testing::VecElements({{0, 2, 4}, {1, 3, 5}, {2, 4, 6}}));
  // range(7).window(3, shift=1, drop_remainder=True).flat_map(lambda x: x.batch(3))
  testing::ExpectProduces(Pipeline::Range(7)
                              .Window({.size = 3, .shift = 1, .drop_remainder = true})
                              .FlatMapWindows([](Pipeline rows) { return rows.Batch({.batch_size = 3}); }),
                          testing::VecElements({{0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 5}, {4, 5, 6}}));
  // A structure of windows: from_tensor_slices(([1..5], [6..10])).window(2).
  auto pairs = Pipeline::FromSlices({{"", Vec({1, 2, 3, 4, 5})}, {"", Vec({6, 7, 8, 9, 10})}}).Window({.size = 2});
  testing::ExpectProduces(pairs, {Element{Vec({1, 2}), Vec({6, 7})}, Element{Vec({3, 4}), Vec({8, 9})},
                                  Element{Vec({5}), Vec({10})}});
  // A dict of windows: from_tensor_slices({'a': [1, 2, 3], 'b': [4, 5, 6], 'c': [7, 8, 9]}).window(2).
  auto dict = Pipeline::FromSlices({{"a", Vec({1, 2, 3})}, {"b", Vec({4, 5, 6})}, {"c", Vec({7, 8, 9})}})
                  .Window({.size = 2});
  testing::ExpectProduces(dict, {Element{Vec({1, 2}), Vec({4, 5}), Vec({7, 8})}, Element{Vec({3}), Vec({6}), Vec({9})}});
}

TEST(WindowDatasetTest, MatchesTheReference) {
  for (int64_t n : {0, 1, 5, 12}) {
    for (int64_t size : {1, 2, 3, 5}) {
      for (int64_t shift : {1, 2, 3, 7}) {
        for (int64_t stride : {1, 2, 3}) {
          for (bool drop : {false, true}) {
            const std::vector<Element> expected =
                testing::VecElements(ReferenceWindows(n, size, shift, stride, drop));
            SCOPED_TRACE(StrCat("n=", n, " size=", size, " shift=", shift, " stride=", stride, " drop=", drop));
            testing::ExpectProduces(
                Pipeline::Range(n).Window({.size = size, .shift = shift, .stride = stride, .drop_remainder = drop}),
                expected);
          }
        }
      }
    }
  }
}

TEST(WindowDatasetTest, SpecAndCardinality) {
  DatasetPtr full = testing::Build(Pipeline::Range(7).Window({.size = 3, .shift = 2, .drop_remainder = true}));
  EXPECT_EQ(full->element_spec().ToString(), "(int64[3])");
  EXPECT_EQ(full->cardinality(), 3);
  DatasetPtr partial = testing::Build(Pipeline::Range(7).Window({.size = 3, .shift = 2}));
  EXPECT_EQ(partial->element_spec().ToString(), "(int64[?])");
  EXPECT_EQ(partial->cardinality(), 4);
  EXPECT_EQ(testing::Build(Pipeline::Range(2).Window({.size = 3, .drop_remainder = true}))->cardinality(), 0);
  EXPECT_EQ(testing::Build(Pipeline::Range(7).Repeat().Window({.size = 3}))->cardinality(), kInfiniteCardinality);
  EXPECT_EQ(testing::Build(Pipeline::Range(7).Filter([](const Element&) -> Result<bool> { return true; })
                               .Window({.size = 3}))
                ->cardinality(),
            kUnknownCardinality);
}

TEST(WindowDatasetTest, InvalidArguments) {
  auto range = Pipeline::Range(4);
  testing::ExpectError(range.Window({.size = 0}), StatusCode::kInvalidArgument,
                       "window: Window size must be greater than zero, but got 0.");
  testing::ExpectError(range.Window({.size = 2, .shift = 0}), StatusCode::kInvalidArgument,
                       "window: Window shift must be greater than zero, but got 0.");
  testing::ExpectError(range.Window({.size = 2, .stride = -1}), StatusCode::kInvalidArgument,
                       "window: Window stride must be greater than zero, but got -1.");
  testing::ExpectError(range.Window({.size = int64_t{1} << 62, .stride = 4}), StatusCode::kInvalidArgument,
                       "spans more than 2^63 input elements");
}

// Rows of different shapes can't be stacked: the window is the error, the next ones go on.
TEST(WindowDatasetTest, RowsOfDifferentShapes) {
  auto growing = Pipeline::Range({.start = 1, .stop = 5}).Map(
      [](Element e) -> Result<Element> {
        const int64_t n = e[0].scalar<int64_t>() < 3 ? 1 : 2;
        return Element{Tensor::FromVector(std::vector<int64_t>(n, n))};
      },
      {.output_spec = ElementSpec{{"", DType::kInt64, PartialShape{-1}}}});
  auto results = testing::CollectResults(testing::Build(growing.Window({.size = 2, .shift = 1})));
  ASSERT_EQ(results.size(), 4u);
  EXPECT_TRUE(results[0].ok());
  testing::ExpectStatus(results[1].status(), StatusCode::kInvalidArgument,
                        "window: Cannot batch tensors with different shapes in component 0. First element had "
                        "shape [1] and element 1 had shape [2].");
  EXPECT_TRUE(results[2]->Equals(Element{Tensor::FromVector(std::vector<int64_t>{2, 2, 2, 2}, Shape{2, 2})}));
  EXPECT_TRUE(results[3]->Equals(Element{Tensor::FromVector(std::vector<int64_t>{2, 2}, Shape{1, 2})}));
}

// Strings of any lengths stack.
TEST(WindowDatasetTest, StringRows) {
  auto words = Pipeline::FromSlices({{"w", Tensor::FromVector(std::vector<std::string>{"a", "bb", "ccc"})}});
  testing::ExpectProduces(words.Window({.size = 2}),
                          {Element{Tensor::FromVector(std::vector<std::string>{"a", "bb"})},
                           Element{Tensor::FromVector(std::vector<std::string>{"ccc"})}});
}

// An input error makes its window the error; the elements a long shift skips drop theirs.
TEST(WindowDatasetTest, InputErrorsMidStream) {
  auto overlapping = testing::CollectResults(testing::Build(testing::FailingRange(5, {2}).Window({.size = 2, .shift = 1})));
  ASSERT_EQ(overlapping.size(), 5u);
  EXPECT_TRUE(overlapping[0]->Equals(Element{Vec({0, 1})}));
  testing::ExpectFailedElement(overlapping[1], 2);
  testing::ExpectFailedElement(overlapping[2], 2);
  EXPECT_TRUE(overlapping[3]->Equals(Element{Vec({3, 4})}));
  EXPECT_TRUE(overlapping[4]->Equals(Element{Vec({4})}));
  // size 2, shift 4: element 2 is skipped, its error with it.
  auto skipping = testing::CollectResults(testing::Build(testing::FailingRange(7, {2}).Window({.size = 2, .shift = 4})));
  ASSERT_EQ(skipping.size(), 2u);
  EXPECT_TRUE(skipping[0]->Equals(Element{Vec({0, 1})}));
  EXPECT_TRUE(skipping[1]->Equals(Element{Vec({4, 5})}));
}

// A window that would pass the RAM budget is ResourceExhausted, and the next window goes on.
TEST(WindowDatasetTest, BufferIsChargedToTheRamBudget) {
  auto big_rows = Pipeline::Range(4).Map([](Element e) -> Result<Element> {
    return Element{Tensor::FromVector(std::vector<int64_t>(100, e[0].scalar<int64_t>()))};
  }, {.output_spec = ElementSpec{{"", DType::kInt64, PartialShape{100}}}});
  DatasetPtr windows = testing::Build(big_rows.Window({.size = 2}));
  const int64_t held = BufferedBytes(Element{Tensor::FromVector(std::vector<int64_t>(100, 0))});
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.ram_budget_bytes = held * 3 / 2});  // one row, not two
  auto it = windows->MakeIterator(ctx);
  std::vector<Result<Element>> results = testing::CollectResults(*it);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status().code(), StatusCode::kResourceExhausted) << results[0].status();
  EXPECT_NE(results[0].status().message().find(StrCat("window: holding an element of ", held, " bytes beside the ",
                                                      held, " bytes of the window")),
            std::string::npos)
      << results[0].status();
  EXPECT_EQ(results[1].status().code(), StatusCode::kResourceExhausted) << results[1].status();
  EXPECT_EQ(ctx.runtime->ram_budget().used(), 0);
}

TEST(WindowDatasetTest, SpecRoundTrip) {
  const DatasetPtr original =
      testing::Build(Pipeline::Range(9).Window({.size = 3, .shift = 2, .stride = 2, .drop_remainder = true}));
  const spec::Pipeline spec = testing::Ok(DatasetToSpec(*original));
  const DatasetPtr rebuilt = testing::Ok(DatasetFromSpec(testing::Ok(ParseSpecText(SpecToText(spec)))));
  EXPECT_EQ(DescribeGraph(*rebuilt), DescribeGraph(*original));
  testing::ExpectElementsEqual(testing::Collect(rebuilt), testing::Collect(original));
  // The defaults: shift = size, stride 1.
  const DatasetPtr defaults =
      testing::Ok(DatasetFromSpec(testing::Ok(ParseSpecText("ops { range { stop: 7 } } ops { window { size: 3 } }"))));
  testing::ExpectProduces(defaults, testing::VecElements({{0, 1, 2}, {3, 4, 5}, {6}}));
  EXPECT_EQ(SpecToText(testing::Ok(DatasetToSpec(*defaults))),
            SpecToText(testing::Ok(DatasetToSpec(*testing::Build(Pipeline::Range(7).Window({.size = 3, .shift = 3}))))));
}

TEST(WindowDatasetTest, ResumesMidWindow) {
  testing::ExpectResumesEverywhere([] { return Pipeline::Range(11).Window({.size = 3, .shift = 2}); });
  testing::ExpectResumesEverywhere([] { return Pipeline::Range(11).Window({.size = 2, .shift = 3, .stride = 2}); });
  testing::ExpectResumesEverywhere([] { return testing::FailingRange(9, {4}).Window({.size = 3, .shift = 1}); });
  testing::ExpectResumesEverywhere([] {
    return Pipeline::Range(10).Window({.size = 4, .shift = 1}).FlatMapWindows([](Pipeline rows) {
      return rows.Batch({.batch_size = 3});
    });
  });
}

TEST(WindowDatasetTest, ProfilerNode) {
  const DatasetPtr dataset = testing::Build(Pipeline::Range(7).Window({.size = 3}));
  const ProfileSnapshot snapshot = testing::ProfileAll(dataset)->Snapshot();
  const NodeSnapshot* node = testing::FindNode(snapshot, "window");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->elements, 3);
}

TEST(WindowDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(
      testing::Build(Pipeline::Range(1000).Prefetch(4).Window({.size = 5, .shift = 2})), 3);
}

}  // namespace
}  // namespace sluice
