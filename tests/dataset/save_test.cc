#include "sluice/dataset/save.h"

#include <gmock/gmock.h>

#include <filesystem>

#include "contract.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/expression_functions.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/snapshot_format.h"
#include "sluice/dataset/spec_fingerprint.h"
#include "sluice/tests/temp_dir.h"

namespace sluice {
namespace {

// The manifest records what load needs and who made the snapshot.
TEST(SaveTest, TheManifestRecordsSpecCountShardsAndFingerprint) {
  testing::TempDir dir;
  const Pipeline pipeline = Pipeline::Range(10).Batch({.batch_size = 4});
  EXPECT_EQ(testing::Ok(pipeline.Save(dir.path(), {.compression = Compression::kGzip, .shard_count = 3})), 3);
  const snapshot::Manifest manifest = testing::Ok(ReadManifest(dir.path()));
  EXPECT_EQ(manifest.num_elements(), 3);
  EXPECT_EQ(manifest.compression(), "GZIP");
  ASSERT_EQ(manifest.shards_size(), 3);
  EXPECT_EQ(manifest.shards(2).segments(0).file(), "shard-00002-00000");
  EXPECT_EQ(manifest.shards(2).segments(0).num_elements(), 1);
  EXPECT_EQ(testing::Ok(ElementSpecFromProto(manifest.element_spec(), "element_spec")).ToString(), "(int64[?])");
  const spec::Pipeline spec = testing::Ok(DatasetToSpec(*testing::Build(pipeline)));
  EXPECT_EQ(manifest.fingerprint(), SpecFingerprint(spec));
  EXPECT_EQ(manifest.pipeline_spec(), DeterministicSpecBytes(spec));
}

TEST(SaveTest, AnInputWithoutASpecIsSavedWithoutAFingerprint) {
  testing::TempDir dir;
  EXPECT_EQ(testing::Ok(testing::FailingRange(3, {}).Save(dir.path())), 3);
  EXPECT_EQ(testing::Ok(ReadManifest(dir.path())).fingerprint(), "");
}

// Files an earlier save with more shards wrote are removed.
TEST(SaveTest, ASmallerSaveOverALargerOneLeavesOnlyItsFiles) {
  testing::TempDir dir;
  testing::Ok(Pipeline::Range(10).Save(dir.path(), {.shard_count = 4}));
  testing::Ok(Pipeline::Range(3).Save(dir.path(), {.shard_count = 1}));
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) files.push_back(entry.path().filename());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"manifest", "shard-00000-00000"}));
  testing::ExpectProduces(Pipeline::Load({.path = dir.path()}), testing::IntRange(0, 3));
}

TEST(SaveTest, InvalidArguments) {
  testing::TempDir dir;
  auto error = [&](const Pipeline& pipeline, SaveOptions options) { return pipeline.Save(dir.path(), options).status(); };
  testing::ExpectStatus(error(Pipeline::Counter(), {}), StatusCode::kInvalidArgument,
                        "save: the input is infinite; save writes a dataset to its end");
  testing::ExpectStatus(error(Pipeline::Range(3), {.shard_count = 0}), StatusCode::kInvalidArgument,
                        StrCat("save to ", dir.path(), ": shard_count must be 1 to 4096, got 0"));
  EXPECT_EQ(Pipeline::Range(3).Save("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Pipeline::Range(3).Batch({.batch_size = 0}).Save(dir.path()).status().code(),
            StatusCode::kInvalidArgument);
}

const ElementSpec kInt64Scalar{{"", DType::kInt64, Shape{}}};

// A shard_func of an int64 scalar element.
ElementFunctionPtr ShardOf(std::function<int64_t(int64_t)> fn) {
  return MakeLambdaFunction(
      [fn](Element e) -> Result<Element> { return Element{Tensor::Scalar<int64_t>(fn(e[0].scalar<int64_t>()))}; },
      {.output_spec = kInt64Scalar});
}

// Elements go to the shard shard_func gives; load reads shard 0, then 1, ...
// each in the order written.
TEST(SaveTest, AShardFuncPutsEachElementInItsShardAndLoadReadsShardByShard) {
  testing::TempDir dir;
  const Pipeline input = Pipeline::FromSlices({{"x", testing::Vec({0, 1, 2, 3, 4, 5, 6, 7, 8, 9})}});
  const SaveOptions options{.shard_func = testing::Ok(MakeExpressionFunction({{"shard", "x % 3"}}))};
  EXPECT_EQ(testing::Ok(input.Save(dir.path(), options)), 10);
  const snapshot::Manifest manifest = testing::Ok(ReadManifest(dir.path()));
  EXPECT_EQ(manifest.format_version(), 2u);
  EXPECT_EQ(manifest.order(), snapshot::Manifest::BY_SHARD);
  ASSERT_EQ(manifest.shards_size(), 3);
  EXPECT_EQ(manifest.shards(0).segments(0).num_elements(), 4);
  EXPECT_EQ(manifest.shards(1).segments(0).num_elements(), 3);
  EXPECT_EQ(manifest.shards(2).segments(0).file(), "shard-00002-00000");
  testing::ExpectProduces(Pipeline::Load({.path = dir.path()}), testing::Ints({0, 3, 6, 9, 1, 4, 7, 2, 5, 8}));
  testing::ExpectResumesEverywhere([&] { return Pipeline::Load({.path = dir.path()}); });
  testing::ExpectProduces(Pipeline::Load({.path = dir.path()}).Batch({.batch_size = 4}),
                          testing::VecElements({{0, 3, 6, 9}, {1, 4, 7, 2}, {5, 8}}));
}

// Shards no element went to are empty: listed, with no segment.
TEST(SaveTest, AShardFuncMayLeaveShardsEmpty) {
  testing::TempDir dir;
  EXPECT_EQ(testing::Ok(Pipeline::Range(6).Save(dir.path(), {.shard_func = ShardOf([](int64_t x) {
                                                                 return x % 2 == 0 ? 3 : 0;
                                                               })})),
            6);
  const snapshot::Manifest manifest = testing::Ok(ReadManifest(dir.path()));
  ASSERT_EQ(manifest.shards_size(), 4);
  EXPECT_EQ(manifest.shards(1).segments_size(), 0);
  EXPECT_EQ(manifest.shards(2).segments_size(), 0);
  testing::ExpectProduces(Pipeline::Load({.path = dir.path()}), testing::Ints({1, 3, 5, 0, 2, 4}));
  testing::ExpectResumesEverywhere([&] { return Pipeline::Load({.path = dir.path()}); });

  testing::TempDir empty;
  EXPECT_EQ(testing::Ok(Pipeline::Range(0).Save(empty.path(), {.shard_func = ShardOf([](int64_t) { return 5; })})), 0);
  EXPECT_EQ(testing::Ok(ReadManifest(empty.path())).shards_size(), 1);
  testing::ExpectProduces(Pipeline::Load({.path = empty.path()}), {});
}

// A shard index out of range ends the save with that element's error, and
// leaves no manifest.
TEST(SaveTest, ABadShardIndexIsThatElementsError) {
  testing::TempDir dir;
  const Pipeline input = Pipeline::Range(5);
  testing::ExpectStatus(input.Save(dir.path(), {.shard_func = ShardOf([](int64_t x) { return 2 - x; })}).status(),
                        StatusCode::kInvalidArgument,
                        StrCat("save to ", dir.path(), ": element 3: shard index -1 is not 0 to 4095"));
  EXPECT_FALSE(std::filesystem::exists(ManifestPath(dir.path())));
  testing::ExpectStatus(
      input.Save(dir.path(), {.shard_func = ShardOf([](int64_t x) { return x * kMaxSnapshotShards; })}).status(),
      StatusCode::kInvalidArgument, StrCat("save to ", dir.path(), ": element 1: shard index 4096 is not 0 to 4095"));
  EXPECT_FALSE(std::filesystem::exists(ManifestPath(dir.path())));
}

TEST(SaveTest, AShardFuncIsCheckedWhenBound) {
  testing::TempDir dir;
  testing::ExpectStatus(
      Pipeline::Range(3).Save(dir.path(), {.shard_func = testing::Ok(MakeCastFunction("", DType::kInt32))}).status(),
      StatusCode::kInvalidArgument, "save: shard_func must return one int64 scalar; cast(int32) returns (int32[])");
  testing::ExpectStatus(
      Pipeline::Range(3).Save(dir.path(), {.shard_count = 2, .shard_func = ShardOf([](int64_t) { return 0; })}).status(),
      StatusCode::kInvalidArgument, "save: give shard_func or shard_count, not both (shard_count 2)");
  const Status unbound =
      Pipeline::Range(3).Save(dir.path(), {.shard_func = testing::Ok(MakeExpressionFunction({{"s", "y % 2"}}))}).status();
  EXPECT_EQ(unbound.code(), StatusCode::kInvalidArgument) << unbound;
  EXPECT_THAT(unbound.message(), ::testing::StartsWith("save: shard_func: ")) << unbound;
}

// Manifests of format version 1 (round robin, no order) stay readable;
// a version 1 manifest cannot say BY_SHARD, and later versions are refused.
TEST(SaveTest, OlderManifestsAreReadAndNewerOnesRefused) {
  testing::TempDir dir;
  testing::Ok(Pipeline::Range(5).Save(dir.path(), {.shard_count = 2}));
  snapshot::Manifest manifest = testing::Ok(ReadManifest(dir.path()));
  EXPECT_EQ(manifest.format_version(), kSnapshotFormatVersion);
  manifest.set_format_version(1);
  ASSERT_TRUE(WriteManifest(dir.path(), manifest).ok());
  testing::ExpectProduces(Pipeline::Load({.path = dir.path()}), testing::IntRange(0, 5));

  manifest.set_order(snapshot::Manifest::BY_SHARD);
  ASSERT_TRUE(WriteManifest(dir.path(), manifest).ok());
  testing::ExpectError(Pipeline::Load({.path = dir.path()}), StatusCode::kDataLoss,
                       "order 1 is not an order of format version 1");
  manifest.set_format_version(3);
  ASSERT_TRUE(WriteManifest(dir.path(), manifest).ok());
  testing::ExpectError(Pipeline::Load({.path = dir.path()}), StatusCode::kUnimplemented,
                       "format version 3; this build reads versions 1 to 2");
  // In BY_SHARD order the shards' counts need only add up.
  manifest.set_format_version(2);
  ASSERT_TRUE(WriteManifest(dir.path(), manifest).ok());
  testing::ExpectProduces(Pipeline::Load({.path = dir.path()}), testing::Ints({0, 2, 4, 1, 3}));
  manifest.set_num_elements(6);
  ASSERT_TRUE(WriteManifest(dir.path(), manifest).ok());
  testing::ExpectError(Pipeline::Load({.path = dir.path()}), StatusCode::kDataLoss,
                       "its shards hold 5 elements, not the 6 of the snapshot");
}

}  // namespace
}  // namespace sluice
