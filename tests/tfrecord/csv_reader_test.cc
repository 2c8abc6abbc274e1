#include "sluice/tfrecord/csv_reader.h"

#include <gtest/gtest.h>

#include <random>

#include "sluice/tfrecord/zlib_output_stream.h"

namespace sluice {
namespace {

using Record = std::vector<std::string>;

struct Read {
  std::vector<Record> records;
  std::vector<Status> errors;
  std::vector<size_t> error_positions;  // records before each error
};

Read ReadAll(const std::string& bytes, CsvReaderOptions options = {}) {
  auto reader = CsvReader::FromStream(MakeMemoryInputStream(bytes, "table.csv"), std::move(options));
  Read read;
  std::shared_ptr<const Buffer> owner;
  std::vector<std::string_view> fields;
  for (int calls = 0; calls < 100000; ++calls) {
    Result<bool> got = reader->ReadRecord(&fields, &owner);
    if (!got.ok()) {
      read.errors.push_back(got.status());
      read.error_positions.push_back(read.records.size());
      continue;
    }
    if (!*got) return read;
    read.records.emplace_back(fields.begin(), fields.end());
  }
  ADD_FAILURE() << "the reader never ended";
  return read;
}

std::vector<Record> Records(const std::string& bytes, CsvReaderOptions options = {}) {
  Read read = ReadAll(bytes, std::move(options));
  EXPECT_TRUE(read.errors.empty()) << read.errors[0];
  return read.records;
}

TEST(CsvReaderTest, SplitsRecordsAndFieldsAsCsvDataset) {
  EXPECT_EQ(Records("a,b,c\n1,2,3\n"), (std::vector<Record>{{"a", "b", "c"}, {"1", "2", "3"}}));
  // Line breaks: \n, \r\n and a lone \r; none at the end of the file.
  EXPECT_EQ(Records("a\r\nb\rc\nd"), (std::vector<Record>{{"a"}, {"b"}, {"c"}, {"d"}}));
  EXPECT_EQ(Records("a\r\n"), (std::vector<Record>{{"a"}}));
  // An empty line is a record of one empty field; empty fields anywhere.
  EXPECT_EQ(Records("x\n\n,\n,y,\n"), (std::vector<Record>{{"x"}, {""}, {"", ""}, {"", "y", ""}}));
  EXPECT_TRUE(Records("").empty());
  // Quoted fields hold delimiters, line breaks and doubled quotes.
  EXPECT_EQ(Records("\"a,b\",\"say \"\"hi\"\"\",\"\"\n\"two\nlines\",x\r\n\"\"\"\"\n"),
            (std::vector<Record>{{"a,b", "say \"hi\"", ""}, {"two\nlines", "x"}, {"\""}}));
  EXPECT_EQ(Records("\"end\""), (std::vector<Record>{{"end"}}));
  // Without use_quote_delim, quotes are bytes like the others.
  EXPECT_EQ(Records("\"a\"\"b,c\"\n", {.use_quote_delim = false}), (std::vector<Record>{{"\"a\"\"b", "c\""}}));
  EXPECT_EQ(Records("a|b,c\n", {.field_delim = '|'}), (std::vector<Record>{{"a", "b,c"}}));
}

TEST(CsvReaderTest, DamagedRecordsAreErrorsAndReadingGoesOn) {
  Read read = ReadAll("ok,1\nbad\"quote,2\nfine,3\n\"unescaped\"x\",4\nlast,5\n");
  EXPECT_EQ(read.records, (std::vector<Record>{{"ok", "1"}, {"fine", "3"}, {"last", "5"}}));
  ASSERT_EQ(read.errors.size(), 2u);
  EXPECT_EQ(read.error_positions, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(read.errors[0].ToString(),
            "DataLoss: table.csv: record 1 at byte offset 5: field 0 is not quoted but holds a '\"'");
  EXPECT_EQ(read.errors[1].ToString(),
            "DataLoss: table.csv: record 3 at byte offset 24: field 0 is quoted and holds a '\"' that is not "
            "doubled");
  read = ReadAll("a\n\"open,b\nc\n");
  EXPECT_EQ(read.records, (std::vector<Record>{{"a"}}));
  ASSERT_EQ(read.errors.size(), 1u);
  EXPECT_EQ(read.errors[0].message(), "table.csv: record 1 at byte offset 2: the file ends inside its quoted field");
}

// Records cut by every chunk boundary (a "\r\n" split in two, a "" split
// in two, quoted line breaks): every buffer size gives the same records.
TEST(CsvReaderTest, EveryBufferSizeGivesTheSameRecords) {
  std::mt19937 rng(11);
  const char* pieces[] = {"a", "bc", ",", "\n", "\r\n", "\r", "\"q,\"", "\"x\"\"y\"", "\"l\r\nm\"", "7"};
  for (int trial = 0; trial < 60; ++trial) {
    std::string bytes;
    bool field_start = true;
    for (int i = 0; i < 40; ++i) {
      std::string piece = pieces[rng() % std::size(pieces)];
      if (piece[0] == '"' && !field_start) piece = "z";  // quotes only open a field
      bytes += piece;
      field_start = piece == "," || piece.back() == '\n' || piece == "\r";
      if (piece[0] == '"') {  // a quoted field ends it
        bytes += ',';
        field_start = true;
      }
    }
    const std::vector<Record> expected = Records(bytes, {.buffer_size = 1 << 16});
    for (size_t buffer_size : {1, 2, 3, 4, 7, 16}) {
      EXPECT_EQ(Records(bytes, {.buffer_size = buffer_size}), expected)
          << "trial " << trial << ", buffer_size " << buffer_size;
    }
  }
}

TEST(CsvReaderTest, LongRecordsEndTheFile) {
  Read read = ReadAll("a,b\n" + std::string(40, 'x') + "\nc,d\n", {.buffer_size = 8, .max_record_bytes = 16});
  EXPECT_EQ(read.records, (std::vector<Record>{{"a", "b"}}));
  ASSERT_EQ(read.errors.size(), 1u);
  EXPECT_EQ(read.errors[0].message(),
            "table.csv: record 1 at byte offset 4: the record has 32 bytes or more, past max_record_bytes (16); the "
            "rest of the file is not read");
  // Found whole, it is passed over.
  read = ReadAll("a,b\n" + std::string(40, 'x') + "\nc,d\n", {.max_record_bytes = 16});
  EXPECT_EQ(read.records, (std::vector<Record>{{"a", "b"}, {"c", "d"}}));
  ASSERT_EQ(read.errors.size(), 1u);
  EXPECT_EQ(read.errors[0].message(),
            "table.csv: record 1 at byte offset 4: the record has 41 bytes, past "
            "max_record_bytes (16)");
}

// A record of more fields than max_fields keeps no more of them: it is
// damage, and the next record follows.
TEST(CsvReaderTest, FieldsPastTheBoundAreDamage) {
  Read read = ReadAll(std::string(1000, ',') + "\na,b,c\n", {.max_fields = 3});
  EXPECT_EQ(read.records, (std::vector<Record>{{"a", "b", "c"}}));
  ASSERT_EQ(read.errors.size(), 1u);
  EXPECT_EQ(read.errors[0].message(), "table.csv: record 0 at byte offset 0: the record has more than 3 fields");
}

TEST(CsvReaderTest, CompressedAndResumed) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += std::to_string(i) + ",\"v" + std::to_string(i) + "\"\r\n";
  std::string compressed;
  auto out = MakeZlibOutputStream(MakeStringOutputStream(&compressed, "mem"), Compression::kGzip);
  ASSERT_TRUE(out->Write(text.data(), text.size()).ok());
  ASSERT_TRUE(out->Close().ok());
  const CsvReaderOptions options{.compression = Compression::kGzip, .buffer_size = 100};
  EXPECT_EQ(Records(compressed, options), Records(text));
  for (int skip : {0, 1, 999, 2000}) {
    auto reader = CsvReader::FromStream(MakeMemoryInputStream(compressed, "mem"), options);
    std::shared_ptr<const Buffer> owner;
    std::vector<std::string_view> fields;
    for (int i = 0; i < skip; ++i) ASSERT_TRUE(*reader->ReadRecord(&fields, &owner));
    auto resumed = CsvReader::FromStream(MakeMemoryInputStream(compressed, "mem"), options);
    ASSERT_TRUE(resumed->Seek(reader->position()).ok());
    for (int i = skip; i < 2000; ++i) {
      ASSERT_TRUE(*resumed->ReadRecord(&fields, &owner));
      ASSERT_EQ(fields.size(), 2u);
      EXPECT_EQ(fields[1], "v" + std::to_string(i));
      EXPECT_EQ(resumed->record_index(), i);
    }
    EXPECT_FALSE(*resumed->ReadRecord(&fields, &owner));
  }
}

}  // namespace
}  // namespace sluice
