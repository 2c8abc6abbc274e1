#include "sluice/dataset/snapshot_dataset.h"

#include <gmock/gmock.h>

#include <atomic>
#include <filesystem>

#include "contract.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/snapshot_format.h"
#include "sluice/dataset/spec_fingerprint.h"
#include "sluice/tests/temp_dir.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

// range(n) through a map that counts its calls, snapshotted under `path`.
Pipeline CountedSnapshot(int64_t n, const std::string& path, std::atomic<int>* calls,
                         Compression compression = Compression::kNone) {
  return Pipeline::Range(n)
      .Map([calls](Element e) -> Result<Element> {
        ++*calls;
        return Element{Tensor::Scalar<int64_t>(e[0].scalar<int64_t>() * 10)};
      })
      .Snapshot({.path = path, .compression = compression, .fingerprint = "times-ten"});
}

std::vector<Element> TimesTen(int64_t n) {
  std::vector<Element> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(testing::Int(i * 10));
  return out;
}

// The subdirectories of `path`.
std::vector<std::string> Entries(const std::string& path) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(path, error)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(SnapshotDatasetTest, ALaterTraversalReadsTheSnapshotInsteadOfComputing) {
  testing::TempDir dir;
  std::atomic<int> calls{0};
  const DatasetPtr dataset = testing::Build(CountedSnapshot(6, dir.path(), &calls));
  testing::ExpectElementsEqual(testing::Collect(dataset), TimesTen(6));
  EXPECT_EQ(calls.load(), 6);
  // The same dataset, and one built anew as another process would.
  testing::ExpectProduces(dataset, TimesTen(6));
  testing::ExpectProduces(CountedSnapshot(6, dir.path(), &calls), TimesTen(6));
  EXPECT_EQ(calls.load(), 6);
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"times-ten"});
  EXPECT_EQ(Entries(dir.path() + "/times-ten").size(), 2u);  // the manifest and the run's directory
  EXPECT_EQ(testing::Ok(ReadManifest(dir.path() + "/times-ten")).num_elements(), 6);
}

// Without a given fingerprint the input's spec names the directory: a
// changed pipeline writes a snapshot of its own beside the old one.
TEST(SnapshotDatasetTest, EachPipelineHasADirectoryOfItsOwn) {
  testing::TempDir dir;
  auto scaled = [&](double scale) {
    return Pipeline::Range(5).Map(MakeScaleShiftFunction("", scale, 0)).Snapshot({.path = dir.path()});
  };
  const std::vector<Element> once = testing::Collect(scaled(2));
  testing::ExpectProduces(scaled(2), once);
  testing::Collect(scaled(3));
  const std::string fingerprint2 =
      SpecFingerprint(testing::Ok(DatasetToSpec(*testing::Build(Pipeline::Range(5).Map(MakeScaleShiftFunction("", 2, 0))))));
  const std::vector<std::string> entries = Entries(dir.path());
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_TRUE(std::find(entries.begin(), entries.end(), fingerprint2) != entries.end());
  EXPECT_THAT(DescribeGraph(*testing::Build(scaled(2))),
              HasSubstr(StrCat("snapshot(path=", dir.path(), ", compression=NONE, fingerprint=", fingerprint2, ")")));
}

// A traversal stopped before the end leaves no manifest (its run is
// removed), and the next one computes the input again.
TEST(SnapshotDatasetTest, AStoppedRunIsNeverReadAndTheNextRecomputes) {
  testing::TempDir dir;
  std::atomic<int> calls{0};
  const DatasetPtr dataset = testing::Build(CountedSnapshot(6, dir.path(), &calls));
  EXPECT_EQ(testing::Collect(dataset, 3).size(), 3u);
  EXPECT_FALSE(std::filesystem::exists(ManifestPath(dir.path() + "/times-ten")));
  EXPECT_TRUE(Entries(dir.path() + "/times-ten").empty());
  testing::ExpectElementsEqual(testing::Collect(dataset), TimesTen(6));
  EXPECT_EQ(calls.load(), 3 + 6);
  testing::ExpectProduces(dataset, TimesTen(6));
  EXPECT_EQ(calls.load(), 9);
}

// Errors are passed on, not written.
TEST(SnapshotDatasetTest, InputErrorsArePassedOnAndNotWritten) {
  testing::TempDir dir;
  const DatasetPtr dataset =
      testing::Build(testing::FailingRange(5, {2}).Snapshot({.path = dir.path(), .fingerprint = "failing"}));
  const std::vector<Result<Element>> first = testing::CollectResults(dataset);
  ASSERT_EQ(first.size(), 5u);
  testing::ExpectFailedElement(first[2], 2);
  EXPECT_EQ(testing::Values(testing::Collect(dataset)), (std::vector<int64_t>{0, 1, 3, 4}));
}

// A saved iterator that is writing keeps its files; one restored from it
// (in another process as well) writes on after them and makes the snapshot.
TEST(SnapshotDatasetTest, AWritingIteratorResumes) {
  for (const Compression compression : {Compression::kNone, Compression::kGzip}) {
    testing::TempDir fresh;
    std::atomic<int> calls{0};
    auto it = testing::Build(CountedSnapshot(7, fresh.path(), &calls, compression))->MakeIterator();
    std::vector<Element> seen;
    for (int i = 0; i < 3; ++i) seen.push_back(*testing::Ok(it->GetNext()));
    const std::string state = testing::Ok(SaveIteratorState(*it));
    // The saved iterator goes on, writing segments after the save.
    (void)it->GetNext();
    it.reset();
    EXPECT_FALSE(std::filesystem::exists(ManifestPath(fresh.path() + "/times-ten")));

    auto resumed = testing::Build(CountedSnapshot(7, fresh.path(), &calls, compression))->MakeIterator();
    ASSERT_TRUE(RestoreIteratorState(*resumed, state).ok());
    for (Element& e : testing::Ok(testing::CollectAll(*resumed))) seen.push_back(std::move(e));
    testing::ExpectElementsEqual(seen, TimesTen(7));
    EXPECT_EQ(calls.load(), 3 + 1 + 4);
    const snapshot::Manifest manifest = testing::Ok(ReadManifest(fresh.path() + "/times-ten"));
    EXPECT_EQ(manifest.shards(0).segments_size(), 2);
    testing::ExpectProduces(CountedSnapshot(7, fresh.path(), &calls, compression), TimesTen(7));
    EXPECT_EQ(calls.load(), 8);
  }
}

TEST(SnapshotDatasetTest, AReadingIteratorResumesEverywhere) {
  testing::TempDir dir;
  std::atomic<int> calls{0};
  testing::Collect(CountedSnapshot(6, dir.path(), &calls, Compression::kGzip));
  testing::ExpectResumesEverywhere([&] { return CountedSnapshot(6, dir.path(), &calls, Compression::kGzip); });
  testing::ExpectResumesEverywhere([&] { return CountedSnapshot(6, dir.path(), &calls).Batch({.batch_size = 4}); });
  EXPECT_EQ(calls.load(), 6);
}

// The resume-everywhere battery on a directory that starts empty: the
// first traversal writes, the others read.
TEST(SnapshotDatasetTest, ResumesMidStreamFromEmpty) {
  testing::TempDir dir;
  testing::ExpectResumesEverywhere([&] { return Pipeline::Range(5).Snapshot({.path = dir.path()}); });
}

// A directory holding another pipeline's snapshot under the same
// fingerprint is the first element's error; the traversal then computes.
TEST(SnapshotDatasetTest, AnotherPipelinesSnapshotIsNotRead) {
  testing::TempDir dir;
  testing::Collect(Pipeline::Range(3).Snapshot({.path = dir.path(), .fingerprint = "shared"}));
  const std::vector<Result<Element>> results = testing::CollectResults(
      testing::Build(Pipeline::Range(4).Snapshot({.path = dir.path(), .fingerprint = "shared"})));
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(results[0].status().message(),
              HasSubstr(StrCat("snapshot: ", dir.path(), "/shared holds the snapshot of another pipeline")));
  EXPECT_TRUE(results[4]->Equals(testing::Int(3)));
}

TEST(SnapshotDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Range(3).Snapshot({}), StatusCode::kInvalidArgument, "snapshot: path is empty");
  testing::ExpectError(Pipeline::Range(3).Snapshot({.path = "/tmp", .fingerprint = "../up"}),
                       StatusCode::kInvalidArgument,
                       "snapshot: fingerprint '../up' must be 1 to 128 letters, digits, '-', '_' or '.' (a directory "
                       "name)");
  testing::ExpectError(testing::FailingRange(3, {}).Snapshot({.path = "/tmp"}), StatusCode::kInvalidArgument,
                       "snapshot: the input has no spec to fingerprint (");
  EXPECT_EQ(MakeSnapshotDataset(nullptr, {.path = "/tmp"}).status().code(), StatusCode::kInvalidArgument);
}

TEST(SnapshotDatasetTest, SpecRoundTrip) {
  testing::TempDir dir;
  const DatasetPtr built =
      testing::Build(Pipeline::Range(4).Snapshot({.path = dir.path(), .compression = Compression::kZlib}));
  const spec::Pipeline written = testing::Ok(DatasetToSpec(*built));
  EXPECT_THAT(SpecToText(written), HasSubstr(StrCat("snapshot {\n    path: \"", dir.path(),
                                                    "\"\n    compression: \"ZLIB\"\n")));
  const DatasetPtr rebuilt = testing::Ok(DatasetFromSpec(testing::Ok(ParseSpecText(SpecToText(written)))));
  testing::ExpectProduces(rebuilt, testing::IntRange(0, 4));
  testing::ExpectProduces(built, testing::IntRange(0, 4));
  EXPECT_EQ(Entries(dir.path()).size(), 1u);  // both read the one snapshot
}

TEST(SnapshotDatasetTest, EarlyDestruction) {
  testing::TempDir dir;
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(40).Snapshot({.path = dir.path()}).Prefetch(3)),
                                         4);
  testing::Collect(Pipeline::Range(40).Snapshot({.path = dir.path()}));
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(40).Snapshot({.path = dir.path()}).Prefetch(3)),
                                         4);
}

}  // namespace
}  // namespace sluice
