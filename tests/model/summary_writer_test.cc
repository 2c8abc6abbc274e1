#include "sluice/model/summary_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <filesystem>
#include <map>
#include <regex>

#include "sluice/model/event.pb.h"
#include "sluice/tests/temp_dir.h"
#include "sluice/tests/tfrecord/corpus.h"
#include "sluice/tfrecord/record_reader.h"

namespace sluice {
namespace {

using ::sluice::testing::TempDir;

// Every record of a TFRecord file, parsed as tensorflow.Event; the raw
// records go to *records when given.
std::vector<tensorflow::Event> ReadEvents(const std::string& path,
                                          std::vector<std::string>* records = nullptr) {
  std::vector<tensorflow::Event> events;
  Result<std::unique_ptr<RecordReader>> reader = RecordReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return events;
  std::string record;
  while (true) {
    Result<bool> got = (*reader)->ReadRecord(&record);
    EXPECT_TRUE(got.ok()) << got.status();
    if (!got.ok() || !*got) break;
    EXPECT_TRUE(events.emplace_back().ParseFromString(record)) << "record " << events.size();
    if (records != nullptr) records->push_back(record);
  }
  return events;
}

double Now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

TEST(SummaryWriterTest, WritesScalarsTensorBoardReads) {
  TempDir dir;
  const std::string logdir = dir.File("logs/train");  // created by Open
  const double before = std::floor(Now());
  Result<std::unique_ptr<SummaryWriter>> writer = SummaryWriter::Open(logdir);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->Scalar("loss", 0.5, 1).ok());
  ASSERT_TRUE((*writer)->Scalar("epoch_accuracy", 0.1, 1).ok());
  ASSERT_TRUE((*writer)->Scalar("loss", -3.0e10, 20).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  const double after = Now();

  // events.out.tfevents.<unix seconds>.<hostname>.<pid>.<n>
  const std::string path = (*writer)->path();
  EXPECT_EQ(std::filesystem::path(path).parent_path(), logdir);
  char hostname[256] = {};
  ASSERT_EQ(::gethostname(hostname, sizeof(hostname) - 1), 0);
  std::smatch match;
  const std::string name = std::filesystem::path(path).filename().string();
  ASSERT_TRUE(std::regex_match(name, match, std::regex(R"(events\.out\.tfevents\.(\d+)\.(.+)\.(\d+)\.(\d+))")))
      << name;
  const double file_seconds = std::stod(match[1]);
  EXPECT_EQ(match[2], hostname);
  EXPECT_EQ(std::stol(match[3]), ::getpid());
  EXPECT_GE(file_seconds, before);
  EXPECT_LE(file_seconds, after);

  const std::vector<tensorflow::Event> events = ReadEvents(path);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  EXPECT_EQ(events[0].wall_time(), file_seconds);
  EXPECT_EQ(events[0].step(), 0);
  struct Expected {
    const char* tag;
    float value;
    int64_t step;
  };
  const Expected expected[] = {
      {"loss", 0.5f, 1}, {"epoch_accuracy", 0.1f, 1}, {"loss", -3.0e10f, 20}};
  for (size_t i = 0; i < std::size(expected); ++i) {
    SCOPED_TRACE(i);
    const tensorflow::Event& event = events[i + 1];
    ASSERT_TRUE(event.has_summary());
    ASSERT_EQ(event.summary().value_size(), 1);
    EXPECT_EQ(event.summary().value(0).tag(), expected[i].tag);
    EXPECT_EQ(event.summary().value(0).simple_value(), expected[i].value);
    EXPECT_EQ(event.step(), expected[i].step);
    EXPECT_GE(event.wall_time(), events[i].wall_time());
    EXPECT_LE(event.wall_time(), after);
  }
}

TEST(SummaryWriterTest, FlushMakesEventsVisibleWhileOpen) {
  TempDir dir;
  Result<std::unique_ptr<SummaryWriter>> writer = SummaryWriter::Open(dir.path());
  ASSERT_TRUE(writer.ok()) << writer.status();
  EXPECT_EQ(ReadEvents((*writer)->path()).size(), 1u);  // file_version, written by Open
  ASSERT_TRUE((*writer)->Scalar("loss", 1.0, 7).ok());
  ASSERT_TRUE((*writer)->Flush().ok());
  const std::vector<tensorflow::Event> events = ReadEvents((*writer)->path());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].step(), 7);
}

TEST(SummaryWriterTest, UnwritableLogDirIsAnError) {
  TempDir dir;
  std::ofstream(dir.File("file")) << "x";
  Result<std::unique_ptr<SummaryWriter>> writer = SummaryWriter::Open(dir.File("file/logs"));
  EXPECT_FALSE(writer.ok());
  EXPECT_THAT(writer.status().message(), ::testing::HasSubstr(dir.File("file/logs")));
}

// Conformance: events files written by TensorFlow (the corpus manifest,
// ../shared/testdata/tfrecord/manifest.json, lists the expected values)
// parse with our schema, and serializing the parsed events gives
// TensorFlow's bytes back.
TEST(SummaryWriterTest, ParsesTensorFlowEventsFiles) {
  std::vector<std::string> records;
  const std::vector<tensorflow::Event> events =
      ReadEvents(testing::kCorpusDir + "tfx_keras_validation.tfevents.v2", &records);
  ASSERT_EQ(events.size(), 41u);
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  EXPECT_EQ(events[0].wall_time(), 1598485465.0);
  EXPECT_EQ(std::bit_cast<uint64_t>(events[1].wall_time()), 0x41d7d1bcf6c038ceu);
  EXPECT_EQ(events[1].step(), 0);
  ASSERT_EQ(events[1].summary().value_size(), 1);
  EXPECT_EQ(events[1].summary().value(0).tag(), "epoch_loss");
  EXPECT_EQ(std::bit_cast<uint32_t>(events[1].summary().value(0).simple_value()), 0x3f2c8071u);
  std::map<std::string, int> tags;
  for (const tensorflow::Event& event : events) {
    for (const auto& value : event.summary().value()) {
      EXPECT_EQ(value.value_case(), tensorflow::Summary::Value::kSimpleValue);
      ++tags[value.tag()];
    }
  }
  EXPECT_EQ(tags, (std::map<std::string, int>{{"epoch_loss", 20},
                                              {"epoch_sparse_categorical_accuracy", 20}}));
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].SerializeAsString(), records[i]) << "record " << i;
  }

  const std::vector<tensorflow::Event> profile =
      ReadEvents(testing::kCorpusDir + "tb_profile_end_to_end.tfevents");
  ASSERT_EQ(profile.size(), 25u);
  EXPECT_EQ(profile[1].summary().value(0).tag(), "profile/train_begin");
  EXPECT_EQ(std::bit_cast<uint64_t>(profile[1].wall_time()), 0x41d726aee4b9054bu);
}

}  // namespace
}  // namespace sluice
