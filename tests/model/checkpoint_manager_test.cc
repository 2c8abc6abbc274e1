#include "sluice/model/checkpoint_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sluice/tests/temp_dir.h"

namespace sluice {
namespace {

using ::sluice::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

CheckpointContents AtStep(int64_t step) {
  CheckpointContents contents;
  contents.scalars["step"] = step;
  contents.tensors["w"] = Tensor::FromVector<float>({static_cast<float>(step), 0.5f});
  contents.blobs["iterator"] = StrCat("position ", step);
  return contents;
}

std::vector<int64_t> Steps(const CheckpointManager& manager) {
  Result<std::vector<CheckpointInfo>> all = manager.All();
  EXPECT_TRUE(all.ok()) << all.status();
  std::vector<int64_t> steps;
  for (const CheckpointInfo& info : *all) steps.push_back(info.step);
  return steps;
}

TEST(CheckpointManagerTest, EmptyOrMissingDirectoryHasNoCheckpoints) {
  TempDir dir;
  CheckpointManager manager(dir.File("run"), 3);
  EXPECT_TRUE(Steps(manager).empty());
  Result<std::optional<CheckpointInfo>> latest = manager.Latest();
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_FALSE(latest->has_value());
  Result<CheckpointContents> restored = manager.RestoreLatest();
  EXPECT_EQ(restored.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(restored.status().message(), HasSubstr(dir.File("run")));
}

TEST(CheckpointManagerTest, SavesKeepsTheLastNAndRestoresTheNewest) {
  TempDir dir;
  CheckpointManager manager(dir.File("run"), /*max_to_keep=*/3);
  for (int64_t step : {100, 200, 300, 400, 1000}) {
    Result<std::string> path = manager.Save(step, AtStep(step));
    ASSERT_TRUE(path.ok()) << path.status();
    EXPECT_EQ(*path, dir.File(StrCat("run/ckpt-", step, ".sluice")));
  }
  // Ordered by step, not by name ("ckpt-1000" sorts before "ckpt-300").
  EXPECT_THAT(Steps(manager), ElementsAre(300, 400, 1000));
  EXPECT_FALSE(std::filesystem::exists(dir.File("run/ckpt-200.sluice")));
  Result<std::optional<CheckpointInfo>> latest = manager.Latest();
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ(**latest, (CheckpointInfo{1000, dir.File("run/ckpt-1000.sluice")}));
  Result<CheckpointContents> restored = manager.RestoreLatest();
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->scalars.at("step"), 1000);
  EXPECT_EQ(restored->blobs.at("iterator"), "position 1000");
}

TEST(CheckpointManagerTest, MaxToKeepZeroKeepsAll) {
  TempDir dir;
  CheckpointManager manager(dir.path(), 0);
  for (int64_t step = 0; step < 5; ++step) ASSERT_TRUE(manager.Save(step, AtStep(step)).ok());
  EXPECT_THAT(Steps(manager), ElementsAre(0, 1, 2, 3, 4));
}

TEST(CheckpointManagerTest, IgnoresTemporaryAndForeignFiles) {
  TempDir dir;
  CheckpointManager manager(dir.path(), 2);
  ASSERT_TRUE(manager.Save(5, AtStep(5)).ok());
  // What a crash mid-save leaves behind, and files that only look similar.
  for (const char* name : {"ckpt-9.sluice.tmp-123-0", "ckpt-.sluice", "ckpt-07.sluice",
                           "ckpt-x.sluice", "ckpt-8.sluic", "checkpoint", "ckpt--1.sluice"}) {
    std::ofstream(dir.File(name)) << "junk";
  }
  EXPECT_THAT(Steps(manager), ElementsAre(5));
  Result<std::optional<CheckpointInfo>> latest = manager.Latest();
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->step, 5);
  EXPECT_TRUE(manager.RestoreLatest().ok());
  // Saving more deletes old checkpoints only, never the other files.
  ASSERT_TRUE(manager.Save(6, AtStep(6)).ok());
  ASSERT_TRUE(manager.Save(7, AtStep(7)).ok());
  EXPECT_THAT(Steps(manager), ElementsAre(6, 7));
  EXPECT_TRUE(std::filesystem::exists(dir.File("ckpt-9.sluice.tmp-123-0")));
}

TEST(CheckpointManagerTest, SameStepReplacesAnOlderStepIsRefused) {
  TempDir dir;
  CheckpointManager manager(dir.path(), 3);
  ASSERT_TRUE(manager.Save(10, AtStep(10)).ok());
  CheckpointContents changed = AtStep(10);
  changed.blobs["iterator"] = "again";
  ASSERT_TRUE(manager.Save(10, changed).ok());
  EXPECT_EQ(manager.RestoreLatest()->blobs.at("iterator"), "again");

  Result<std::string> older = manager.Save(9, AtStep(9));
  EXPECT_EQ(older.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(older.status().message(), HasSubstr(dir.File("ckpt-10.sluice") + " is newer"));
  EXPECT_THAT(Steps(manager), ElementsAre(10));
}

TEST(CheckpointManagerTest, CorruptLatestIsDataLossNamingTheFile) {
  TempDir dir;
  CheckpointManager manager(dir.path(), 3);
  ASSERT_TRUE(manager.Save(1, AtStep(1)).ok());
  const std::string path = dir.File("ckpt-1.sluice");
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 3);
  Result<CheckpointContents> restored = manager.RestoreLatest();
  EXPECT_EQ(restored.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(restored.status().message(), HasSubstr(path));
}

}  // namespace
}  // namespace sluice
