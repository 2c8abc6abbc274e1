#include "sluice/dataset/save.h"

#include <gmock/gmock.h>

#include <filesystem>

#include "contract.h"
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

}  // namespace
}  // namespace sluice
