// Planted bottlenecks, one per verdict rule (dataset/verdict_rules.h): each
// test profiles a pipeline with the bottleneck, checks the verdict, applies
// its remedy, and checks the gain it measures (median of repeated
// unprofiled traversals) against the verdict's estimate, within bounds a
// loaded machine can't break: costs are planted with sleeps where the
// remedy overlaps them, and CPU-bound work is timed in thread CPU time.
#include "sluice/dataset/verdict_rules.h"

#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>

#include "sluice/dataset/batch_dataset.h"
#include "sluice/dataset/parse_example.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/prefetch_dataset.h"
#include "sluice/tests/dataset/contract.h"
#include "sluice/tests/dataset/planted_stages.h"
#include "sluice/tfrecord/example.pb.h"

namespace sluice {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using testing::ProfileAll;
using testing::SlowSourceDataset;
using testing::Spin;

double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The median over `repeats` unprofiled traversals of `dataset` of the time
// `clock` measures, `consumer_work` asleep after each element.
double MedianTraversalSeconds(const DatasetPtr& dataset, const std::function<double()>& clock,
                              std::chrono::nanoseconds consumer_work = {}, int repeats = 3) {
  std::vector<double> seconds;
  for (int r = 0; r < repeats; ++r) {
    auto it = dataset->MakeIterator(IteratorContext());
    const double start = clock();
    while (true) {
      auto next = it->GetNext();
      EXPECT_TRUE(next.ok()) << next.status();
      if (!next.ok() || !next->has_value()) break;
      if (consumer_work.count() > 0) std::this_thread::sleep_for(consumer_work);
    }
    seconds.push_back(clock() - start);
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

// The gain the remedy measured (the time it saved, of the time before) is
// the estimate's, within half of it either way or 0.2, whichever is wider.
void ExpectGainNearEstimate(double before_s, double after_s, const Verdict& verdict) {
  const double measured = 1.0 - after_s / before_s;
  const double tolerance = std::max(0.2, 0.5 * verdict.estimated_gain);
  EXPECT_NEAR(measured, verdict.estimated_gain, tolerance)
      << "before " << before_s << " s, after " << after_s << " s; " << verdict.reason;
  EXPECT_GT(measured, 0.05) << "the remedy must save time";
}

// Rule A with an autotuned buffer: a bursty producer (every 10th element
// takes 10 ms) fills an autotuned prefetch that its consumer still waits
// on. The verdict says what the tuner chose instead of advising a buffer,
// and names the producer side (a sequential map that sleeps).
TEST(VerdictRulesTest, AutotunedBufferIsNeverAdvised) {
  DatasetPtr bursty = testing::Build(Pipeline::Range(150)
                                         .Map([](Element e) -> Result<Element> {
                                           if (e[0].scalar<int64_t>() % 10 == 0) {
                                             std::this_thread::sleep_for(milliseconds(10));
                                           }
                                           return e;
                                         })
                                         .Prefetch(kAutotune));
  const ProfileReport report = AnalyzeProfile(ProfileAll(bursty, microseconds(1500))->Snapshot());
  const Verdict& v = report.verdict;
  const TunableSnapshot* buffer = report.stages[0].node.FindTunable(TunableParameter::kBufferSize);
  ASSERT_NE(buffer, nullptr);
  EXPECT_TRUE(buffer->autotuned);
  EXPECT_NE(v.kind, BottleneckKind::kBufferTooSmall) << FormatProfileReport(report);
  EXPECT_EQ(v.remedy.find("buffer_size"), std::string::npos) << v.remedy;
  if (v.starved_async == 0 && report.stages[0].node.full_fraction >= kFullShare) {
    EXPECT_EQ(v.stage_name, "[1] map") << FormatProfileReport(report);
    EXPECT_NE(v.reason.find(StrCat("buffer_size is autotuned and the tuner chose ", buffer->value)),
              std::string::npos)
        << v.reason;
  }
}

// Rule A, then C: a map that waits 2 ms per element (a slow lookup) behind
// an autotuned prefetch whose consumer works 1.5 ms per element. The
// verdict names the map, not the buffer, and running it in parallel, as
// advised, saves what the consumer waited.
TEST(VerdictRulesTest, SlowProducerBehindAnAutotunedBufferIsParallelised) {
  const auto pipeline = [](int64_t parallel_calls) {
    return testing::Build(Pipeline::Range(150)
                              .Map([](Element e) -> Result<Element> {
                                std::this_thread::sleep_for(milliseconds(2));
                                return e;
                              }, {}, {.num_parallel_calls = parallel_calls})
                              .Prefetch(kAutotune));
  };
  const auto consumer_work = microseconds(1500);
  const ProfileReport report = AnalyzeProfile(ProfileAll(pipeline(0), consumer_work)->Snapshot());
  const Verdict& v = report.verdict;
  ASSERT_EQ(v.kind, BottleneckKind::kCpuBound) << FormatProfileReport(report);
  EXPECT_EQ(v.stage_name, "[1] map");
  EXPECT_EQ(v.remedy.find("buffer_size"), std::string::npos) << v.remedy;
  EXPECT_NE(v.remedy.find("num_parallel_calls = kAutotune, or > 1"), std::string::npos) << v.remedy;
  ExpectGainNearEstimate(MedianTraversalSeconds(pipeline(0), WallSeconds, consumer_work),
                         MedianTraversalSeconds(pipeline(4), WallSeconds, consumer_work), v);
}

// Rule C with an autotuned parallelism: the verdict reports the tuner's
// choice and never advises raising num_parallel_calls.
TEST(VerdictRulesTest, AutotunedParallelismIsNeverRaised) {
  DatasetPtr dataset = testing::Build(Pipeline::Range(200)
                                          .Map([](Element e) -> Result<Element> {
                                            Spin(microseconds(500));
                                            return e;
                                          }, {}, {.num_parallel_calls = kAutotune})
                                          .Batch({.batch_size = 4}));
  const ProfileReport report = AnalyzeProfile(ProfileAll(dataset)->Snapshot());
  const Verdict& v = report.verdict;
  ASSERT_EQ(v.kind, BottleneckKind::kCpuBound) << FormatProfileReport(report);
  EXPECT_EQ(v.stage_name, "[1] map");
  const TunableSnapshot* tuned = report.stages[1].node.FindTunable(TunableParameter::kNumParallelCalls);
  ASSERT_NE(tuned, nullptr);
  EXPECT_TRUE(tuned->autotuned);
  EXPECT_NE(v.reason.find(StrCat("num_parallel_calls is autotuned and the tuner chose ", tuned->value)),
            std::string::npos)
      << v.reason;
  EXPECT_EQ(v.remedy.find("num_parallel_calls"), std::string::npos) << v.remedy;
}

constexpr int kFeatureKeys = 8;

// N serialized Examples: f0..f7 (4 floats each) and label (int64).
Tensor SerializedExamples(int n) {
  std::vector<std::string> records;
  for (int i = 0; i < n; ++i) {
    tensorflow::Example example;
    auto& features = *example.mutable_features()->mutable_feature();
    for (int k = 0; k < kFeatureKeys; ++k) {
      for (int j = 0; j < 4; ++j) features[StrCat("f", k)].mutable_float_list()->add_value(0.5f * i + j - k);
    }
    features["label"].mutable_int64_list()->add_value(i % 2);
    records.push_back(example.SerializeAsString());
  }
  return Tensor::FromVector(records);
}

Result<ElementFunctionPtr> ParseFeatures() {
  std::vector<FeatureConfig> features;
  for (int k = 0; k < kFeatureKeys; ++k) {
    features.push_back({.key = StrCat("f", k), .dtype = DType::kFloat32, .shape = Shape{4}});
  }
  features.push_back({.key = "label", .dtype = DType::kInt64});
  return MakeParseExampleFunction("", std::move(features));
}

// Rule B: parse_example per element ahead of shuffle and batch, as in the
// demo, on records of nine features. Batching first and parsing the batch is the remedy; all of it runs
// on the consumer's thread, so its CPU time measures the gain.
TEST(VerdictRulesTest, PerElementParseAheadOfBatchIsBatchedFirst) {
  const Tensor records = SerializedExamples(20000);
  const Pipeline source = Pipeline::FromSlices({{"", records}});
  DatasetPtr per_element = testing::Build(
      source.Map(ParseFeatures()).Shuffle({.buffer_size = 1000, .seed = 7}).Batch({.batch_size = 32}));
  DatasetPtr batched = testing::Build(
      source.Shuffle({.buffer_size = 1000, .seed = 7}).Batch({.batch_size = 32}).Map(ParseFeatures()));
  const ProfileReport report = AnalyzeProfile(ProfileAll(per_element)->Snapshot());
  const Verdict& v = report.verdict;
  ASSERT_EQ(v.kind, BottleneckKind::kPerElementMap) << FormatProfileReport(report);
  EXPECT_EQ(v.stage_name, "[2] map");
  EXPECT_NE(v.reason.find("parse_example"), std::string::npos) << v.reason;
  EXPECT_NE(v.remedy.find("after [0] batch"), std::string::npos) << v.remedy;
  EXPECT_NE(v.remedy.find("[1] shuffle"), std::string::npos) << v.remedy;
  // Shuffle draws the same positions either way: the remedy changes no value.
  EXPECT_EQ(testing::Collect(per_element, 3)[2][kFeatureKeys].data<int64_t>()[5],
            testing::Collect(batched, 3)[2][kFeatureKeys].data<int64_t>()[5]);
  ExpectGainNearEstimate(MedianTraversalSeconds(per_element, ThreadCpuSeconds),
                         MedianTraversalSeconds(batched, ThreadCpuSeconds), v);
  // The remedied pipeline has nothing left for this rule.
  EXPECT_NE(AnalyzeProfile(ProfileAll(batched)->Snapshot()).verdict.kind, BottleneckKind::kPerElementMap);
}

// Rule C: a source that waits 200 us per element (a slow read) feeds a
// batch and a prefetch that take next to nothing: it is too slow for its
// consumer by far, and reading 16 shards in parallel is the remedy.
TEST(VerdictRulesTest, SlowSourceIsReadInParallel) {
  constexpr int64_t kElements = 480;
  const auto read = [](int64_t count) -> DatasetPtr {
    return std::make_shared<SlowSourceDataset>(count, microseconds(200), SlowSourceDataset::Cost::kSleep);
  };
  DatasetPtr slow = *MakePrefetchDataset(*MakeBatchDataset(read(kElements), {.batch_size = 4}), {.buffer_size = 2});
  const ProfileReport report = AnalyzeProfile(ProfileAll(slow)->Snapshot());
  const Verdict& v = report.verdict;
  ASSERT_EQ(v.kind, BottleneckKind::kSourceBound) << FormatProfileReport(report);
  EXPECT_EQ(v.stage_name, "[2] slow_source");
  EXPECT_NE(v.reason.find("too slow for its consumer"), std::string::npos) << v.reason;
  EXPECT_NE(v.remedy.find("cycle_length = 16 and num_parallel_calls = 16"), std::string::npos) << v.remedy;
  constexpr int64_t kShards = 16;
  DatasetPtr parallel = testing::Build(
      Pipeline::Range(kShards)
          .Interleave([read](const Element&) -> Result<DatasetPtr> { return read(kElements / kShards); },
                      read(1)->element_spec(), {.cycle_length = kShards, .num_parallel_calls = kShards})
          .Batch({.batch_size = 4})
          .Prefetch(2));
  ExpectGainNearEstimate(MedianTraversalSeconds(slow, WallSeconds), MedianTraversalSeconds(parallel, WallSeconds),
                         v);
}

}  // namespace
}  // namespace sluice
