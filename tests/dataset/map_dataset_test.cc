#include "sluice/dataset/map_dataset.h"

#include "contract.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/iterator_state.h"

#include <tbb/parallel_for.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <utility>

namespace sluice {
namespace {

using testing::ExpectProduces;

Result<Element> Square(Element e) {
  const int64_t v = e[0].scalar<int64_t>();
  return Element{Tensor::Scalar<int64_t>(v * v)};
}

TEST(MapDatasetTest, AppliesFunctionInOrder) {
  ExpectProduces(Pipeline::Range(5).Map(Square), testing::Ints({0, 1, 4, 9, 16}));
}

TEST(MapDatasetTest, DeclaredOutputSpecAndCardinality) {
  auto pipeline = Pipeline::Range(4).Map(
      [](Element e) -> Result<Element> {
        return Element{Tensor::Scalar(static_cast<float>(e[0].scalar<int64_t>())), e[0]};
      },
      {.output_spec = ElementSpec{{"f", DType::kFloat32, Shape{}}, {"i", DType::kInt64, Shape{}}}});
  DatasetPtr dataset = testing::Build(pipeline);
  EXPECT_EQ(dataset->element_spec().ToString(), "(f: float32[], i: int64[])");
  EXPECT_EQ(dataset->cardinality(), 4);
  EXPECT_EQ(testing::Collect(dataset).size(), 4u);
}

TEST(MapDatasetTest, OutputNotMatchingDeclaredSpecIsAnErrorForThatElement) {
  auto results = testing::CollectResults(testing::Build(Pipeline::Range(2).Map(
      [](Element) -> Result<Element> { return Element{Tensor::Scalar(1.0f)}; })));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(results[0].status().message().find("dtype float32 but the spec says int64"), std::string::npos)
      << results[0].status();
}

TEST(MapDatasetTest, ErrorIsPerElementAndIteratorStaysUsable) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(5, {1, 3})));
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0]->operator[](0).scalar<int64_t>(), 0);
  testing::ExpectFailedElement(results[1], 1);
  EXPECT_EQ(results[2]->operator[](0).scalar<int64_t>(), 2);
  testing::ExpectFailedElement(results[3], 3);
  EXPECT_EQ(results[4]->operator[](0).scalar<int64_t>(), 4);
}

TEST(MapDatasetTest, OutOfRangeFromTheFunctionBecomesInvalidArgument) {
  auto results = testing::CollectResults(testing::Build(
      Pipeline::Range(1).Map([](Element) -> Result<Element> { return OutOfRangeError("done early"); })));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(results[0].status().message().find("Function invocation produced OutOfRangeError"), std::string::npos);
}

// A row-wise function maps whole runs; a failure inside a run still lands
// on its own element, with the rows before and after it intact.
TEST(MapDatasetTest, RowWiseFunctionOnRunsKeepsPerElementErrors) {
  Tensor x = Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5, 6, 7});
  auto doubled = Pipeline::FromSlices({{"x", x}}).Map(
      [](Element e) -> Result<Element> {
        Tensor out = Tensor::Allocate(DType::kInt64, e[0].shape());
        for (int64_t i = 0; i < e[0].NumElements(); ++i) {
          const int64_t v = e[0].data<int64_t>()[i];
          if (v == 5) return InvalidArgumentError("element 5 failed");
          out.mutable_data<int64_t>()[i] = 2 * v;
        }
        return Element{out};
      },
      {.row_wise = true});
  DatasetPtr dataset = testing::Build(doubled);
  auto it = dataset->MakeIterator();
  std::vector<int64_t> values;
  int errors = 0;
  while (true) {
    auto run = it->GetNextRun(3);
    if (!run.ok()) {
      ++errors;
      EXPECT_NE(run.status().message().find("element 5 failed"), std::string::npos);
      continue;
    }
    if (!run->has_value()) break;
    for (int64_t i = 0; i < (**run)[0].dim(0); ++i) values.push_back((**run)[0].data<int64_t>()[i]);
  }
  EXPECT_EQ(errors, 1);
  EXPECT_EQ(values, (std::vector<int64_t>{0, 2, 4, 6, 8, 12, 14}));
}

// A per-element function with static output shapes maps a run's rows into
// one output run; an error ends the run before its element and comes next,
// so the results are the per-element ones in order, and a state saved
// between any two calls (an error pending included) resumes exactly.
TEST(MapDatasetTest, PerElementFunctionMapsRunsRowByRowWithErrorsInPlace) {
  auto make = [] {
    return testing::Build(Pipeline::FromSlices({{"x", testing::Vec({0, 1, 2, 3, 4, 5, 6, 7, 8, 9})}})
                              .Map([](Element e) -> Result<Element> {
                                const int64_t v = e[0].scalar<int64_t>();
                                if (v == 2 || v == 3 || v == 7) return InvalidArgumentError("element ", v, " failed");
                                return Element{Tensor::Scalar<int64_t>(10 * v)};
                              },
                              {.output_spec = ElementSpec{{"x", DType::kInt64, Shape{}}}}));
  };
  // Each call's results as text: "error: ..." or the run's values.
  auto rest_by_runs = [](Iterator& it) {
    std::vector<std::string> calls;
    for (int call = 0; call < 100; ++call) {
      Result<std::optional<Element>> run = it.GetNextRun(4);
      if (!run.ok()) {
        calls.push_back(StrCat("error: ", run.status().message()));
        continue;
      }
      if (!run->has_value()) break;
      std::string values;
      for (int64_t r = 0; r < (**run)[0].dim(0); ++r) values += StrCat((**run)[0].data<int64_t>()[r], " ");
      calls.push_back(values);
    }
    return calls;
  };
  DatasetPtr dataset = make();
  auto it = dataset->MakeIterator();
  const std::vector<std::string> calls = rest_by_runs(*it);
  EXPECT_EQ(calls, (std::vector<std::string>{"0 10 ", "error: map: element 2 failed", "error: map: element 3 failed",
                                             "40 50 60 ", "error: map: element 7 failed", "80 90 "}));
  for (size_t k = 0; k <= calls.size(); ++k) {
    auto first = dataset->MakeIterator();
    for (size_t i = 0; i < k; ++i) (void)first->GetNextRun(4);
    Result<std::string> state = SaveIteratorState(*first);
    ASSERT_TRUE(state.ok()) << state.status();
    auto resumed = make()->MakeIterator();
    ASSERT_TRUE(RestoreIteratorState(*resumed, *state).ok()) << "k=" << k;
    EXPECT_EQ(rest_by_runs(*resumed), std::vector<std::string>(calls.begin() + k, calls.end())) << "k=" << k;
  }
  // Through batch: the same elements as element by element.
  testing::ExpectProduces(Pipeline::FromSlices({{"x", testing::Vec({0, 1, 4, 5, 6, 8, 9})}})
                              .Map([](Element e) -> Result<Element> {
                                return Element{Tensor::Scalar<int64_t>(10 * e[0].scalar<int64_t>())};
                              })
                              .Batch({.batch_size = 3}),
                          {Element{testing::Vec({0, 10, 40})}, Element{testing::Vec({50, 60, 80})},
                           Element{testing::Vec({90})}});
}

// A per-element function that returns some input rows as they are (the
// same views) and makes others: the run holds each row's output, whether a
// component is passed through for the whole run, from the start until a
// made row, or never.
TEST(MapDatasetTest, PerElementFunctionPassingRowsThroughMapsRunsRowByRow) {
  auto fn = [](Element e) -> Result<Element> {
    const int64_t v = e[0].scalar<int64_t>();
    Tensor y = v >= 3 ? Tensor::FromVector<int64_t>({-v, -v}) : e[1];  // made from element 3 on
    return Element{e[0], y, Tensor::Scalar<int64_t>(v + 100)};
  };
  Tensor ys = Tensor::FromVector<int64_t>({0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}, Shape{6, 2});
  const ElementSpec spec{{"x", DType::kInt64, Shape{}}, {"y", DType::kInt64, Shape{2}}, {"z", DType::kInt64, Shape{}}};
  testing::ExpectProduces(Pipeline::FromSlices({{"x", testing::Vec({0, 1, 2, 3, 4, 5})}, {"y", ys}})
                              .Map(fn, {.output_spec = spec})
                              .Batch({.batch_size = 4}),
                          {Element{testing::Vec({0, 1, 2, 3}),
                                   Tensor::FromVector<int64_t>({0, 0, 1, 1, 2, 2, -3, -3}, Shape{4, 2}),
                                   testing::Vec({100, 101, 102, 103})},
                           Element{testing::Vec({4, 5}), Tensor::FromVector<int64_t>({-4, -4, -5, -5}, Shape{2, 2}),
                                   testing::Vec({104, 105})}});
}

// Every result of `it` read by runs of up to max_rows, flattened into one
// result per element (an error stands for its element).
std::vector<Result<Element>> CollectRunRows(Iterator& it, int64_t max_rows, int64_t* largest_run) {
  std::vector<Result<Element>> out;
  for (int call = 0; call < 10'000; ++call) {
    Result<std::optional<Element>> run = it.GetNextRun(max_rows);
    if (!run.ok()) {
      out.push_back(run.status());
      continue;
    }
    if (!run->has_value()) break;
    *largest_run = std::max(*largest_run, (**run)[0].dim(0));
    for (int64_t r = 0; r < (**run)[0].dim(0); ++r) {
      Element row;
      for (const Tensor& t : (**run).components) row.components.push_back(t.Row(r));
      out.push_back(std::move(row));
    }
  }
  return out;
}

// A per-element function over runs (rows handed to it one by one, its
// argument's tensors reused from row to row, passed-through rows known by
// their address) gives what it gives on each element alone: the same
// outputs, errors and spec checks, by element and by run, sequentially and
// at every parallelism. The function passes rows through, makes rows,
// returns another row's view, keeps its argument, fails, and breaks its
// declared spec.
TEST(MapDatasetTest, PerElementFunctionGivesTheSameResultsByElementAndByRunAtEveryParallelism) {
  constexpr int64_t kRows = 60;
  std::vector<int64_t> x_values(kRows * 3), y_values(kRows);
  for (int64_t i = 0; i < kRows * 3; ++i) x_values[i] = i;
  for (int64_t i = 0; i < kRows; ++i) y_values[i] = i;
  const Tensor xs = Tensor::FromVector<int64_t>(x_values, Shape{kRows, 3});
  const Tensor ys = Tensor::FromVector<int64_t>(y_values);
  struct Kept {
    std::mutex mu;
    std::vector<Element> arguments;
  };
  auto kept = std::make_shared<Kept>();
  auto fn = [xs, kept](Element e) -> Result<Element> {
    const int64_t v = e[1].scalar<int64_t>();
    switch (v % 6) {
      case 1:
        return Element{Tensor::FromVector<int64_t>({-v, -v, -v}), e[1]};
      case 2:
        return InvalidArgumentError("element ", v, " failed");
      case 3:
        return Element{xs.Row((v + 1) % kRows), e[1]};
      case 4: {
        std::lock_guard<std::mutex> lock(kept->mu);
        kept->arguments.push_back(e);
        return e;
      }
      case 5:
        return Element{Tensor::FromVector<int64_t>({v, v}), e[1]};
      default:
        return e;
    }
  };
  const ElementSpec spec{{"x", DType::kInt64, Shape{3}}, {"y", DType::kInt64, Shape{}}};
  auto make = [&](int64_t parallelism) {
    return testing::Build(Pipeline::FromSlices({{"x", xs}, {"y", ys}})
                              .Map(fn, {.output_spec = spec}, {.num_parallel_calls = parallelism}));
  };
  // The reference: element by element, each checked against the spec.
  const std::vector<Result<Element>> expected = testing::CollectResults(make(0));
  ASSERT_EQ(expected.size(), static_cast<size_t>(kRows));
  for (int64_t v = 0; v < kRows; ++v) {
    SCOPED_TRACE(StrCat("element ", v));
    if (v % 6 == 2) {
      testing::ExpectStatus(expected[v].status(), StatusCode::kInvalidArgument, StrCat("map: element ", v, " failed"));
    } else if (v % 6 == 5) {
      ASSERT_FALSE(expected[v].ok());
      EXPECT_NE(expected[v].status().message().find("does not match its declared spec"), std::string::npos)
          << expected[v].status();
    } else {
      ASSERT_TRUE(expected[v].ok()) << expected[v].status();
      Result<Element> direct = fn(Element{xs.Row(v), ys.Row(v)});
      ASSERT_TRUE(direct.ok());
      EXPECT_TRUE(expected[v]->Equals(*direct)) << *expected[v] << " vs " << *direct;
    }
  }
  for (int64_t parallelism : std::vector<int64_t>{0, 1, 2, 4, kAutotune}) {
    const std::string where = StrCat("num_parallel_calls=", parallelism);
    const DatasetPtr dataset = make(parallelism);
    testing::ExpectSameResults(testing::CollectResults(dataset), expected, where + ", by element");
    for (int64_t max_rows : {1, 4, 64}) {
      int64_t largest_run = 0;
      testing::ExpectSameResults(CollectRunRows(*dataset->MakeIterator(), max_rows, &largest_run), expected,
                                 StrCat(where, ", by runs of ", max_rows));
      // Sequentially, rows between errors come as runs.
      if (parallelism == 0) {
        EXPECT_EQ(largest_run, std::min<int64_t>(max_rows, 2)) << where;
      }
    }
  }
  // What the function kept is what it was given, whatever came after.
  std::lock_guard<std::mutex> lock(kept->mu);
  ASSERT_FALSE(kept->arguments.empty());
  for (const Element& e : kept->arguments) {
    const int64_t v = e[1].scalar<int64_t>();
    EXPECT_TRUE(e[0].Equals(xs.Row(v))) << e;
  }
}

TEST(MapDatasetTest, InvalidArguments) {
  testing::ExpectError(MakeMapDataset(nullptr, MakeLambdaFunction(Square)), StatusCode::kInvalidArgument, "null");
  testing::ExpectError(MakeMapDataset(*MakeRangeDataset({.stop = 1}), nullptr), StatusCode::kInvalidArgument, "null");
}

// One built-in function object serves two maps where its component sits at
// different positions: each map binds it to its own input, runs included.
TEST(MapDatasetTest, SameBuiltinFunctionAtDifferentPositions) {
  const ElementFunctionPtr scale = *MakeScaleShiftFunction("x", 10.0, 0.5);
  const Tensor xs = testing::Vec({1, 2, 3});
  const Tensor ys = testing::Vec({7, 8, 9});
  const Pipeline x_first = Pipeline::FromSlices({{"x", xs}, {"y", ys}}).Map(scale);
  const Pipeline x_second = Pipeline::FromSlices({{"y", ys}, {"x", xs}}).Map(scale);
  std::vector<Element> expected_first, expected_second;
  for (int64_t i = 0; i < 3; ++i) {
    const Tensor x = Tensor::Scalar(10.0f * (i + 1) + 0.5f);
    const Tensor y = Tensor::Scalar<int64_t>(7 + i);
    expected_first.push_back(Element{x, y});
    expected_second.push_back(Element{y, x});
  }
  testing::ExpectProduces(x_first, expected_first);
  testing::ExpectProduces(x_second, expected_second);
  testing::ExpectRunsMatchElements(testing::Build(x_first), 2);
  testing::ExpectRunsMatchElements(testing::Build(x_second), 2);
}

// A function that names a missing component fails when the map is built,
// with the function's own error under "map".
TEST(MapDatasetTest, MissingComponentFailsAtBuildTime) {
  DatasetPtr input = *MakeFromSlicesDataset({{"y", testing::Vec({1, 2})}});
  Result<DatasetPtr> map = MakeMapDataset(input, *MakeCastFunction("x", DType::kFloat32));
  ASSERT_FALSE(map.ok());
  EXPECT_EQ(map.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(map.status().message(),
            "map: cast(x -> float32): no component named 'x' in element spec (y: int64[])");
}

TEST(MapDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(100).Map(Square)), 5);
}

// ---- parallel map ----

// Square, after sleeping a pseudo-random 0-300 us, so calls finish out of order.
Result<Element> JitteredSquare(Element e) {
  const int64_t v = e[0].scalar<int64_t>();
  std::this_thread::sleep_for(std::chrono::microseconds((v * 7919) % 300));
  return Element{Tensor::Scalar<int64_t>(v * v)};
}

std::vector<Element> Squares(int64_t n) {
  std::vector<Element> out;
  for (int64_t v = 0; v < n; ++v) out.push_back(testing::Int(v * v));
  return out;
}

TEST(MapDatasetTest, ParallelDeterministicEqualsSequentialAtEveryParallelism) {
  for (int64_t parallelism : std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, kAutotune}) {
    SCOPED_TRACE(StrCat("num_parallel_calls=", parallelism));
    ExpectProduces(Pipeline::Range(120).Map(JitteredSquare, {}, {.num_parallel_calls = parallelism}), Squares(120));
  }
}

TEST(MapDatasetTest, ParallelNondeterministicIsAPermutationWhereFastElementsPassSlowOnes) {
  auto slow_first = [](Element e) -> Result<Element> {
    if (e[0].scalar<int64_t>() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return e;
  };
  for (int64_t parallelism : {2, 4, 8}) {
    SCOPED_TRACE(StrCat("num_parallel_calls=", parallelism));
    DatasetPtr dataset = testing::Build(Pipeline::Range(50).Map(
        slow_first, {}, {.num_parallel_calls = parallelism, .deterministic = Determinism::kNondeterministic}));
    // A thread per call, so that the fast calls don't queue behind the slow
    // one even on a loaded machine (or under a sanitizer).
    IteratorContext ctx;
    ctx.runtime = Runtime::Create({.cpu_budget = static_cast<int>(parallelism)});
    auto it = dataset->MakeIterator(ctx);
    const std::vector<Element> out = testing::Ok(testing::CollectAll(*it));
    std::vector<int64_t> values = testing::Values(out);
    EXPECT_NE(values.front(), 0) << "the slow element should have been overtaken";
    std::sort(values.begin(), values.end());
    EXPECT_EQ(testing::Values(out).size(), 50u);
    EXPECT_EQ(values, testing::Values(testing::IntRange(0, 50)));
  }
}

// The traversal's option sets the order of maps that leave it at default.
TEST(MapDatasetTest, TraversalOptionSetsTheDefaultOrder) {
  auto slow_first = [](Element e) -> Result<Element> {
    if (e[0].scalar<int64_t>() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return e;
  };
  DatasetPtr dataset = testing::Build(Pipeline::Range(20).Map(slow_first, {}, {.num_parallel_calls = 4}));
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.deterministic = false});
  auto it = dataset->MakeIterator(ctx);
  std::vector<int64_t> values = testing::Values(testing::Ok(testing::CollectAll(*it)));
  EXPECT_NE(values.front(), 0);
  EXPECT_EQ(values.size(), 20u);
  EXPECT_EQ(testing::Values(testing::Collect(dataset)), testing::Values(testing::IntRange(0, 20)));
}

// Errors from the input and from the function land on their own elements,
// in order, and the iterator goes on, at every parallelism.
TEST(MapDatasetTest, ParallelErrorsArePerElementAndInOrder) {
  auto fail_on_multiples_of_7 = [](Element e) -> Result<Element> {
    const int64_t v = e[0].scalar<int64_t>();
    if (v % 7 == 6) return InvalidArgumentError("element ", v, " failed");
    return e;
  };
  for (int64_t parallelism : {1, 3, 8}) {
    SCOPED_TRACE(StrCat("num_parallel_calls=", parallelism));
    auto results = testing::CollectResults(testing::Build(testing::FailingRange(30, {2, 3, 17}).Map(
        fail_on_multiples_of_7, {}, {.num_parallel_calls = parallelism})));
    ASSERT_EQ(results.size(), 30u);
    for (int64_t v = 0; v < 30; ++v) {
      if (v == 2 || v == 3 || v == 17 || v % 7 == 6) {
        testing::ExpectFailedElement(results[v], v);
      } else {
        ASSERT_TRUE(results[v].ok()) << results[v].status();
        EXPECT_EQ((*results[v])[0].scalar<int64_t>(), v);
      }
    }
  }
}

TEST(MapDatasetTest, ParallelEarlyDestructionWithCallsInFlight) {
  auto slow = [](Element e) -> Result<Element> {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return e;
  };
  testing::ExpectEarlyDestructionIsClean(
      testing::Build(Pipeline::Range(1000).Map(slow, {}, {.num_parallel_calls = 8})), 3);
  testing::ExpectEarlyDestructionIsClean(
      testing::Build(Pipeline::Range(1000).Map(JitteredSquare, {}, {.num_parallel_calls = kAutotune})), 0);
}

// The results waiting for the consumer are charged to the RAM budget, and
// released when they are consumed or the iterator goes.
TEST(MapDatasetTest, ParallelResultsAreChargedToTheRamBudget) {
  DatasetPtr dataset = testing::Build(Pipeline::Range(64).Map(
      [](Element e) -> Result<Element> { return Element{Tensor::Allocate(DType::kFloat32, Shape{256})}; },
      {.output_spec = ElementSpec{{"x", DType::kFloat32, Shape{256}}}}, {.num_parallel_calls = 4}));
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 8 * 1024});  // 8 elements of 1 KiB
  {
    auto it = dataset->MakeIterator(ctx);
    EXPECT_EQ(testing::Ok(testing::CollectAll(*it)).size(), 64u);
    EXPECT_GT(ctx.runtime->ram_budget().peak(), 0);
    EXPECT_LE(ctx.runtime->ram_budget().peak(), 8 * 1024);
  }
  EXPECT_EQ(ctx.runtime->ram_budget().used(), 0);
}

TEST(MapDatasetTest, ParallelInvalidArguments) {
  testing::ExpectError(MakeMapDataset(*MakeRangeDataset({.stop = 1}), MakeLambdaFunction(Square),
                                      {.num_parallel_calls = -5}),
                       StatusCode::kInvalidArgument, "num_parallel_calls must be >= 1, 0 (sequential) or -1");
}

TEST(MapDatasetTest, ParallelDescribesItsOptions) {
  DatasetPtr dataset = testing::Build(Pipeline::Range(3).Map(Square, {}, {.num_parallel_calls = kAutotune}));
  EXPECT_EQ(dataset->DebugParams(), "fn=lambda, num_parallel_calls=autotune, deterministic=default");
}


// ---- a parallel map's CPU budget ----

int64_t ThreadCpuNanos() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

// The cores a CPU-bound parallel map used, counted in CPU time: each call
// burns kCallNanos of its own thread's CPU time, in slices, and weighs each
// slice by the number of calls in progress while it ran; cores used = that
// weighted CPU time / the calls' CPU time. A runtime that runs the map on
// one worker scores exactly 1 and one that keeps two calls going scores
// about 2, however loaded the machine: a call preempted by other processes
// is still in progress. (All calls' CPU time over the busiest thread's is
// not load-proof: on a loaded machine the scheduler alone can leave one
// thread with most of the calls.)
class CoresUsedByCalls {
 public:
  static constexpr int64_t kCallNanos = 10'000'000;

  std::function<Result<Element>(Element)> Function() {
    return [this](Element e) -> Result<Element> {
      ++in_progress_;
      const int64_t start = ThreadCpuNanos();
      int64_t last = start, weighted = 0;
      while (last - start < kCallNanos) {
        const int64_t now = ThreadCpuNanos();
        weighted += (now - last) * in_progress_.load();
        last = now;
      }
      --in_progress_;
      weighted_nanos_ += weighted;
      call_nanos_ += last - start;
      return e;
    };
  }
  double Cores() const {
    return call_nanos_ > 0 ? static_cast<double>(weighted_nanos_) / static_cast<double>(call_nanos_) : 0;
  }

 private:
  std::atomic<int> in_progress_{0};
  std::atomic<int64_t> weighted_nanos_{0}, call_nanos_{0};
};

// Traverses a map of 24 CPU-bound calls at `parallelism` on `runtime`; the
// cores it used.
double CoresUsed(const std::shared_ptr<Runtime>& runtime, int64_t parallelism) {
  CoresUsedByCalls calls;
  DatasetPtr dataset =
      testing::Build(Pipeline::Range(24).Map(calls.Function(), {}, {.num_parallel_calls = parallelism}));
  IteratorContext ctx;
  ctx.runtime = runtime;
  auto it = dataset->MakeIterator(ctx);
  EXPECT_EQ(testing::Ok(testing::CollectAll(*it)).size(), 24u);
  return calls.Cores();
}

constexpr double kMinCoresOfTwo = 1.6;

TEST(MapDatasetTest, ParallelMapUsesACpuBudgetOfTwo) {
  for (int64_t parallelism : {int64_t{2}, int64_t{4}, int64_t{8}, kAutotune}) {
    SCOPED_TRACE(StrCat("num_parallel_calls=", parallelism));
    EXPECT_GE(CoresUsed(Runtime::Create({.cpu_budget = 2}), parallelism), kMinCoresOfTwo);
  }
}

// Each traversal's pool is made after the last one's was destroyed (the
// process-wide worker limit went back to its default in between).
TEST(MapDatasetTest, ParallelMapUsesItsBudgetInRuntimesMadeOneAfterAnother) {
  for (int run = 0; run < 4; ++run) {
    SCOPED_TRACE(StrCat("run ", run));
    EXPECT_GE(CoresUsed(Runtime::Create({.cpu_budget = 2}), 4), kMinCoresOfTwo);
  }
}

TEST(MapDatasetTest, ParallelMapUsesItsBudgetBesideARuntimeWithASmallerOne) {
  std::shared_ptr<Runtime> one = Runtime::Create({.cpu_budget = 1});
  EXPECT_GE(CoresUsed(Runtime::Create({.cpu_budget = 2}), 4), kMinCoresOfTwo);
  std::shared_ptr<Runtime> two = Runtime::Create({.cpu_budget = 2});
  one.reset();
  EXPECT_GE(CoresUsed(two, 4), kMinCoresOfTwo);
}

// Another thread's tbb::parallel_for (as the ops' ParallelFor of a training
// step) runs in oneTBB's default arena, which wants workers too. The pool is
// made once both threads are inside that arena: oneTBB 2021.8 reads its
// worker-limit list unlocked while a thread joins the library for the first
// time, a race inside oneTBB that TSan reports when a limit is set meanwhile.
TEST(MapDatasetTest, ParallelMapUsesItsBudgetWhileTheDefaultArenaWorks) {
  std::atomic<bool> stop{false};
  std::atomic<int> working{0};
  auto steps = [&] {
    bool first_step = true;
    while (!stop.load()) {
      tbb::parallel_for(0, 64, [](int) {
        const int64_t start = ThreadCpuNanos();
        while (ThreadCpuNanos() - start < 200'000) {
        }
      });
      if (std::exchange(first_step, false)) ++working;
    }
  };
  std::thread first(steps), second(steps);
  for (int wait = 0; working.load() < 2 && wait < 10'000; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const bool both_working = working.load() == 2;
  const double cores = both_working ? CoresUsed(Runtime::Create({.cpu_budget = 2}), 4) : 0;
  stop = true;
  first.join();
  second.join();
  ASSERT_TRUE(both_working) << "the default arena's threads did not finish a step in 10 s";
  EXPECT_GE(cores, kMinCoresOfTwo);
}

}  // namespace
}  // namespace sluice
