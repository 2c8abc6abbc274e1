#include "sluice/service/journal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
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

// A group commit syncs in steps: what Write handed to the file is durable
// after Fsync, however many updates were appended meanwhile, and the
// journal counts as synced only up to what MarkSynced was told.
TEST(JournalTest, SyncInStepsMakesWhatWasWrittenDurable) {
  testing::TempDir dir;
  std::vector<StateUpdate> replayed;
  Result<std::unique_ptr<Journal>> journal = Journal::Open(dir.path(), &replayed);
  ASSERT_TRUE(journal.ok()) << journal.status();
  Journal& log = **journal;
  ASSERT_TRUE(log.Append(WorkerUpdate("a")).ok());
  ASSERT_TRUE(log.Append(WorkerUpdate("b")).ok());
  Result<uint64_t> written = log.Write();
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*written, 2u);
  ASSERT_TRUE(log.Append(WorkerUpdate("c")).ok());  // while the fsync runs
  ASSERT_TRUE(log.Fsync().ok());
  log.MarkSynced(*written);
  EXPECT_EQ(log.synced(), 2u);
  EXPECT_EQ(log.appended(), 3u);
  std::vector<StateUpdate> seen;
  ASSERT_TRUE(Journal::Open(dir.path(), &seen).ok());
  EXPECT_EQ(Uids(seen), (std::vector<std::string>{"a", "b"}));
  // Compaction needs every update synced.
  EXPECT_EQ(log.Compact({WorkerUpdate("a")}).code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(log.Sync().ok());
  EXPECT_EQ(log.synced(), 3u);
  EXPECT_TRUE(log.Compact({WorkerUpdate("a"), WorkerUpdate("b"), WorkerUpdate("c")}).ok());
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

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
}

// A journal of "a", "b" compacted into a snapshot "s1", "s2", then "c".
void WriteCompactedJournal(const std::string& dir) {
  std::vector<StateUpdate> replayed;
  Result<std::unique_ptr<Journal>> journal = Journal::Open(dir, &replayed);
  ASSERT_TRUE(journal.ok()) << journal.status();
  ASSERT_TRUE((*journal)->Append(WorkerUpdate("a")).ok());
  ASSERT_TRUE((*journal)->Append(WorkerUpdate("b")).ok());
  EXPECT_EQ((*journal)->Compact({WorkerUpdate("s1")}).code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE((*journal)->Sync().ok());
  EXPECT_GT((*journal)->bytes_since_snapshot(), 0);
  ASSERT_TRUE((*journal)->Compact({WorkerUpdate("s1"), WorkerUpdate("s2")}).ok());
  EXPECT_EQ((*journal)->bytes_since_snapshot(), 0);
  EXPECT_EQ((*journal)->path(), dir + "/journal_1");
  ASSERT_TRUE((*journal)->Append(WorkerUpdate("c")).ok());
  ASSERT_TRUE((*journal)->Sync().ok());
}

std::vector<std::string> FileNames(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(JournalTest, CompactionReplacesTheOlderFilesByTheSnapshot) {
  testing::TempDir dir;
  WriteCompactedJournal(dir.path());
  EXPECT_EQ(FileNames(dir.path()), (std::vector<std::string>{"journal_1", "snapshot_1"}));
  std::vector<StateUpdate> replayed;
  Result<std::unique_ptr<Journal>> journal = Journal::Open(dir.path(), &replayed);
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ(Uids(replayed), (std::vector<std::string>{"s1", "s2", "c"}));
  EXPECT_EQ((*journal)->path(), dir.File("journal_2"));
  EXPECT_GT((*journal)->bytes_since_snapshot(), 0);  // journal_1's "c"
}

TEST(JournalTest, CrashBeforeTheOldFilesAreDeletedReplaysTheSnapshot) {
  testing::TempDir dir;
  WriteCompactedJournal(dir.path());
  // As if the compaction had stopped after the rename: the superseded
  // journal is still there, and so is a later compaction's temporary file.
  {
    auto writer = RecordWriter::Open(dir.File("journal_0"));
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->WriteRecord(WorkerUpdate("a").SerializeAsString()).ok());
    ASSERT_TRUE((*writer)->Close().ok());
  }
  WriteBytes(dir.File("snapshot_2.tmp"), "cut short");
  std::vector<StateUpdate> replayed;
  Result<std::unique_ptr<Journal>> journal = Journal::Open(dir.path(), &replayed);
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ(Uids(replayed), (std::vector<std::string>{"s1", "s2", "c"}));
  EXPECT_EQ(FileNames(dir.path()), (std::vector<std::string>{"journal_1", "journal_2", "snapshot_1"}));
}

TEST(JournalTest, DamagedSnapshotIsDataLossNamingTheFileAndOffset) {
  testing::TempDir dir;
  WriteCompactedJournal(dir.path());
  const std::string snapshot = dir.File("snapshot_1");
  const std::string bytes = ReadBytes(snapshot);
  std::string damaged = bytes;
  damaged[damaged.size() - 6] ^= 0x40;  // the end record's data
  WriteBytes(snapshot, damaged);
  std::vector<StateUpdate> replayed;
  Result<std::unique_ptr<Journal>> journal = Journal::Open(dir.path(), &replayed);
  EXPECT_EQ(journal.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(journal.status().message().find("snapshot_1"), std::string::npos) << journal.status();
  EXPECT_NE(journal.status().message().find("offset"), std::string::npos) << journal.status();

  // Cut before its end record, it is refused too, not taken as a shorter state.
  WriteBytes(snapshot, bytes.substr(0, bytes.size() - 3));
  journal = Journal::Open(dir.path(), &replayed);
  EXPECT_EQ(journal.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(journal.status().message().find("snapshot_1"), std::string::npos) << journal.status();
  EXPECT_NE(journal.status().message().find("offset"), std::string::npos) << journal.status();
}

}  // namespace
}  // namespace sluice::service
