#include "sluice/service/journal.h"

#include <gtest/gtest.h>

#include <fstream>

#include "temp_dir.h"

namespace sluice::service {
namespace {

StateUpdate WorkerUpdate(const std::string& uid) {
  StateUpdate update;
  update.mutable_register_worker()->set_worker_uid(uid);
  update.mutable_register_worker()->set_address(uid + ":1");
  return update;
}

std::vector<std::string> Uids(const std::vector<StateUpdate>& updates) {
  std::vector<std::string> uids;
  for (const StateUpdate& update : updates) uids.push_back(update.register_worker().worker_uid());
  return uids;
}

TEST(JournalTest, ReopeningReplaysEveryRunInOrder) {
  testing::TempDir dir;
  const std::string work_dir = dir.File("work");
  for (const std::vector<std::string>& run : {std::vector<std::string>{"a", "b"}, {"c"}}) {
    std::vector<StateUpdate> replayed;
    Result<std::unique_ptr<Journal>> journal = Journal::Open(work_dir, &replayed);
    ASSERT_TRUE(journal.ok()) << journal.status();
    for (const std::string& uid : run) ASSERT_TRUE((*journal)->Append(WorkerUpdate(uid)).ok());
    ASSERT_TRUE((*journal)->Sync().ok());
  }
  std::vector<StateUpdate> replayed;
  Result<std::unique_ptr<Journal>> journal = Journal::Open(work_dir, &replayed);
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ(Uids(replayed), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ((*journal)->path(), work_dir + "/journal_2");
}

TEST(JournalTest, SyncedUpdatesAreReadableBeforeTheJournalCloses) {
  testing::TempDir dir;
  std::vector<StateUpdate> replayed;
  Result<std::unique_ptr<Journal>> journal = Journal::Open(dir.path(), &replayed);
  ASSERT_TRUE(journal.ok()) << journal.status();
  ASSERT_TRUE((*journal)->Append(WorkerUpdate("a")).ok());
  ASSERT_TRUE((*journal)->Sync().ok());
  // A second dispatcher reading the directory now (as after a SIGKILL) sees it.
  std::vector<StateUpdate> seen;
  ASSERT_TRUE(Journal::Open(dir.path(), &seen).ok());
  EXPECT_EQ(Uids(seen), (std::vector<std::string>{"a"}));
}

TEST(JournalTest, TruncatedLastRecordEndsItsFile) {
  testing::TempDir dir;
  {
    std::vector<StateUpdate> replayed;
    Result<std::unique_ptr<Journal>> journal = Journal::Open(dir.path(), &replayed);
    ASSERT_TRUE(journal.ok());
    ASSERT_TRUE((*journal)->Append(WorkerUpdate("a")).ok());
    ASSERT_TRUE((*journal)->Append(WorkerUpdate("b")).ok());
  }
  const std::string file = dir.File("journal_0");
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size() - 3);
  std::vector<StateUpdate> replayed;
  ASSERT_TRUE(Journal::Open(dir.path(), &replayed).ok());
  EXPECT_EQ(Uids(replayed), (std::vector<std::string>{"a"}));
}

TEST(JournalTest, RecordThatIsNotAnUpdateIsDataLoss) {
  testing::TempDir dir;
  {
    auto writer = RecordWriter::Open(dir.File("journal_0"));
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->WriteRecord("\xff\xff\xff").ok());
    ASSERT_TRUE((*writer)->Close().ok());
  }
  std::vector<StateUpdate> replayed;
  Result<std::unique_ptr<Journal>> journal = Journal::Open(dir.path(), &replayed);
  EXPECT_EQ(journal.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(journal.status().message().find("journal_0"), std::string::npos);
}

}  // namespace
}  // namespace sluice::service
