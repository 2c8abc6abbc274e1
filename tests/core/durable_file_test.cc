#include "sluice/core/durable_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sluice/tests/temp_dir.h"

namespace sluice {
namespace {

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(DurableFileTest, WriteFileAtomicallyReplacesTheFileAndLeavesNoTemporary) {
  testing::TempDir dir;
  const std::string path = dir.File("manifest");
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  ASSERT_TRUE(WriteFileAtomically(path, std::string("se\0cond", 7)).ok());
  EXPECT_EQ(Contents(path), std::string("se\0cond", 7));
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().filename(), "manifest");
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(DurableFileTest, AMissingDirectoryIsNotFoundNamingTheTemporaryFile) {
  testing::TempDir dir;
  const Status status = WriteFileAtomically(dir.File("no/such/file"), "x");
  EXPECT_EQ(status.code(), StatusCode::kNotFound) << status;
  EXPECT_NE(status.message().find(dir.File("no/such/file.tmp-")), std::string::npos) << status;
}

TEST(DurableFileTest, RenameDurablyMovesAFile) {
  testing::TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.File("a"), "bytes").ok());
  ASSERT_TRUE(RenameDurably(dir.File("a"), dir.File("b")).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.File("a")));
  EXPECT_EQ(Contents(dir.File("b")), "bytes");
  const Status missing = RenameDurably(dir.File("a"), dir.File("c"));
  EXPECT_EQ(missing.code(), StatusCode::kInternal);
  EXPECT_NE(missing.message().find(StrCat("cannot rename '", dir.File("a"), "'")), std::string::npos) << missing;
}

TEST(DurableFileTest, SyncPathNamesAMissingPath) {
  testing::TempDir dir;
  EXPECT_TRUE(SyncPath(dir.path()).ok());
  const Status status = SyncPath(dir.File("missing"));
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_EQ(status.message().find(StrCat("cannot open '", dir.File("missing"), "' for fsync")), 0u) << status;
}

}  // namespace
}  // namespace sluice
