// The Dataset base: graph depth and its limit (kMaxGraphDepth), and what
// every graph up to that depth must survive on a worker's stack; the
// Iterator base: a cancelled traversal ends every op's search for an
// element to return.
#include "sluice/dataset/dataset.h"

#include <pthread.h>

#include <chrono>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "contract.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/concatenate_dataset.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/map_dataset.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/range_dataset.h"
#include "sluice/dataset/take_dataset.h"

namespace sluice {
namespace {

using testing::Collect;
using testing::Ok;

// The smallest stack the library's threads may get: glibc gives new threads
// 2 MiB when the stack rlimit is unlimited.
constexpr size_t kWorkerStack = size_t{2} << 20;

// Runs `body` on a thread with a stack of `bytes`.
void RunOnStack(size_t bytes, std::function<void()> body) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, bytes), 0);
  pthread_t thread;
  auto run = [](void* arg) -> void* {
    (*static_cast<std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, &body), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

// range(stop) under `ops` more ops, alternating map (a cast to int64, which
// passes the elements through) and take.
Result<DatasetPtr> MapTakeChain(int64_t stop, int ops) {
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset, MakeRangeDataset({.stop = stop}));
  for (int i = 0; i < ops; ++i) {
    if (i % 2 == 0) {
      SLUICE_ASSIGN_OR_RETURN(ElementFunctionPtr fn, MakeCastFunction("", DType::kInt64));
      SLUICE_ASSIGN_OR_RETURN(dataset, MakeMapDataset(std::move(dataset), std::move(fn)));
    } else {
      SLUICE_ASSIGN_OR_RETURN(dataset, MakeTakeDataset(std::move(dataset), {.count = -1}));
    }
  }
  return dataset;
}

TEST(DatasetDepthTest, SourceIsOneAndEachInputAddsOne) {
  DatasetPtr range = Ok(MakeRangeDataset({.stop = 3}));
  EXPECT_EQ(range->depth(), 1);
  EXPECT_EQ(Ok(MapTakeChain(3, 5))->depth(), 6);
  DatasetPtr chain = Ok(MapTakeChain(3, 4));
  // The deeper input counts.
  EXPECT_EQ(Ok(MakeConcatenateDataset(range, chain))->depth(), 6);
  EXPECT_EQ(Ok(MakeConcatenateDataset(chain, range))->depth(), 6);
}

// At the limit a graph builds, iterates, describes, writes its spec, saves
// and restores its position and is destroyed, all on a worker-sized stack.
TEST(DatasetDepthTest, AtTheLimitEverythingWorksOnAWorkerStack) {
  RunOnStack(kWorkerStack, [] {
    DatasetPtr dataset = Ok(MapTakeChain(4, kMaxGraphDepth - 1));
    ASSERT_EQ(dataset->depth(), kMaxGraphDepth);
    std::unique_ptr<Iterator> iterator = dataset->MakeIterator();
    std::optional<Element> first = Ok(iterator->GetNext());
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ((*first)[0].scalar<int64_t>(), 0);
    const std::string state = Ok(SaveIteratorState(*iterator));
    iterator.reset();

    std::unique_ptr<Iterator> resumed = dataset->MakeIterator();
    ASSERT_TRUE(RestoreIteratorState(*resumed, state).ok());
    std::vector<int64_t> rest;
    while (std::optional<Element> next = Ok(resumed->GetNext())) rest.push_back((*next)[0].scalar<int64_t>());
    EXPECT_EQ(rest, (std::vector<int64_t>{1, 2, 3}));
    resumed.reset();

    const std::string description = DescribeGraph(*dataset);
    EXPECT_EQ(std::count(description.begin(), description.end(), '\n'), kMaxGraphDepth);
    spec::Pipeline spec = Ok(DatasetToSpec(*dataset));
    EXPECT_EQ(spec.ops_size(), kMaxGraphDepth);
    dataset.reset();  // destroys the chain
  });
}

TEST(DatasetDepthTest, OnePastTheLimitIsRefusedNamingTheOp) {
  DatasetPtr at_limit = Ok(MapTakeChain(3, kMaxGraphDepth - 1));
  testing::ExpectError(MakeTakeDataset(at_limit, {.count = 1}), StatusCode::kInvalidArgument,
                       StrCat("take: the graph would be ", kMaxGraphDepth + 1, " datasets deep, above the limit of ",
                              kMaxGraphDepth, " (kMaxGraphDepth)"));
  testing::ExpectError(MakeMapDataset(at_limit, Ok(MakeCastFunction("", DType::kFloat32))),
                       StatusCode::kInvalidArgument, "map: the graph would be");
  testing::ExpectError(MakeConcatenateDataset(Ok(MakeRangeDataset({.stop = 1})), at_limit),
                       StatusCode::kInvalidArgument, "concatenate: the graph would be");
}

// 10^5 chained takes, 10^4 chained maps, concatenates nested 5,000 deep: the
// factories refuse the op that goes past the limit, and nothing crashes.
TEST(DatasetDepthTest, HugeGraphsAreErrors) {
  DatasetPtr takes = Ok(MakeRangeDataset({.stop = 2}));
  Status takes_error;
  for (int i = 0; i < 100'000 && takes_error.ok(); ++i) {
    Result<DatasetPtr> next = MakeTakeDataset(takes, {.count = 1});
    if (next.ok()) takes = *next;
    takes_error = next.status();
  }
  EXPECT_EQ(takes_error.code(), StatusCode::kInvalidArgument) << takes_error;
  EXPECT_EQ(takes->depth(), kMaxGraphDepth);

  testing::ExpectError(MapTakeChain(2, 10'000), StatusCode::kInvalidArgument, "above the limit of");

  DatasetPtr nested = Ok(MakeRangeDataset({.stop = 1}));
  Status nested_error;
  for (int i = 0; i < 5'000 && nested_error.ok(); ++i) {
    Result<DatasetPtr> next = MakeConcatenateDataset(Ok(MakeRangeDataset({.stop = 1})), nested);
    if (next.ok()) nested = *next;
    nested_error = next.status();
  }
  EXPECT_EQ(nested_error.code(), StatusCode::kInvalidArgument) << nested_error;
  EXPECT_EQ(Collect(nested).size(), static_cast<size_t>(kMaxGraphDepth));
}

// The builder refuses a graph past the limit whatever the op.
TEST(DatasetDepthTest, PipelineBuilderKeepsTheLimit) {
  Pipeline pipeline = Pipeline::Range(3);
  for (int i = 1; i < kMaxGraphDepth; ++i) pipeline = pipeline.Batch({.batch_size = 1}).Unbatch();
  testing::ExpectError(pipeline, StatusCode::kInvalidArgument, "above the limit of");
  Pipeline at_limit = Pipeline::Range(3);
  for (int i = 1; i < kMaxGraphDepth; ++i) {
    at_limit = i % 2 == 1 ? at_limit.Batch({.batch_size = 2}) : at_limit.Unbatch();
  }
  EXPECT_EQ(Ok(Result<DatasetPtr>(at_limit.Build()))->depth(), kMaxGraphDepth);
  testing::ExpectError(at_limit.Batch({.batch_size = 2}), StatusCode::kInvalidArgument,
                       StrCat("batch: the graph would be ", kMaxGraphDepth + 1, " datasets deep"));
}

// Pipelines over an endless input whose top op returns one element and
// then reads its input without end, finding none to return: each op's own
// loop (filter, skip, unique, shard and ignore_errors dropping errors, an
// interleave of empty datasets, unbatch of empty batches).
std::vector<std::pair<std::string, Pipeline>> EndlessSearches() {
  const auto first_only = [](const Element& e) -> Result<bool> { return e[0].scalar<int64_t>() == 0; };
  const auto fails_after_first = [](Element e) -> Result<Element> {
    if (e[0].scalar<int64_t>() > 0) return DataLossError("element ", e[0].scalar<int64_t>(), " is corrupt");
    return e;
  };
  const ElementSpec scalar = Pipeline::Range(1).Build().value()->element_spec();
  return {
      {"filter", Pipeline::Counter().Filter(first_only)},
      {"skip", Pipeline::Counter().Take(1).Concatenate(Pipeline::Counter().Skip(-1))},
      {"unique", Pipeline::Counter({.step = 0}).Unique()},
      {"ignore_errors", Pipeline::Counter().Map(fails_after_first).IgnoreErrors()},
      {"shard", Pipeline::Counter().Map(fails_after_first).Shard(int64_t{1} << 62, 0)},
      {"interleave", Pipeline::Counter().Interleave(
                         [](const Element& e) { return Pipeline::Range(e[0].scalar<int64_t>() == 0 ? 1 : 0).Build(); },
                         scalar, {.cycle_length = 1})},
      {"unbatch", Pipeline::Counter()
                      .Map(
                          [](Element e) -> Result<Element> {
                            const int64_t v = e[0].scalar<int64_t>();
                            return Element{v == 0 ? Tensor::FromVector<int64_t>({v}) : Tensor::FromVector<int64_t>({})};
                          },
                          {.output_spec = ElementSpec{{"", DType::kInt64, PartialShape({-1})}}})
                      .Unbatch()},
  };
}

// Destroying the iterator returns promptly while a prefetch thread is in
// such a loop: the loop's next input call is Cancelled.
TEST(IteratorCancellationTest, DestroyingTheIteratorEndsAWorkerThatFindsNoElement) {
  for (const auto& [name, pipeline] : EndlessSearches()) {
    SCOPED_TRACE(name);
    const DatasetPtr dataset = testing::Build(pipeline.Prefetch(2));
    ASSERT_NE(dataset, nullptr);
    std::unique_ptr<Iterator> it = dataset->MakeIterator();
    ASSERT_TRUE(Ok(it->GetNext()).has_value());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto start = std::chrono::steady_clock::now();
    it.reset();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  }
}

// A GetNext on the caller's own thread, in such a loop, returns Cancelled
// when another thread cancels the traversal (as Ctrl-C does in Python).
TEST(IteratorCancellationTest, CancellingEndsAGetNextThatFindsNoElement) {
  for (const auto& [name, pipeline] : EndlessSearches()) {
    SCOPED_TRACE(name);
    const DatasetPtr dataset = testing::Build(pipeline);
    ASSERT_NE(dataset, nullptr);
    IteratorContext ctx;
    std::unique_ptr<Iterator> it = dataset->MakeIterator(ctx);
    ASSERT_TRUE(Ok(it->GetNext()).has_value());
    std::thread canceller([cancellation = ctx.cancellation] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      cancellation->Cancel();
    });
    // Cancelled, or the error the op was dropping when its loop saw the
    // cancellation; every call after it is Cancelled.
    const Result<std::optional<Element>> ended = it->GetNext();
    canceller.join();
    EXPECT_FALSE(ended.ok());
    const Result<std::optional<Element>> next = it->GetNext();
    ASSERT_FALSE(next.ok());
    EXPECT_EQ(next.status().code(), StatusCode::kCancelled) << next.status();
    EXPECT_NE(next.status().message().find("the traversal was cancelled"), std::string::npos) << next.status();
  }
}

// The same for window's shift, which drops its input's elements, errors
// included, after making a window and before returning it: the call
// returns that window once cancelled, and the next call is Cancelled.
TEST(IteratorCancellationTest, CancellingEndsAWindowsLongShift) {
  const auto fails = [](Element e) -> Result<Element> { return DataLossError("element is corrupt"); };
  for (const Pipeline& pipeline : {Pipeline::Counter().Window({.size = 1, .shift = int64_t{1} << 62}),
                                   Pipeline::Counter().Map(fails).Window({.size = 1, .shift = int64_t{1} << 62})}) {
    IteratorContext ctx;
    std::unique_ptr<Iterator> it = testing::Build(pipeline)->MakeIterator(ctx);
    std::thread canceller([cancellation = ctx.cancellation] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      cancellation->Cancel();
    });
    const Result<std::optional<Element>> window = it->GetNext();
    canceller.join();
    EXPECT_TRUE(!window.ok() || window->has_value()) << "a window or its element's error";
    const Result<std::optional<Element>> next = it->GetNext();
    ASSERT_FALSE(next.ok());
    EXPECT_EQ(next.status().code(), StatusCode::kCancelled) << next.status();
  }
}

}  // namespace
}  // namespace sluice
