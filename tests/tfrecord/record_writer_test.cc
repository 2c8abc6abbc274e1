#include "sluice/tfrecord/record_writer.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <random>

#include "sluice/tests/temp_dir.h"
#include "sluice/tests/tfrecord/corpus.h"
#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/record_reader.h"

namespace sluice {
namespace {

using ::sluice::testing::TempDir;

std::vector<std::string> ReadAll(const std::string& path, RecordReaderOptions options) {
  std::vector<std::string> records;
  Result<std::unique_ptr<RecordReader>> reader = RecordReader::Open(path, options);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return records;
  std::string record;
  while (true) {
    Result<bool> got = (*reader)->ReadRecord(&record);
    EXPECT_TRUE(got.ok()) << got.status();
    if (!got.ok() || !*got) break;
    records.push_back(record);
  }
  return records;
}

TEST(RecordWriterTest, WritesTheTensorFlowTestVectorsByteForByte) {
  std::string bytes;
  auto writer = RecordWriter::FromStream(MakeStringOutputStream(&bytes, "memory"));
  for (const char* record : {"", "hello", "123456789"}) ASSERT_TRUE(writer->WriteRecord(record).ok());
  ASSERT_TRUE(writer->Close().ok());
  EXPECT_EQ(bytes, std::string("\x00\x00\x00\x00\x00\x00\x00\x00\x29\x03\x98\x07\xd8\xea\x82\xa2"
                               "\x05\x00\x00\x00\x00\x00\x00\x00\xea\xb2\x04\x3ehello\xbb\x1f\x1c\x19"
                               "\x09\x00\x00\x00\x00\x00\x00\x00\x37\xf9\x71\x39"
                               "123456789\xe5\xb0\x8a\xc7",
                               16 + 21 + 25));
}

// Rewriting TensorFlow's file gives TensorFlow's bytes.
TEST(RecordWriterTest, RewritesATensorFlowFileIdentically) {
  const std::string original = testing::ReadFileBytes(testing::kCorpusDir + "ydf_toy.tfrecord");
  TempDir dir;
  const std::string path = dir.File("copy.tfrecord");
  auto writer = RecordWriter::Open(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (const std::string& r : ReadAll(testing::kCorpusDir + "ydf_toy.tfrecord", {})) {
    ASSERT_TRUE((*writer)->WriteRecord(r).ok());
  }
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ(testing::ReadFileBytes(path), original);
}

class RoundTripTest : public ::testing::TestWithParam<Compression> {};

TEST_P(RoundTripTest, RecordsReadBackIdentically) {
  std::mt19937_64 rng(11);
  std::vector<std::string> records;
  for (size_t size : {0, 1, 15, 16, 1000, 70'000, 300'000, 3}) {
    std::string r(size, '\0');
    for (char& c : r) c = static_cast<char>(rng() % 7);  // compressible
    records.push_back(r);
  }
  TempDir dir;
  const std::string path = dir.File("round_trip");
  auto writer = RecordWriter::Open(path, {.compression = GetParam(), .buffer_size = 4096});
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (const std::string& r : records) ASSERT_TRUE((*writer)->WriteRecord(r).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ((*writer)->records_written(), static_cast<int64_t>(records.size()));
  for (size_t buffer_size : {size_t{0}, size_t{64}, size_t{256} << 10}) {
    EXPECT_EQ(ReadAll(path, {.compression = GetParam(), .buffer_size = buffer_size}), records);
  }
}

TEST_P(RoundTripTest, FlushMakesRecordsVisibleBeforeClose) {
  TempDir dir;
  const std::string path = dir.File("flushed");
  auto writer = RecordWriter::Open(path, {.compression = GetParam()});
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->WriteRecord("first").ok());
  ASSERT_TRUE((*writer)->Flush().ok());
  // A compressed stream is unfinished until Close: read what is there.
  Result<std::unique_ptr<RecordReader>> reader = RecordReader::Open(path, {.compression = GetParam()});
  ASSERT_TRUE(reader.ok());
  std::string record;
  Result<bool> got = (*reader)->ReadRecord(&record);
  ASSERT_TRUE(got.ok() && *got) << got.status();
  EXPECT_EQ(record, "first");
  ASSERT_TRUE((*writer)->Close().ok());
}

TEST_P(RoundTripTest, LargeRecordsOfTensOfMegabytes) {
  std::string big(40 << 20, '\0');
  for (size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>(i >> 12);
  TempDir dir;
  const std::string path = dir.File("big");
  auto writer = RecordWriter::Open(path, {.compression = GetParam()});
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->WriteRecord(big).ok());
  ASSERT_TRUE((*writer)->WriteRecord("after").ok());
  ASSERT_TRUE((*writer)->Close().ok());
  const std::vector<std::string> back = ReadAll(path, {.compression = GetParam()});
  ASSERT_EQ(back.size(), 2u);
  EXPECT_TRUE(back[0] == big);
  EXPECT_EQ(back[1], "after");
}

// Examples we write decode with protobuf's own parser, whatever the compression.
TEST_P(RoundTripTest, ExamplesDecodeWithProtobuf) {
  std::vector<tensorflow::Example> examples;
  std::vector<std::string> serialized;
  for (int i = 0; i < 50; ++i) {
    tensorflow::Example example;
    auto& features = *example.mutable_features()->mutable_feature();
    features["id"].mutable_int64_list()->add_value(-i);
    features["x"].mutable_float_list()->add_value(i * 0.25f);
    features["name"].mutable_bytes_list()->add_value(std::string(i, 'n'));
    serialized.push_back(example.SerializeAsString());
    examples.push_back(example);
  }
  TempDir dir;
  const std::string path = dir.File("examples");
  auto writer = RecordWriter::Open(path, {.compression = GetParam()});
  ASSERT_TRUE(writer.ok());
  for (const std::string& s : serialized) ASSERT_TRUE((*writer)->WriteRecord(s).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  const std::vector<std::string> back = ReadAll(path, {.compression = GetParam()});
  ASSERT_EQ(back.size(), serialized.size());
  for (size_t i = 0; i < back.size(); ++i) {
    tensorflow::Example example;
    ASSERT_TRUE(example.ParseFromString(back[i]));
    EXPECT_EQ(example.features().feature().at("id").int64_list().value(0), -static_cast<int64_t>(i));
    EXPECT_EQ(example.features().feature().at("name").bytes_list().value(0).size(), i);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(example, examples[i]));
  }
}

INSTANTIATE_TEST_SUITE_P(Compressions, RoundTripTest,
                         ::testing::Values(Compression::kNone, Compression::kZlib, Compression::kGzip),
                         [](const auto& info) { return std::string(CompressionName(info.param)); });

TEST(RecordWriterTest, RejectsBadOptionsAndWritesAfterClose) {
  TempDir dir;
  EXPECT_EQ(RecordWriter::Open(dir.File("x"), {.compression_level = 12}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RecordWriter::Open(dir.File("missing/dir/x")).status().code(), StatusCode::kNotFound);
  auto writer = RecordWriter::Open(dir.File("closed"));
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ((*writer)->WriteRecord("late").code(), StatusCode::kFailedPrecondition);
}

TEST(CompressionTest, ParsesNamesAndDetectsFormats) {
  EXPECT_EQ(*ParseCompression(""), Compression::kNone);
  EXPECT_EQ(*ParseCompression("gzip"), Compression::kGzip);
  EXPECT_EQ(*ParseCompression("ZLIB"), Compression::kZlib);
  EXPECT_EQ(ParseCompression("SNAPPY").status().code(), StatusCode::kInvalidArgument);
  auto head = [](const std::string& file) {
    const std::string bytes = testing::ReadFileBytes(testing::kCorpusDir + file);
    return DetectCompression({reinterpret_cast<const uint8_t*>(bytes.data()), std::min<size_t>(bytes.size(), 16)});
  };
  EXPECT_EQ(head("ydf_toy.tfrecord"), Compression::kNone);
  EXPECT_EQ(head("ydf_toy.tfrecord.gz"), Compression::kGzip);
  EXPECT_EQ(head("baskerville_zlib_4rec.tfr"), Compression::kZlib);
  EXPECT_EQ(head("baskerville_zlib_empty.tfr"), Compression::kZlib);
}

}  // namespace
}  // namespace sluice
