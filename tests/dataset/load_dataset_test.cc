#include "sluice/dataset/load_dataset.h"

#include <gmock/gmock.h>

#include <filesystem>
#include <fstream>

#include "contract.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/snapshot_format.h"
#include "sluice/tests/temp_dir.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

// range(n) as (x: int64, words: a string vector of x + 1 copies of "w<x>",
// ragged: float32 [x]): strings and ragged components beside a scalar.
Pipeline Mixed(int64_t n) {
  return Pipeline::Range(n).Map(
      [](Element e) -> Result<Element> {
        const int64_t x = e[0].scalar<int64_t>();
        std::vector<std::string> words(x + 1, StrCat("w", x));
        std::vector<float> ragged(x, 0.5f * static_cast<float>(x));
        return Element{e[0], Tensor::FromVector(words), Tensor::FromVector(ragged)};
      },
      {.output_spec = ElementSpec{{"x", DType::kInt64, PartialShape{}},
                                  {"words", DType::kString, PartialShape{-1}},
                                  {"ragged", DType::kFloat32, PartialShape{-1}}}});
}

// Saves `pipeline` into `path` and returns what it held.
std::vector<Element> Saved(const Pipeline& pipeline, const std::string& path, SaveOptions options = {}) {
  EXPECT_EQ(testing::Ok(pipeline.Save(path, options)), static_cast<int64_t>(testing::Collect(pipeline).size()));
  return testing::Collect(pipeline);
}

// The path of the only segment of a one-shard save.
std::string OnlySegment(const std::string& path) { return StrCat(path, "/shard-00000-00000"); }

void Overwrite(const std::string& path, uint64_t offset, char byte) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(static_cast<std::streamoff>(offset));
  file.put(byte);
}

TEST(LoadDatasetTest, ReadsWhatSaveWroteInOrder) {
  for (const Compression compression : {Compression::kNone, Compression::kGzip, Compression::kZlib}) {
    for (const int64_t shards : {1, 3, 16}) {
      testing::TempDir dir;
      const std::vector<Element> expected =
          Saved(Mixed(10), dir.path(), {.compression = compression, .shard_count = shards});
      const DatasetPtr loaded = testing::Build(Pipeline::Load({.path = dir.path()}));
      EXPECT_EQ(loaded->element_spec(), testing::Build(Mixed(1))->element_spec());
      EXPECT_EQ(loaded->cardinality(), 10);
      testing::ExpectProduces(loaded, expected);
      testing::ExpectRunsMatchElements(loaded, 4);
    }
  }
}

// (features: float32[3], name: string) for i in [0, n): fixed shapes, so
// records are read ahead in runs.
Pipeline Fixed(int64_t n) {
  return Pipeline::Range(n).Map(
      [](Element e) -> Result<Element> {
        const float x = static_cast<float>(e[0].scalar<int64_t>());
        return Element{Tensor::FromVector<float>({x, x + 0.5f, -x}), Tensor::Scalar(StrCat("name ", x))};
      },
      {.output_spec = ElementSpec{{"features", DType::kFloat32, PartialShape{3}},
                                  {"name", DType::kString, PartialShape{}}}});
}

TEST(LoadDatasetTest, FixedShapesAreReadAheadInRuns) {
  testing::TempDir dir;
  const std::vector<Element> expected = Saved(Fixed(150), dir.path(), {.shard_count = 3});
  const DatasetPtr loaded = testing::Build(Pipeline::Load({.path = dir.path()}));
  testing::ExpectProduces(loaded, expected);
  testing::ExpectRunsMatchElements(loaded, 1);
  testing::ExpectRunsMatchElements(loaded, 7);
  testing::ExpectRunsMatchElements(loaded, 200);
  testing::ExpectProduces(Pipeline::Load({.path = dir.path()}).Batch({.batch_size = 64}),
                          testing::Collect(Fixed(150).Batch({.batch_size = 64})));
  testing::ExpectResumesEverywhere([&] { return Pipeline::Load({.path = dir.path()}); });
}

// An error met while reading ahead comes after the elements before it, and
// a restored iterator holds it too.
TEST(LoadDatasetTest, AnErrorReadAheadComesInItsPlace) {
  testing::TempDir dir;
  Saved(Pipeline::Range(100), dir.path());
  Overwrite(OnlySegment(dir.path()), 70 * 24 + 12 + 3, '\x7f');  // record 70's data
  const std::vector<Result<Element>> results =
      testing::CollectResults(testing::Build(Pipeline::Load({.path = dir.path()})));
  ASSERT_EQ(results.size(), 100u);
  for (int64_t i = 0; i < 100; ++i) {
    if (i == 70) {
      EXPECT_EQ(results[i].status().code(), StatusCode::kDataLoss) << results[i].status();
      continue;
    }
    ASSERT_TRUE(results[i].ok()) << i << ": " << results[i].status();
    EXPECT_TRUE(results[i]->Equals(testing::Int(i)));
  }
  testing::ExpectResumesEverywhere([&] { return Pipeline::Load({.path = dir.path()}); });
}

TEST(LoadDatasetTest, AnEmptyDatasetRoundTrips) {
  testing::TempDir dir;
  Saved(Pipeline::Range(0), dir.path(), {.shard_count = 2});
  testing::ExpectProduces(Pipeline::Load({.path = dir.path()}), {});
}

TEST(LoadDatasetTest, ResumesMidStream) {
  testing::TempDir plain;
  testing::TempDir gzip;
  Saved(Mixed(7), plain.path(), {.shard_count = 3});
  Saved(Mixed(7), gzip.path(), {.compression = Compression::kGzip, .shard_count = 2});
  testing::ExpectResumesEverywhere([&] { return Pipeline::Load({.path = plain.path()}); });
  testing::ExpectResumesEverywhere([&] { return Pipeline::Load({.path = gzip.path()}).Batch({.batch_size = 2}); });
}

TEST(LoadDatasetTest, SpecRoundTripAndDescribe) {
  testing::TempDir dir;
  const std::vector<Element> expected = Saved(Pipeline::Range(5), dir.path());
  const DatasetPtr loaded = testing::Build(
      Pipeline::Load({.path = dir.path(), .element_spec = ElementSpec{{"", DType::kInt64, PartialShape{}}}}));
  const spec::Pipeline written = testing::Ok(DatasetToSpec(*loaded));
  EXPECT_EQ(SpecToText(written), StrCat("ops {\n  load {\n    path: \"", dir.path(),
                                        "\"\n    element_spec {\n      dtype: \"int64\"\n    }\n"
                                        "    max_record_bytes: 268435456\n  }\n}\n"));
  testing::ExpectProduces(testing::Ok(DatasetFromSpec(written)), expected);
  EXPECT_THAT(DescribeGraph(*loaded), HasSubstr(StrCat("load(path=", dir.path(), ", elements=5, shards=1")));
}

TEST(LoadDatasetTest, InvalidArguments) {
  testing::TempDir dir;
  Saved(Pipeline::Range(3), dir.path());
  testing::ExpectError(Pipeline::Load({}), StatusCode::kInvalidArgument, "load: path is empty");
  testing::ExpectError(Pipeline::Load({.path = dir.path(), .max_record_bytes = 0}), StatusCode::kInvalidArgument,
                       "load: max_record_bytes must be 1 to 17179869184 bytes, got 0");
  testing::ExpectError(
      Pipeline::Load({.path = dir.path(), .element_spec = ElementSpec{{"", DType::kInt32, PartialShape{}}}}),
      StatusCode::kInvalidArgument, "load: element_spec (int32[]) is not the snapshot's, (int64[])");
}

// A directory without a manifest is never read: nothing there, a save that
// failed mid-way, a snapshot run that was stopped.
TEST(LoadDatasetTest, ADirectoryWithoutAManifestIsNotFound) {
  testing::TempDir dir;
  testing::ExpectError(Pipeline::Load({.path = dir.path()}), StatusCode::kNotFound,
                       StrCat("load: snapshot ", dir.path(), " has no manifest (", dir.path(),
                              "/manifest): it is not a snapshot, or the run writing it stopped before the end"));
  const Result<int64_t> failed = testing::FailingRange(10, {6}).Save(dir.path());
  EXPECT_EQ(failed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(failed.status().message(), HasSubstr("element 6: map: element 6 failed"));
  EXPECT_TRUE(std::filesystem::exists(OnlySegment(dir.path())));
  testing::ExpectError(Pipeline::Load({.path = dir.path()}), StatusCode::kNotFound, "has no manifest");
  // A save over a finished snapshot removes its manifest first.
  Saved(Pipeline::Range(3), dir.path());
  EXPECT_FALSE(testing::FailingRange(10, {1}).Save(dir.path()).ok());
  testing::ExpectError(Pipeline::Load({.path = dir.path()}), StatusCode::kNotFound, "has no manifest");
}

TEST(LoadDatasetTest, ATruncatedSegmentIsDataLossNamingTheFileAndOffset) {
  testing::TempDir dir;
  Saved(Pipeline::Range(4), dir.path());
  const std::string segment = OnlySegment(dir.path());
  const auto size = std::filesystem::file_size(segment);  // 4 records of 16 + 8 bytes
  ASSERT_EQ(size, 96u);
  std::filesystem::resize_file(segment, 90);
  auto it = testing::Build(Pipeline::Load({.path = dir.path()}))->MakeIterator();
  testing::ExpectStatus(it->GetNext().status(), StatusCode::kDataLoss,
                        StrCat("snapshot ", dir.path(), ": segment ", segment,
                               " has 90 bytes, the manifest says 96 (truncated at byte offset 90)"));
}

// Each element of a damaged segment is its error; the other shards' read on.
TEST(LoadDatasetTest, EveryElementOfABrokenSegmentFails) {
  testing::TempDir dir;
  Saved(Pipeline::Range(6), dir.path(), {.shard_count = 2});
  std::filesystem::resize_file(StrCat(dir.path(), "/shard-00001-00000"), 30);
  const std::vector<Result<Element>> results =
      testing::CollectResults(testing::Build(Pipeline::Load({.path = dir.path()})));
  ASSERT_EQ(results.size(), 6u);
  for (int64_t i = 0; i < 6; ++i) {
    if (i % 2 == 0) {
      EXPECT_TRUE(results[i].ok() && results[i]->Equals(testing::Int(i))) << i;
    } else {
      EXPECT_EQ(results[i].status().code(), StatusCode::kDataLoss) << i;
      EXPECT_THAT(results[i].status().message(), HasSubstr("(truncated at byte offset 30)")) << i;
    }
  }
  testing::ExpectResumesEverywhere([&] { return Pipeline::Load({.path = dir.path()}); });
  std::filesystem::remove(StrCat(dir.path(), "/shard-00001-00000"));
  const std::vector<Result<Element>> missing =
      testing::CollectResults(testing::Build(Pipeline::Load({.path = dir.path()})));
  ASSERT_EQ(missing.size(), 6u);
  EXPECT_EQ(missing[5].status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing[5].status().message(), HasSubstr("shard-00001-00000 is missing"));
}

TEST(LoadDatasetTest, ACorruptRecordIsThatElementsErrorAndReadingGoesOn) {
  testing::TempDir dir;
  Saved(Pipeline::Range(4), dir.path());
  Overwrite(OnlySegment(dir.path()), 24 + 12 + 3, '\x7f');  // in record 1's data
  const std::vector<Result<Element>> results =
      testing::CollectResults(testing::Build(Pipeline::Load({.path = dir.path()})));
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0]->DebugString(), testing::Int(0).DebugString());
  EXPECT_EQ(results[1].status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(results[1].status().message(),
              HasSubstr(StrCat(OnlySegment(dir.path()), ": record 1 at byte offset 24: data CRC mismatch")));
  EXPECT_TRUE(results[2]->Equals(testing::Int(2)));
  EXPECT_TRUE(results[3]->Equals(testing::Int(3)));
}

TEST(LoadDatasetTest, ADamagedManifestIsDataLossNamingIt) {
  testing::TempDir dir;
  Saved(Pipeline::Range(4), dir.path());
  Overwrite(ManifestPath(dir.path()), 14, '\x7f');
  testing::ExpectError(Pipeline::Load({.path = dir.path()}), StatusCode::kDataLoss,
                       StrCat(ManifestPath(dir.path()), ": record 0 at byte offset 0"));
}

// A manifest is untrusted: counts that don't add up, files outside the
// directory, a record that isn't an element of the spec.
TEST(LoadDatasetTest, AnInconsistentManifestIsRefused) {
  testing::TempDir dir;
  Saved(Pipeline::Range(4), dir.path(), {.shard_count = 2});
  const snapshot::Manifest good = testing::Ok(ReadManifest(dir.path()));

  snapshot::Manifest counts = good;
  counts.set_num_elements(5);
  ASSERT_TRUE(WriteManifest(dir.path(), counts).ok());
  testing::ExpectError(Pipeline::Load({.path = dir.path()}), StatusCode::kDataLoss,
                       StrCat("load: snapshot manifest ", ManifestPath(dir.path()),
                              ": shard 0 holds 2 elements; 3 of the 5 are its round-robin share"));

  snapshot::Manifest outside = good;
  outside.mutable_shards(1)->mutable_segments(0)->set_file("../elsewhere");
  ASSERT_TRUE(WriteManifest(dir.path(), outside).ok());
  testing::ExpectError(Pipeline::Load({.path = dir.path()}), StatusCode::kDataLoss,
                       "shard 1 names the file '../elsewhere', not a relative path inside the snapshot");

  snapshot::Manifest respec = good;
  respec.mutable_element_spec(0)->set_dtype("int32");
  ASSERT_TRUE(WriteManifest(dir.path(), respec).ok());
  auto it = testing::Build(Pipeline::Load({.path = dir.path()}))->MakeIterator();
  const Status status = it->GetNext().status();
  EXPECT_EQ(status.code(), StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr("shard-00000-00000: record 0 at byte offset 0: the record has 4 bytes after its last component (of 8)"))
      << status;
}

TEST(LoadDatasetTest, ElementsAreChargedToTheRamBudget) {
  testing::TempDir dir;
  Saved(Pipeline::FromTensors({{"", Tensor::FromVector<double>(std::vector<double>(10000, 2.0))}}), dir.path());
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 16 << 10});
  auto it = testing::Build(Pipeline::Load({.path = dir.path()}))->MakeIterator(ctx);
  const Status status = it->GetNext().status();
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted) << status;
}

TEST(LoadDatasetTest, EarlyDestruction) {
  testing::TempDir dir;
  Saved(Pipeline::Range(50), dir.path(), {.shard_count = 4});
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Load({.path = dir.path()}).Prefetch(4)), 5);
}

}  // namespace
}  // namespace sluice
