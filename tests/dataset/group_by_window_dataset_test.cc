#include "sluice/dataset/group_by_window_dataset.h"

#include <map>

#include "contract.h"
#include "planted_stages.h"
#include "sluice/dataset/buffered_bytes.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/pipeline_spec_io.h"

namespace sluice {
namespace {

using testing::Vec;

const ElementSpec kInt64Scalar{{"", DType::kInt64, Shape{}}};

// An int64-scalar function of an int64 scalar: a key_fn or window_size_fn.
ElementFunctionPtr IntFn(std::function<int64_t(int64_t)> fn) {
  return MakeLambdaFunction(
      [fn](Element e) -> Result<Element> { return Element{Tensor::Scalar<int64_t>(fn(e[0].scalar<int64_t>()))}; },
      {.output_spec = kInt64Scalar});
}

// Each window as one batch.
Pipeline WholeWindow(Pipeline rows) { return rows.Batch({.batch_size = 1 << 20}); }

// The eager reference: tf.data's grouping over a vector, windows in emission order.
std::vector<std::vector<int64_t>> ReferenceWindows(const std::vector<int64_t>& values,
                                                   const std::function<int64_t(int64_t)>& key,
                                                   const std::function<int64_t(int64_t)>& window_size) {
  std::vector<std::vector<int64_t>> out;
  std::map<int64_t, std::vector<int64_t>> groups;
  for (int64_t v : values) {
    std::vector<int64_t>& group = groups[key(v)];
    group.push_back(v);
    if (static_cast<int64_t>(group.size()) == window_size(key(v))) {
      out.push_back(group);
      groups.erase(key(v));
    }
  }
  for (const auto& [k, group] : groups) out.push_back(group);
  return out;
}

// tf.data's documented example:
//   range(10).group_by_window(key_func=lambda x: x % 2,
//                             reduce_func=lambda key, ds: ds.batch(5), window_size=5)
TEST(GroupByWindowDatasetTest, DocumentedExample) {
  testing::ExpectProduces(
      Pipeline::Range(10).GroupByWindow({.key_fn = IntFn([](int64_t x) { return x % 2; }), .window_size = 5},
                                        [](Pipeline rows) { return rows.Batch({.batch_size = 5}); }),
      {Element{Vec({0, 2, 4, 6, 8})}, Element{Vec({1, 3, 5, 7, 9})}});
}

TEST(GroupByWindowDatasetTest, MatchesTheReference) {
  std::vector<int64_t> values;
  for (int64_t i = 0; i < 40; ++i) values.push_back((i * 7919) % 53);
  auto input = Pipeline::FromSlices({{"", Vec(values)}});
  for (int64_t modulus : {1, 2, 3, 7}) {
    auto key = [modulus](int64_t x) { return x % modulus; };
    for (int64_t size : {1, 2, 5, 100}) {
      SCOPED_TRACE(StrCat("modulus=", modulus, " window_size=", size));
      testing::ExpectProduces(input.GroupByWindow({.key_fn = IntFn(key), .window_size = size}, WholeWindow),
                              testing::VecElements(ReferenceWindows(values, key, [size](int64_t) { return size; })));
    }
    SCOPED_TRACE(StrCat("modulus=", modulus, " window_size_fn=key+1"));
    auto size_fn = [](int64_t k) { return k + 1; };
    testing::ExpectProduces(
        input.GroupByWindow({.key_fn = IntFn(key), .window_size_fn = IntFn(size_fn)}, WholeWindow),
        testing::VecElements(ReferenceWindows(values, key, size_fn)));
  }
}

// reduce_fn sees the key as the window's last component, a column.
TEST(GroupByWindowDatasetTest, TheWindowEndsWithTheKeyColumn) {
  const ElementSpec window_spec = testing::Ok(GroupWindowSpec(kInt64Scalar, "key"));
  EXPECT_EQ(window_spec.ToString(), "(int64[?], key: int64[?])");
  auto reduce = MakeSpecDatasetFunction(
      testing::Ok(ParseSpecText("ops { element_source { kind: SLICES } } ops { batch { batch_size: 3 } }")),
      window_spec);
  auto pipeline = Pipeline::Range(7).GroupByWindow(
      {.key_fn = IntFn([](int64_t x) { return 10 + x % 2; }), .reduce_fn = testing::Ok(reduce), .window_size = 3});
  testing::ExpectProduces(pipeline, {Element{Vec({0, 2, 4}), Vec({10, 10, 10})},
                                     Element{Vec({1, 3, 5}), Vec({11, 11, 11})}, Element{Vec({6}), Vec({10})}});
}

TEST(GroupByWindowDatasetTest, KeyComponent) {
  auto pairs = Pipeline::FromSlices({{"x", Vec({1, 2, 3, 4, 5})}, {"k", Vec({0, 1, 0, 1, 0})}});
  testing::ExpectProduces(pairs.GroupByWindow({.key_component = "k", .window_size = 2}, [](Pipeline rows) {
    return rows.Map(MakeSelectFunction({"x"})).Batch({.batch_size = 2});
  }),
                          {Element{Vec({1, 3})}, Element{Vec({2, 4})}, Element{Vec({5})}});
}

TEST(GroupByWindowDatasetTest, SpecAndCardinality) {
  DatasetPtr dataset = testing::Build(
      Pipeline::Range(10).GroupByWindow({.key_fn = IntFn([](int64_t x) { return x % 2; }), .window_size = 5},
                                        [](Pipeline rows) { return rows.Batch({.batch_size = 5}); }));
  EXPECT_EQ(dataset->element_spec().ToString(), "(int64[?])");
  EXPECT_EQ(dataset->cardinality(), kUnknownCardinality);
  EXPECT_EQ(testing::Build(Pipeline::Range(0).GroupByWindow({.key_component = "0", .window_size = 2}, WholeWindow))
                ->cardinality(),
            0);
}

TEST(GroupByWindowDatasetTest, InvalidArguments) {
  auto range = Pipeline::Range(4);
  auto mod2 = IntFn([](int64_t x) { return x % 2; });
  testing::ExpectError(range.GroupByWindow({.key_fn = mod2}, WholeWindow), StatusCode::kInvalidArgument,
                       "group_by_window: Either the `window_size` argument or the `window_size_func` argument must "
                       "be specified.");
  testing::ExpectError(range.GroupByWindow({.key_fn = mod2, .window_size = 2, .window_size_fn = mod2}, WholeWindow),
                       StatusCode::kInvalidArgument, "Either the `window_size` argument or the `window_size_func`");
  testing::ExpectError(range.GroupByWindow({.key_fn = mod2, .window_size = 0}, WholeWindow),
                       StatusCode::kInvalidArgument,
                       "group_by_window: Window size must be greater than zero, but got 0.");
  testing::ExpectError(range.GroupByWindow({.window_size = 2}, WholeWindow), StatusCode::kInvalidArgument,
                       "group_by_window: give exactly one of key_fn and key_component");
  testing::ExpectError(range.GroupByWindow({.key_fn = testing::Ok(MakeCastFunction("0", DType::kInt32)),
                                            .window_size = 2},
                                           WholeWindow),
                       StatusCode::kInvalidArgument,
                       "group_by_window: `key_func` must return a scalar int64. (");
  testing::ExpectError(range.GroupByWindow({.key_fn = mod2, .window_size = 2, .max_open_groups = 0}, WholeWindow),
                       StatusCode::kInvalidArgument, "group_by_window: max_open_groups must be greater than zero");
  testing::ExpectError(
      Pipeline::FromSlices({{"key", Vec({1, 2})}}).GroupByWindow({.key_component = "key", .window_size = 2},
                                                                 WholeWindow),
      StatusCode::kInvalidArgument, "the input has a component named 'key'");
  testing::ExpectError(range.GroupByWindow({.key_fn = mod2, .window_size = 2}), StatusCode::kInvalidArgument,
                       "group_by_window: reduce_fn is null");
}

// Per-element errors: the element is dropped and the iterator goes on.
TEST(GroupByWindowDatasetTest, ErrorsMidStream) {
  // A window size of 0 for key 1: its elements fail; key 0's are grouped.
  auto sizes = testing::CollectResults(testing::Build(Pipeline::Range(5).GroupByWindow(
      {.key_fn = IntFn([](int64_t x) { return x % 2; }), .window_size_fn = IntFn([](int64_t k) { return 2 - 2 * k; })},
      WholeWindow)));
  ASSERT_EQ(sizes.size(), 4u);
  testing::ExpectStatus(sizes[0].status(), StatusCode::kInvalidArgument,
                        "group_by_window: Window size must be greater than zero, but got 0.");
  EXPECT_TRUE(sizes[1]->Equals(Element{Vec({0, 2})}));
  EXPECT_FALSE(sizes[2].ok());
  EXPECT_TRUE(sizes[3]->Equals(Element{Vec({4})}));
  // An input error.
  auto input = testing::CollectResults(testing::Build(testing::FailingRange(5, {1}).GroupByWindow(
      {.key_fn = IntFn([](int64_t x) { return x % 2; }), .window_size = 2}, WholeWindow)));
  ASSERT_EQ(input.size(), 4u);
  testing::ExpectFailedElement(input[0], 1);
  EXPECT_TRUE(input[1]->Equals(Element{Vec({0, 2})}));
  EXPECT_TRUE(input[2]->Equals(Element{Vec({4})}));
  EXPECT_TRUE(input[3]->Equals(Element{Vec({3})}));
  // A reduce_fn error is its window's.
  auto reduce = MakeLambdaDatasetFunction(
      [](const Element& window) -> Result<DatasetPtr> {
        if (window[1].data<int64_t>()[0] == 1) return InvalidArgumentError("no dataset for key 1");
        return Pipeline::FromTensors({{"", window[0]}}).Build();
      },
      ElementSpec{{"", DType::kInt64, PartialShape{-1}}});
  auto reduced = testing::CollectResults(testing::Build(Pipeline::Range(6).GroupByWindow(
      {.key_fn = IntFn([](int64_t x) { return x % 2; }), .reduce_fn = reduce, .window_size = 2})));
  ASSERT_EQ(reduced.size(), 4u);
  EXPECT_TRUE(reduced[0]->Equals(Element{Vec({0, 2})}));
  testing::ExpectStatus(reduced[1].status(), StatusCode::kInvalidArgument,
                        "group_by_window(lambda): no dataset for key 1");
  EXPECT_TRUE(reduced[2]->Equals(Element{Vec({4})}));
  EXPECT_FALSE(reduced[3].ok());
}

TEST(GroupByWindowDatasetTest, OpenGroupsAreBounded) {
  auto results = testing::CollectResults(testing::Build(Pipeline::Range(6).GroupByWindow(
      {.key_fn = IntFn([](int64_t x) { return x % 3; }), .window_size = 2, .max_open_groups = 2}, WholeWindow)));
  // 0 and 1 open groups; 2 would be a third; 3 and 4 complete theirs, so 5 may open one.
  ASSERT_EQ(results.size(), 4u);
  testing::ExpectStatus(results[0].status(), StatusCode::kResourceExhausted,
                        "group_by_window: an element of key 2 would open a group beside the 2 open ones "
                        "(max_open_groups = 2)");
  EXPECT_TRUE(results[1]->Equals(Element{Vec({0, 3})}));
  EXPECT_TRUE(results[2]->Equals(Element{Vec({1, 4})}));
  EXPECT_TRUE(results[3]->Equals(Element{Vec({5})}));
}

TEST(GroupByWindowDatasetTest, GroupsAreChargedToTheRamBudget) {
  const DatasetPtr dataset = testing::Build(Pipeline::Range(4).GroupByWindow(
      {.key_fn = IntFn([](int64_t x) { return x % 3; }), .window_size = 2}, WholeWindow));
  const int64_t held = BufferedBytes(testing::Int(0));
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 2 * held});  // two int64 scalars
  {
    auto it = dataset->MakeIterator(ctx);
    auto results = testing::CollectResults(*it);
    ASSERT_EQ(results.size(), 4u);
    testing::ExpectStatus(results[0].status(), StatusCode::kResourceExhausted,
                          StrCat("group_by_window: holding an element of ", held, " bytes beside the ", 2 * held,
                                 " bytes in the groups would pass the RAM budget of ", 2 * held, " bytes"));
    EXPECT_EQ(results[1].status().code(), StatusCode::kResourceExhausted);
    EXPECT_TRUE(results[2]->Equals(Element{Vec({0})}));
    EXPECT_TRUE(results[3]->Equals(Element{Vec({1})}));
    EXPECT_EQ(ctx.runtime->ram_budget().used(), 0);
  }
  EXPECT_EQ(ctx.runtime->ram_budget().used(), 0);
}

TEST(GroupByWindowDatasetTest, SpecRoundTrip) {
  const std::string text =
      "ops { from_slices { components { name: \"x\" tensor { dtype: \"int64\" shape: 6 int_values: [1, 2, 3, 4, 5, 6] } } "
      "components { name: \"k\" tensor { dtype: \"int64\" shape: 6 int_values: [0, 1, 0, 1, 1, 0] } } } } "
      "ops { group_by_window { key_fn { select { components: \"k\" } } "
      "reduce_fn { ops { element_source { kind: SLICES } } ops { batch { batch_size: 2 } } } window_size: 2 } }";
  const DatasetPtr dataset = testing::Ok(DatasetFromSpec(testing::Ok(ParseSpecText(text))));
  testing::ExpectProduces(dataset, {Element{Vec({1, 3}), Vec({0, 0}), Vec({0, 0})},
                                    Element{Vec({2, 4}), Vec({1, 1}), Vec({1, 1})},
                                    Element{Vec({6}), Vec({0}), Vec({0})}, Element{Vec({5}), Vec({1}), Vec({1})}});
  const std::string written = SpecToText(testing::Ok(DatasetToSpec(*dataset)));
  const DatasetPtr again = testing::Ok(DatasetFromSpec(testing::Ok(ParseSpecText(written))));
  EXPECT_EQ(SpecToText(testing::Ok(DatasetToSpec(*again))), written);
  EXPECT_EQ(DescribeGraph(*again), DescribeGraph(*dataset));
  // The builder's body serializes too when it holds only built-in ops.
  auto built = Pipeline::FromSlices({{"x", Vec({1, 2, 3})}, {"k", Vec({0, 1, 0})}})
                   .GroupByWindow({.key_component = "k", .window_size = 2}, WholeWindow);
  const DatasetPtr original = testing::Build(built);
  const DatasetPtr rebuilt = testing::Ok(DatasetFromSpec(testing::Ok(DatasetToSpec(*original))));
  testing::ExpectElementsEqual(testing::Collect(rebuilt), testing::Collect(original));
  // A lambda key keeps the graph in-process.
  EXPECT_EQ(DatasetToSpec(*testing::Build(Pipeline::Range(3).GroupByWindow(
                              {.key_fn = IntFn([](int64_t x) { return x; }), .window_size = 2}, WholeWindow)))
                .status()
                .code(),
            StatusCode::kUnimplemented);
}

TEST(GroupByWindowDatasetTest, ResumesMidGroupAndMidWindow) {
  testing::ExpectResumesEverywhere([] {
    return Pipeline::Range(17).GroupByWindow({.key_fn = IntFn([](int64_t x) { return x % 3; }), .window_size = 4},
                                             [](Pipeline rows) { return rows.Batch({.batch_size = 3}); });
  });
  testing::ExpectResumesEverywhere([] {
    return testing::FailingRange(12, {5}).GroupByWindow(
        {.key_fn = IntFn([](int64_t x) { return x % 2; }), .window_size_fn = IntFn([](int64_t k) { return k + 2; })},
        [](Pipeline rows) { return rows; });
  });
}

TEST(GroupByWindowDatasetTest, ProfilerNode) {
  const DatasetPtr dataset = testing::Build(Pipeline::Range(10).GroupByWindow(
      {.key_fn = IntFn([](int64_t x) { return x % 2; }), .window_size = 5}, [](Pipeline rows) { return rows; }));
  const ProfileSnapshot snapshot = testing::ProfileAll(dataset)->Snapshot();
  const NodeSnapshot* node = testing::FindNode(snapshot, "group_by_window");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->elements, 10);
}

TEST(GroupByWindowDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(
      testing::Build(Pipeline::Range(1000).Prefetch(4).GroupByWindow(
          {.key_fn = IntFn([](int64_t x) { return x % 7; }), .window_size = 5},
          [](Pipeline rows) { return rows.Prefetch(2); })),
      3);
}

}  // namespace
}  // namespace sluice
