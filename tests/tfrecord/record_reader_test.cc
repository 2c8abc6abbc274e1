#include "sluice/tfrecord/record_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <tuple>

#include "sluice/tests/temp_dir.h"
#include "sluice/tests/tfrecord/corpus.h"
#include "sluice/tfrecord/record_format.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice {
namespace {

using ::sluice::testing::CorpusFiles;
using ::sluice::testing::Field;
using ::sluice::testing::kCorpusDir;
using ::sluice::testing::Sha256;
using ::sluice::testing::Sha256Hex;

Compression CorpusCompression(const google::protobuf::Struct& file) {
  const std::string& name = Field(file, "compression").string_value();
  return name == "gzip" ? Compression::kGzip : name == "zlib" ? Compression::kZlib : Compression::kNone;
}

std::unique_ptr<RecordReader> OpenOrDie(const std::string& path, RecordReaderOptions options) {
  Result<std::unique_ptr<RecordReader>> reader = RecordReader::Open(path, options);
  EXPECT_TRUE(reader.ok()) << reader.status();
  return reader.ok() ? std::move(*reader) : nullptr;
}

// How RecordSource reads: copies (ReadRecord(std::string*)), views one by
// one (ReadRecord(std::string_view*, owner)), or views a run at a time
// (ReadRecordsInChunk, and ReadRecord for the records it leaves).
enum class ReadApi { kCopies, kViews, kRunsOfViews };

// Reads records through any of the APIs: copies, or views whose owners are
// kept until the end, so that ExpectViewsIntact can check that no later
// refill wrote over a chunk that had handed out a view.
class RecordSource {
 public:
  RecordSource(RecordReader& reader, ReadApi api) : reader_(reader), api_(api) {}

  Result<bool> Next(std::string* record) {
    if (api_ == ReadApi::kCopies) return reader_.ReadRecord(record);
    std::string_view view;
    Result<bool> got = NextView(&view);
    if (got.ok() && *got) {
      record->assign(view);
      kept_.push_back({view, owner_, *record});
    }
    return got;
  }

  // The offset and index of the record read last: the reader's, or for a
  // record from a run (where the reader stands at the run's last record)
  // counted back from the run's last record.
  uint64_t record_offset() const {
    if (run_next_ == 0 || run_next_ > run_size_) return reader_.record_offset();
    return reader_.record_offset() - static_cast<uint64_t>(run_[run_size_ - 1].data() - run_[run_next_ - 1].data());
  }
  int64_t record_index() const {
    if (run_next_ == 0 || run_next_ > run_size_) return reader_.record_index();
    return reader_.record_index() - static_cast<int64_t>(run_size_ - run_next_);
  }

  void ExpectViewsIntact() const {
    for (size_t i = 0; i < kept_.size(); ++i) {
      EXPECT_EQ(kept_[i].view, kept_[i].bytes) << "record " << i << " changed under its view";
      const auto* begin = static_cast<const char*>(kept_[i].owner->data());
      EXPECT_TRUE(kept_[i].view.empty() || (kept_[i].view.data() >= begin &&
                                            kept_[i].view.data() + kept_[i].view.size() <=
                                                begin + kept_[i].owner->size()))
          << "record " << i << " is not inside its owner";
    }
  }

 private:
  // Runs of up to 5 views, so that runs end at the limit as well as at a
  // chunk's end.
  static constexpr size_t kRun = 5;

  Result<bool> NextView(std::string_view* view) {
    if (api_ == ReadApi::kRunsOfViews) {
      if (run_next_ >= run_size_) {
        run_size_ = reader_.ReadRecordsInChunk(run_.data(), kRun, &owner_);
        run_next_ = 0;
      }
      if (run_next_ < run_size_) {
        *view = run_[run_next_++];
        return true;
      }
      run_next_ = run_size_ + 1;  // the record comes from ReadRecord
    }
    return reader_.ReadRecord(view, &owner_);
  }

  struct Kept {
    std::string_view view;
    std::shared_ptr<const Buffer> owner;
    std::string bytes;  // what the view showed when it was read
  };
  RecordReader& reader_;
  const ReadApi api_;
  std::shared_ptr<const Buffer> owner_;
  std::vector<Kept> kept_;
  std::array<std::string_view, kRun> run_;
  size_t run_size_ = 0, run_next_ = 0;
};

// The buffer sizes every corpus check runs with (none, smaller than most
// records, and the default), reading through each API.
class CorpusTest : public ::testing::TestWithParam<std::tuple<size_t, ReadApi>> {
 protected:
  size_t buffer_size() const { return std::get<0>(GetParam()); }
  ReadApi api() const { return std::get<1>(GetParam()); }
};

TEST_P(CorpusTest, ValidFilesMatchTheManifest) {
  SLUICE_SKIP_WITHOUT_PROTOBUF_JSON();
  int files = 0;
  for (const auto& file : CorpusFiles()) {
    if (Field(file, "category").string_value() != "valid") continue;
    ++files;
    const std::string name = Field(file, "file").string_value();
    SCOPED_TRACE(name);
    auto reader = OpenOrDie(kCorpusDir + name, {.compression = CorpusCompression(file),
                                                .buffer_size = buffer_size()});
    ASSERT_NE(reader, nullptr);
    RecordSource source(*reader, api());
    const auto& offsets = Field(file, "first_record_offsets").list_value();
    const auto& lengths = Field(file, "first_record_lengths").list_value();
    const auto& digests = Field(file, "first_record_sha256").list_value();
    Sha256 all_payloads;
    std::string record;
    int64_t count = 0;
    while (true) {
      Result<bool> got = source.Next(&record);
      ASSERT_TRUE(got.ok()) << got.status();
      if (!*got) break;
      if (count < offsets.values_size()) {
        EXPECT_EQ(source.record_offset(), offsets.values(count).number_value());
        EXPECT_EQ(record.size(), lengths.values(count).number_value());
        EXPECT_EQ(Sha256Hex(record), digests.values(count).string_value());
      }
      EXPECT_EQ(source.record_index(), count);
      all_payloads.Update(record);
      ++count;
    }
    EXPECT_EQ(count, Field(file, "record_count").number_value());
    EXPECT_EQ(all_payloads.HexDigest(), Field(file, "all_payloads_sha256").string_value());
    reader.reset();  // views outlive their reader
    source.ExpectViewsIntact();
  }
  EXPECT_EQ(files, 13);
}

// Damaged files fail where the manifest says, after the records it says,
// with the file, the record index, the offset and the failed check named.
// One difference from TensorFlow, by choice (tfrecord/record_format.h): a
// file that ends inside a header is a "truncated header" error.
TEST_P(CorpusTest, DamagedFilesFailWhereTheManifestSays) {
  SLUICE_SKIP_WITHOUT_PROTOBUF_JSON();
  int files = 0;
  for (const auto& file : CorpusFiles()) {
    if (Field(file, "category").string_value() == "valid") continue;
    ++files;
    const std::string name = Field(file, "file").string_value();
    SCOPED_TRACE(name);
    const auto& expected = Field(file, "expected").struct_value();
    const auto& observed = Field(file, "observed").struct_value();
    std::string error_kind = Field(expected, "error").string_value();
    double error_offset = Field(expected, "error_offset").number_value();
    if (Field(expected, "error").has_null_value()) {  // trunc_in_header
      error_kind = "truncated header";
      error_offset = Field(Field(observed, "errors").list_value().values(0).struct_value(), "offset")
                         .number_value();
    }
    const std::string check = error_kind == "data_crc"     ? "data CRC mismatch"
                              : error_kind == "length_crc" ? "length CRC mismatch"
                                                           : "truncated";
    auto reader = OpenOrDie(kCorpusDir + name, {.buffer_size = buffer_size()});
    ASSERT_NE(reader, nullptr);
    RecordSource source(*reader, api());
    std::string record;
    const int64_t good = static_cast<int64_t>(Field(expected, "records_before_error").number_value());
    const auto& values = Field(observed, "records_before_error_values").list_value();
    for (int64_t i = 0; i < good; ++i) {
      Result<bool> got = source.Next(&record);
      ASSERT_TRUE(got.ok() && *got) << got.status();
      if (i < values.values_size()) {
        EXPECT_EQ(record, values.values(i).string_value());
      }
    }
    Result<bool> bad = source.Next(&record);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().code(), StatusCode::kDataLoss);
    const std::string& message = bad.status().message();
    EXPECT_NE(message.find(name), std::string::npos) << message;
    EXPECT_NE(message.find(StrCat("record ", good, " at byte offset ",
                                  static_cast<int64_t>(error_offset))),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(check), std::string::npos) << message;
    // Reading on after the damage leaves what was handed out intact.
    for (int i = 0; i < 100; ++i) {
      Result<bool> more = source.Next(&record);
      if (more.ok() && !*more) break;
    }
    source.ExpectViewsIntact();
  }
  EXPECT_EQ(files, 7);
}

INSTANTIATE_TEST_SUITE_P(BufferSizesAndApis, CorpusTest,
                         ::testing::Combine(::testing::Values(0, 100, 256 << 10),
                                            ::testing::Values(ReadApi::kCopies, ReadApi::kViews,
                                                              ReadApi::kRunsOfViews)));

TEST(RecordReaderTest, ReadsTheTensorFlowTestVectors) {
  // tfdata.md 4.1: an empty record, "hello" and "123456789".
  const std::string bytes = std::string(
      "\x00\x00\x00\x00\x00\x00\x00\x00\x29\x03\x98\x07\xd8\xea\x82\xa2"
      "\x05\x00\x00\x00\x00\x00\x00\x00\xea\xb2\x04\x3ehello\xbb\x1f\x1c\x19"
      "\x09\x00\x00\x00\x00\x00\x00\x00\x37\xf9\x71\x39" "123456789\xe5\xb0\x8a\xc7",
      16 + 21 + 25);
  auto reader = RecordReader::FromStream(MakeMemoryInputStream(bytes, "vectors"));
  std::string record = "stale";
  for (const char* expected : {"", "hello", "123456789"}) {
    Result<bool> got = reader->ReadRecord(&record);
    ASSERT_TRUE(got.ok() && *got) << got.status();
    EXPECT_EQ(record, expected);
  }
  EXPECT_EQ(reader->record_offset(), 37u);
  Result<bool> end = reader->ReadRecord(&record);
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(*end);
}

TEST(RecordReaderTest, MissingFileIsNotFound) {
  Result<std::unique_ptr<RecordReader>> reader = RecordReader::Open("/nonexistent/x.tfrecord");
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), StatusCode::kNotFound);
  EXPECT_NE(reader.status().message().find("/nonexistent/x.tfrecord"), std::string::npos);
}

// After a length CRC mismatch the reader scans for the next valid header;
// in the damaged pets file (manifest note) exactly the records at 165555,
// 244384, 256429 and 549719 still pass both CRCs.
TEST(RecordReaderTest, RecoversTheIntactRecordsOfADamagedFile) {
  auto reader = OpenOrDie(kCorpusDir + "corrupt/od_pets_examples_crlf_damaged.record", {});
  ASSERT_NE(reader, nullptr);
  std::vector<uint64_t> recovered;
  int errors = 0;
  std::string record;
  while (errors < 100) {
    Result<bool> got = reader->ReadRecord(&record);
    if (!got.ok()) {
      ++errors;
      continue;
    }
    if (!*got) break;
    recovered.push_back(reader->record_offset());
  }
  EXPECT_EQ(recovered, (std::vector<uint64_t>{165555, 244384, 256429, 549719}));
  EXPECT_GT(reader->bytes_skipped(), 0u);
  EXPECT_GE(errors, 3);
}

std::string WriteToString(const std::vector<std::string>& records, Compression compression) {
  std::string bytes;
  auto writer = RecordWriter::FromStream(MakeStringOutputStream(&bytes, "memory"),
                                         {.compression = compression});
  for (const std::string& r : records) EXPECT_TRUE(writer->WriteRecord(r).ok());
  EXPECT_TRUE(writer->Close().ok());
  return bytes;
}

TEST(RecordReaderTest, ReadsConcatenatedGzipMembers) {
  const std::string bytes = WriteToString({"a", "bb"}, Compression::kGzip) +
                            WriteToString({"ccc"}, Compression::kGzip);
  auto reader = RecordReader::FromStream(MakeMemoryInputStream(bytes, "two members"),
                                         {.compression = Compression::kGzip});
  std::string record;
  std::vector<std::string> seen;
  while (true) {
    Result<bool> got = reader->ReadRecord(&record);
    ASSERT_TRUE(got.ok()) << got.status();
    if (!*got) break;
    seen.push_back(record);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "bb", "ccc"}));
}

TEST(RecordReaderTest, DamagedCompressedStreamsAreDataLoss) {
  const std::string gzip = WriteToString({std::string(5000, 'x'), "tail"}, Compression::kGzip);
  struct Case {
    const char* label;
    std::string bytes;
    const char* expected;
  };
  std::string flipped = gzip;
  flipped[gzip.size() / 2] ^= 0x55;
  const Case cases[] = {
      {"cut in half", gzip.substr(0, gzip.size() / 2), "truncated"},
      {"flipped byte", flipped, "GZIP"},
      {"not gzip at all", std::string(64, 'z'), "corrupt GZIP data"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    auto reader = RecordReader::FromStream(MakeMemoryInputStream(c.bytes, "damaged.gz"),
                                           {.compression = Compression::kGzip});
    std::string record;
    Status status;
    for (int i = 0; i < 4 && status.ok(); ++i) {
      Result<bool> got = reader->ReadRecord(&record);
      if (!got.ok()) status = got.status();
      else if (!*got) break;
    }
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.code(), StatusCode::kDataLoss) << status;
    EXPECT_NE(status.message().find(c.expected), std::string::npos) << status;
    EXPECT_NE(status.message().find("damaged.gz"), std::string::npos) << status;
    // The stream can't be read past the damage: the file ends there.
    Result<bool> after = reader->ReadRecord(&record);
    ASSERT_TRUE(after.ok()) << after.status();
    EXPECT_FALSE(*after);
  }
}

TEST(RecordReaderTest, EmptyInputsHaveNoRecords) {
  for (Compression compression : {Compression::kNone, Compression::kZlib, Compression::kGzip}) {
    auto reader = RecordReader::FromStream(MakeMemoryInputStream("", "empty"), {.compression = compression});
    std::string record;
    Result<bool> got = reader->ReadRecord(&record);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_FALSE(*got);
  }
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

std::vector<std::string> ReadAll(RecordReader& reader) {
  std::vector<std::string> out;
  std::string record;
  while (true) {
    Result<bool> got = reader.ReadRecord(&record);
    EXPECT_TRUE(got.ok()) << got.status();
    if (!got.ok() || !*got) return out;
    out.push_back(record);
  }
}

// Views of small records (in the chunk, which is replaced rather than
// rewritten once it has handed out a view), of records larger than the
// chunk (each in a block of its own) and of empty ones stay valid after the
// reader is gone; reading copies in between changes nothing.
TEST(RecordReaderTest, ViewsOutliveTheReaderAndAreNeverOverwritten) {
  std::vector<std::string> records;
  for (int i = 0; i < 200; ++i) {
    const size_t size = i % 10 == 3 ? 700 : i % 10 == 7 ? 0 : static_cast<size_t>(i % 50);
    records.push_back(std::string(size, static_cast<char>('a' + i % 26)));
  }
  const std::string bytes = WriteToString(records, Compression::kNone);
  for (size_t buffer_size : {size_t{0}, size_t{100}, size_t{256} << 10}) {
    SCOPED_TRACE(buffer_size);
    auto reader = RecordReader::FromStream(MakeMemoryInputStream(bytes, "memory"), {.buffer_size = buffer_size});
    std::vector<std::pair<std::string_view, std::shared_ptr<const Buffer>>> views;
    std::shared_ptr<const Buffer> owner;
    std::string copy;
    for (size_t i = 0; i < records.size(); ++i) {
      if (i % 5 == 4) {  // a copy now and then
        ASSERT_TRUE(*reader->ReadRecord(&copy));
        EXPECT_EQ(copy, records[i]);
        views.emplace_back(records[i], nullptr);
        continue;
      }
      std::string_view view;
      Result<bool> got = reader->ReadRecord(&view, &owner);
      ASSERT_TRUE(got.ok() && *got) << got.status();
      ASSERT_NE(owner, nullptr);
      if (view.size() + 4 > std::max<size_t>(buffer_size, 16)) {
        EXPECT_EQ(owner->size(), view.size()) << "a large record gets a block of its own";
      }
      views.emplace_back(view, owner);
    }
    EXPECT_FALSE(*reader->ReadRecord(&copy));
    reader.reset();
    owner.reset();
    for (size_t i = 0; i < records.size(); ++i) EXPECT_EQ(views[i].first, records[i]) << "record " << i;
  }
}

// A reader whose views die before the next refill alternates between two
// chunks (the one it reads and the one before, reused once its views are
// gone) instead of taking a fresh one per refill; a view still held keeps
// its chunk out of reuse, and its bytes intact.
TEST(RecordReaderTest, ReusesTheChunkBeforeOnceItsViewsAreGone) {
  std::vector<std::string> records;
  for (int i = 0; i < 300; ++i) records.push_back(std::string(40 + i % 7, static_cast<char>('a' + i % 26)));
  const std::string bytes = WriteToString(records, Compression::kNone);
  auto reader = RecordReader::FromStream(MakeMemoryInputStream(bytes, "memory"), {.buffer_size = 256});
  // Every distinct owner seen; a weak reference keeps a freed buffer's
  // memory from being handed out again, so distinct buffers have distinct
  // addresses.
  std::vector<std::weak_ptr<const Buffer>> chunks;
  std::shared_ptr<const Buffer> owner;
  std::shared_ptr<const Buffer> held;  // one view kept through many refills
  std::string_view held_view;
  for (size_t i = 0; i < records.size(); ++i) {
    std::string_view view;
    Result<bool> got = reader->ReadRecord(&view, &owner);
    ASSERT_TRUE(got.ok() && *got) << got.status();
    ASSERT_EQ(view, records[i]) << "record " << i;
    if (std::none_of(chunks.begin(), chunks.end(),
                     [&](const auto& chunk) { return !chunk.owner_before(owner) && !owner.owner_before(chunk); })) {
      chunks.push_back(owner);
    }
    if (i == 100) {
      held = owner;
      held_view = view;
    }
  }
  // Two chunks, and one more for the one the held view keeps.
  EXPECT_EQ(chunks.size(), 3u);
  EXPECT_EQ(held_view, records[100]);
}

// A fresh reader moved to a saved position reads what the first one read
// next: a file seeks, a compressed stream is decompressed up to the offset.
TEST(RecordReaderTest, ResumesAtASavedPosition) {
  const std::vector<std::string> records = {"a", std::string(3000, 'b'), "cc", "", "ddd"};
  for (Compression compression : {Compression::kNone, Compression::kZlib, Compression::kGzip}) {
    SCOPED_TRACE(CompressionName(compression));
    testing::TempDir dir;
    const std::string path = dir.File("records");
    auto writer = RecordWriter::Open(path, {.compression = compression});
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (const std::string& r : records) ASSERT_TRUE((*writer)->WriteRecord(r).ok());
    ASSERT_TRUE((*writer)->Close().ok());
    for (size_t k = 0; k <= records.size(); ++k) {
      auto first = OpenOrDie(path, {.compression = compression, .buffer_size = 100});
      std::string record;
      for (size_t i = 0; i < k; ++i) ASSERT_TRUE(*first->ReadRecord(&record));
      const RecordReader::Position position = first->position();
      EXPECT_EQ(position.record_index, static_cast<int64_t>(k) - 1);
      auto resumed = OpenOrDie(path, {.compression = compression});
      ASSERT_TRUE(resumed->Seek(position).ok());
      EXPECT_EQ(ReadAll(*resumed), std::vector<std::string>(records.begin() + k, records.end()));
      EXPECT_EQ(resumed->record_index(), static_cast<int64_t>(records.size()) - 1);
    }
    auto past_end = OpenOrDie(path, {.compression = compression});
    Status status = past_end->Seek({.offset = 1 << 20});
    EXPECT_EQ(status.code(), StatusCode::kDataLoss) << status;
    EXPECT_NE(status.message().find("cannot resume reading at byte offset 1048576"), std::string::npos) << status;
  }
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

// `size` zero bytes (or endless ones), as /dev/zero gives them: no header
// in it has a valid length CRC (the masked CRC of 8 zero bytes is not 0).
class ZeroStream final : public InputStream {
 public:
  explicit ZeroStream(uint64_t size) : left_(size) {}
  Result<size_t> Read(void* out, size_t size) override {
    const size_t n = std::min<uint64_t>(size, left_);
    std::memset(out, 0, n);
    left_ -= n;
    return n;
  }
  const std::string& name() const override { return name_; }

 private:
  uint64_t left_;
  const std::string name_ = "zeros";
};

// A valid header declaring `length` data bytes, and nothing after it.
std::string HeaderOnly(uint64_t length) {
  std::string header(record_format::kHeaderSize, '\0');
  record_format::EncodeHeader(length, reinterpret_cast<uint8_t*>(header.data()));
  return header;
}

Status NextError(RecordReader& reader) {
  std::string record;
  Result<bool> got = reader.ReadRecord(&record);
  return got.ok() ? InternalError("no error; got ", *got ? "a record" : "the end") : got.status();
}

// A declared length is checked against max_record_bytes before anything is
// buffered, whether the record would fit in the chunk or not; the record
// is then passed over (its length CRC held), and reading goes on after it.
TEST(RecordReaderTest, ALengthOverMaxRecordBytesIsRejectedAndSkipped) {
  struct Case {
    const char* label;
    std::string bytes;
    RecordReaderOptions options;
    const char* expected;
  };
  const std::string small_then_good = WriteToString({std::string(100, 'x'), "good"}, Compression::kNone);
  const std::string large_then_good = WriteToString({std::string(5000, 'y'), "good"}, Compression::kNone);
  const Case cases[] = {
      {"3 GiB declared, default limit", HeaderOnly(uint64_t{3} << 30) + WriteToString({"good"}, Compression::kNone),
       {}, "the header declares 3221225472 data bytes, more than max_record_bytes (268435456)"},
      {"in the chunk", small_then_good, {.max_record_bytes = 10}, "declares 100 data bytes, more than max_record_bytes (10)"},
      {"larger than the chunk", large_then_good, {.buffer_size = 100, .max_record_bytes = 1000},
       "declares 5000 data bytes, more than max_record_bytes (1000)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    auto reader = RecordReader::FromStream(MakeMemoryInputStream(c.bytes, "long.tfrecord"), c.options);
    const Status error = NextError(*reader);
    EXPECT_EQ(error.code(), StatusCode::kDataLoss) << error;
    EXPECT_NE(error.message().find("long.tfrecord: record 0 at byte offset 0: "), std::string::npos) << error;
    EXPECT_NE(error.message().find(c.expected), std::string::npos) << error;
    if (std::string_view(c.label).starts_with("3 GiB")) {
      EXPECT_NE(error.message().find("the file ends before the record does"), std::string::npos) << error;
      continue;
    }
    EXPECT_EQ(ReadAll(*reader), std::vector<std::string>{"good"});
  }
}

// A record larger than the chunk is charged at its declared length before
// its bytes are read and released once read; a refused charge is
// ResourceExhausted, and the reader goes on after the record.
TEST(RecordReaderTest, LargeRecordsAreChargedBeforeTheyAreBuffered) {
  const std::string bytes =
      WriteToString({std::string(3000, 'a'), "small", std::string(9000, 'b'), "end"}, Compression::kNone);
  int64_t charged = 0, most = 0;
  std::vector<int64_t> calls;
  auto charge = [&](int64_t delta) -> Status {
    calls.push_back(delta);
    if (charged + delta > 5000) return ResourceExhaustedError("the RAM budget has ", 5000 - charged, " bytes left");
    charged += delta;
    most = std::max(most, charged);
    return OkStatus();
  };
  auto reader = RecordReader::FromStream(MakeMemoryInputStream(bytes, "big.tfrecord"),
                                         {.buffer_size = 1000, .charge = charge});
  std::string record;
  ASSERT_TRUE(*reader->ReadRecord(&record));
  EXPECT_EQ(record.size(), 3000u);
  ASSERT_TRUE(*reader->ReadRecord(&record));
  EXPECT_EQ(record, "small");
  const Status refused = NextError(*reader);
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted) << refused;
  EXPECT_NE(refused.message().find("big.tfrecord: record 2 at byte offset 3037: cannot buffer its 9000 data "
                                   "bytes: the RAM budget has 5000 bytes left; the record is skipped"),
            std::string::npos)
      << refused;
  EXPECT_EQ(ReadAll(*reader), std::vector<std::string>{"end"});
  EXPECT_EQ(calls, (std::vector<int64_t>{3000, -3000, 9000}));
  EXPECT_EQ(charged, 0);
  EXPECT_EQ(most, 3000);
}

// After a length CRC mismatch the scan for the next valid header stops
// after max_record_bytes + 16 bytes, with an error naming the range; the
// file ends there. Endless zeros (/dev/zero) end the same way.
TEST(RecordReaderTest, TheScanAfterADamagedHeaderIsBounded) {
  for (const uint64_t size : {uint64_t{64} << 20, std::numeric_limits<uint64_t>::max()}) {
    SCOPED_TRACE(size);
    auto reader = RecordReader::FromStream(std::make_unique<ZeroStream>(size), {.max_record_bytes = 1 << 20});
    const Status damaged = NextError(*reader);
    EXPECT_NE(damaged.message().find("zeros: record 0 at byte offset 0: length CRC mismatch"), std::string::npos)
        << damaged;
    const Status scan = NextError(*reader);
    EXPECT_EQ(scan.code(), StatusCode::kDataLoss) << scan;
    EXPECT_NE(scan.message().find("zeros: no valid record header in byte offsets [1, 1048593) after the damaged "
                                  "header at 0 (1048592 bytes scanned, the limit: max_record_bytes 1048576 + 16)"),
              std::string::npos)
        << scan;
    EXPECT_EQ(reader->bytes_skipped(), 1048593u);
    std::string record;
    Result<bool> end = reader->ReadRecord(&record);
    ASSERT_TRUE(end.ok()) << end.status();
    EXPECT_FALSE(*end);
  }
}

// The read chunk starts small and grows while the file goes on, up to
// buffer_size: a small file doesn't cost a large buffer. Growth is charged;
// refused, the chunk keeps its size and reading goes on.
TEST(RecordReaderTest, TheReadBufferGrowsOnDemand) {
  const std::string small = WriteToString({"a", "bb"}, Compression::kNone);
  auto reader = RecordReader::FromStream(MakeMemoryInputStream(small, "small"), {.buffer_size = size_t{1} << 30});
  std::string_view view;
  std::shared_ptr<const Buffer> owner;
  ASSERT_TRUE(*reader->ReadRecord(&view, &owner));
  EXPECT_LE(owner->size(), 64u << 10);
  std::vector<std::string> records(2000, std::string(1000, 'r'));
  const std::string large = WriteToString(records, Compression::kNone);
  reader = RecordReader::FromStream(MakeMemoryInputStream(large, "large"), {.buffer_size = 256 << 10});
  size_t largest = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_TRUE(*reader->ReadRecord(&view, &owner));
    largest = std::max(largest, owner->size());
  }
  EXPECT_EQ(largest, 256u << 10);

  int64_t charged = 0;
  auto refuse_growth = [&](int64_t bytes) -> Status {
    if (bytes > 0 && charged + bytes > (16 << 10)) return ResourceExhaustedError("no room");
    charged += bytes;
    return OkStatus();
  };
  reader = RecordReader::FromStream(MakeMemoryInputStream(large, "large"),
                                    {.buffer_size = 256 << 10, .charge = refuse_growth});
  largest = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_TRUE(*reader->ReadRecord(&view, &owner));
    ASSERT_EQ(view, records[i]);
    largest = std::max(largest, owner->size());
  }
  EXPECT_EQ(largest, 16u << 10);
  EXPECT_EQ(charged, 16 << 10);
  reader.reset();
  EXPECT_EQ(charged, 0);
}

// Bytes after the last complete gzip member that aren't another member are
// a DataLoss error naming where they start, after every intact record.
TEST(RecordReaderTest, TrailingGarbageAfterAGzipMemberIsDataLossAfterEveryRecord) {
  std::vector<std::string> records;
  for (int i = 0; i < 826; ++i) records.push_back(std::string(100 + i * 7 % 1400, static_cast<char>('a' + i % 26)));
  const std::string gzip = WriteToString(records, Compression::kGzip);
  for (const std::string& garbage : {std::string(3000, '\0'), std::string("\x1f"), std::string("junk junk")}) {
    SCOPED_TRACE(garbage.size());
    const std::string bytes = gzip + garbage;
    auto reader = RecordReader::FromStream(MakeMemoryInputStream(bytes, "garbage.gz"),
                                           {.compression = Compression::kGzip});
    std::string record;
    size_t count = 0;
    Status error;
    while (true) {
      Result<bool> got = reader->ReadRecord(&record);
      if (!got.ok()) {
        error = got.status();
        break;
      }
      if (!*got) break;
      ASSERT_LT(count, records.size());
      EXPECT_EQ(record, records[count]);
      ++count;
    }
    EXPECT_EQ(count, records.size());
    EXPECT_EQ(error.code(), StatusCode::kDataLoss) << error;
    EXPECT_NE(error.message().find(StrCat("garbage.gz: the bytes from compressed byte ", gzip.size(),
                                          " on, after 1 complete GZIP member(s), are not a")),
              std::string::npos)
        << error;
    Result<bool> end = reader->ReadRecord(&record);
    ASSERT_TRUE(end.ok()) << end.status();
    EXPECT_FALSE(*end);
  }
}

// A record's view, wherever it goes in a string tensor that keeps the
// reader's buffer alive, names where it was read; a copy doesn't (nor
// does an empty record, which has no bytes to trace).
TEST(RecordReaderTest, RecordsKnowWhereTheyWereRead) {
  const std::vector<std::string> records = {"a", std::string(3000, 'b'), "cc"};
  for (Compression compression : {Compression::kNone, Compression::kGzip}) {
    SCOPED_TRACE(CompressionName(compression));
    const std::string bytes = WriteToString(records, compression);
    auto reader = RecordReader::FromStream(MakeMemoryInputStream(bytes, "origin.tfrecord"),
                                           {.compression = compression, .buffer_size = 100});
    Tensor views = Tensor::Allocate(DType::kString, Shape{static_cast<int64_t>(records.size())});
    std::vector<uint64_t> offsets;
    for (size_t i = 0; i < records.size(); ++i) {
      std::string_view view;
      std::shared_ptr<const Buffer> owner;
      ASSERT_TRUE(*reader->ReadRecord(&view, &owner));
      views.mutable_data<TString>()[i] = TString::View(view);
      views.AddBacking(owner);
      offsets.push_back(reader->record_offset());
    }
    const std::string source = compression == Compression::kNone ? "origin.tfrecord"
                                                                  : "the decompressed stream of origin.tfrecord";
    for (size_t i = 0; i < records.size(); ++i) {
      EXPECT_EQ(RecordOrigin(views.Row(static_cast<int64_t>(i)), views.data<TString>()[i]),
                StrCat("the record at byte offset ", offsets[i], " of ", source));
    }
    const Tensor copy = views.Compacted();
    EXPECT_EQ(RecordOrigin(copy, copy.data<TString>()[1]), "");
  }
}

}  // namespace
}  // namespace sluice
