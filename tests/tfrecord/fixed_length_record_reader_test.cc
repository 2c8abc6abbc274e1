#include "sluice/tfrecord/fixed_length_record_reader.h"

#include <gtest/gtest.h>

#include "sluice/tests/write_file.h"

namespace sluice {
namespace {

using ::sluice::testing::TempDir;
using ::sluice::testing::WriteFile;

struct Read {
  std::vector<std::string> records;
  Status error;  // what ended the file, if not its end
};

Read ReadAll(std::unique_ptr<FixedLengthRecordReader> reader, size_t max = 64) {
  Read read;
  std::shared_ptr<const Buffer> owner;
  std::vector<std::string_view> views(max);
  for (int calls = 0; calls < 100000; ++calls) {
    Result<size_t> n = reader->ReadRecords(views.data(), max, &owner);
    if (!n.ok()) {
      read.error = n.status();
      EXPECT_EQ(*reader->ReadRecords(views.data(), max, &owner), 0u) << "an error ends the file";
      return read;
    }
    if (*n == 0) return read;
    for (size_t i = 0; i < *n; ++i) read.records.emplace_back(views[i]);
  }
  ADD_FAILURE() << "the reader never ended";
  return read;
}

Read ReadBytes(const std::string& bytes, FixedLengthRecordReaderOptions options, size_t max = 64) {
  return ReadAll(FixedLengthRecordReader::FromStream(MakeMemoryInputStream(bytes, "records.bin"), std::move(options)),
                 max);
}

// tf.data's FixedLengthRecordDataset documentation example.
TEST(FixedLengthRecordReaderTest, SkipsTheHeaderAndFooter) {
  const std::vector<std::string> expected = {"01", "23", "45"};
  for (size_t buffer_size : {1, 3, 7, 256 << 10}) {
    for (size_t max : {1, 2, 64}) {
      SCOPED_TRACE(::testing::Message() << "buffer_size " << buffer_size << ", max " << max);
      const Read read =
          ReadBytes("HEADER012345FOOTER",
                    {.record_bytes = 2, .header_bytes = 6, .footer_bytes = 6, .buffer_size = buffer_size}, max);
      EXPECT_TRUE(read.error.ok()) << read.error;
      EXPECT_EQ(read.records, expected);
    }
  }
  EXPECT_EQ(ReadBytes("abcdef", {.record_bytes = 3}).records, (std::vector<std::string>{"abc", "def"}));
  EXPECT_TRUE(ReadBytes("", {.record_bytes = 3}).records.empty());
  EXPECT_TRUE(ReadBytes("HF", {.record_bytes = 3, .header_bytes = 1, .footer_bytes = 1}).records.empty());
}

TEST(FixedLengthRecordReaderTest, ABodyThatIsNotWholeRecordsIsAnError) {
  const Read partial = ReadBytes("HEADER0123456FOOTER", {.record_bytes = 2, .header_bytes = 6, .footer_bytes = 6});
  EXPECT_EQ(partial.records, (std::vector<std::string>{"01", "23", "45"}));
  EXPECT_EQ(partial.error.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(partial.error.message(),
            "fixed_length_record: Excluding the header (6 bytes) and footer (6 bytes), input file \"records.bin\" has "
            "body length 7 bytes, which is not an exact multiple of the record length (2 bytes).");
  const Read short_header = ReadBytes("HEAD", {.record_bytes = 2, .header_bytes = 6});
  EXPECT_TRUE(short_header.records.empty());
  EXPECT_EQ(short_header.error.message(),
            "fixed_length_record: input file \"records.bin\" has 4 bytes, fewer than its header (6 bytes) and footer "
            "(0 bytes)");
  const Read short_footer = ReadBytes("HEADERFOOT", {.record_bytes = 2, .header_bytes = 6, .footer_bytes = 6});
  EXPECT_NE(short_footer.error.message().find("has 10 bytes, fewer than its header"), std::string::npos)
      << short_footer.error;
}

// Opened by path, an uncompressed file is checked against its size before
// any record; a compressed one only at its end.
TEST(FixedLengthRecordReaderTest, AnUncompressedFileIsCheckedWhenOpened) {
  TempDir dir;
  const std::string path = WriteFile(dir, "odd.bin", "abcdefg");
  const Result<std::unique_ptr<FixedLengthRecordReader>> opened =
      FixedLengthRecordReader::Open(path, {.record_bytes = 2});
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(opened.status().message().find("\"" + path + "\" has body length 7 bytes"), std::string::npos)
      << opened.status();
  const std::string packed = WriteFile(dir, "odd.gz", "abcdefg", Compression::kGzip);
  const Read read =
      ReadAll(*FixedLengthRecordReader::Open(packed, {.record_bytes = 2, .compression = Compression::kGzip}));
  EXPECT_EQ(read.records, (std::vector<std::string>{"ab", "cd", "ef"}));
  EXPECT_NE(read.error.message().find("the decompressed stream of " + packed + "\" has body length 7"),
            std::string::npos)
      << read.error;
  EXPECT_EQ(FixedLengthRecordReader::Open(dir.File("missing"), {.record_bytes = 2}).status().code(),
            StatusCode::kNotFound);
}

// A record larger than the read buffer grows it, charged; refused, the file
// ends with ResourceExhausted.
TEST(FixedLengthRecordReaderTest, LargeRecordsGrowTheBufferWithinTheCharge) {
  const std::string record(100000, 'r');
  int64_t charged = 0;
  auto charge = [&](int64_t bytes) {
    if (charged + bytes > 300000) return ResourceExhaustedError("over the test's budget");
    charged += bytes;
    return OkStatus();
  };
  {
    const Read read = ReadBytes(record + record, {.record_bytes = 100000, .buffer_size = 4096, .charge = charge});
    EXPECT_TRUE(read.error.ok()) << read.error;
    EXPECT_EQ(read.records, (std::vector<std::string>{record, record}));
  }
  EXPECT_EQ(charged, 0);
  const Read refused =
      ReadBytes(std::string(400000, 'r'), {.record_bytes = 400000, .buffer_size = 4096, .charge = charge});
  EXPECT_TRUE(refused.records.empty());
  EXPECT_EQ(refused.error.code(), StatusCode::kResourceExhausted) << refused.error;
  EXPECT_EQ(charged, 0);
}

TEST(FixedLengthRecordReaderTest, SeeksToASavedPosition) {
  const std::string bytes = "HH" + std::string("aaabbbcccddd") + "F";
  const FixedLengthRecordReaderOptions options{.record_bytes = 3, .header_bytes = 2, .footer_bytes = 1};
  auto first = FixedLengthRecordReader::FromStream(MakeMemoryInputStream(bytes, "r"), options);
  std::string_view views[2];
  std::shared_ptr<const Buffer> owner;
  ASSERT_EQ(*first->ReadRecords(views, 2, &owner), 2u);
  const ItemPosition position = first->position();
  EXPECT_EQ(position.offset, 8u);
  EXPECT_EQ(position.next_item, 2);
  auto resumed = FixedLengthRecordReader::FromStream(MakeMemoryInputStream(bytes, "r"), options);
  ASSERT_TRUE(resumed->Seek(position).ok());
  EXPECT_EQ(ReadAll(std::move(resumed)).records, (std::vector<std::string>{"ccc", "ddd"}));
  // Nothing read yet: the header is still to pass.
  auto fresh = FixedLengthRecordReader::FromStream(MakeMemoryInputStream(bytes, "r"), options);
  ASSERT_TRUE(fresh->Seek({}).ok());
  EXPECT_EQ(ReadAll(std::move(fresh)).records.size(), 4u);
  // A position inside a record is damage in the saved state.
  auto bad = FixedLengthRecordReader::FromStream(MakeMemoryInputStream(bytes, "r"), options);
  EXPECT_EQ(bad->Seek({.offset = 7, .next_item = 2}).code(), StatusCode::kDataLoss);
  EXPECT_EQ(bad->Seek({.offset = 8, .next_item = -1}).code(), StatusCode::kDataLoss);
}

}  // namespace
}  // namespace sluice
