#include "sluice/tfrecord/line_reader.h"

#include <gtest/gtest.h>

#include <random>

#include "sluice/tfrecord/zlib_output_stream.h"

namespace sluice {
namespace {

struct Read {
  std::vector<std::string> lines;
  std::vector<Status> errors;  // in order, each after lines[position]
  std::vector<size_t> error_positions;
};

// Every line and error of `bytes`, read with `options`, `max` lines a call.
Read ReadAll(const std::string& bytes, LineReaderOptions options = {}, size_t max = 64) {
  auto reader = LineReader::FromStream(MakeMemoryInputStream(bytes, "lines.txt"), std::move(options));
  Read read;
  std::shared_ptr<const Buffer> owner;
  std::vector<std::string_view> views(max);
  for (int calls = 0; calls < 100000; ++calls) {
    Result<size_t> n = reader->ReadLines(views.data(), max, &owner);
    if (!n.ok()) {
      read.errors.push_back(n.status());
      read.error_positions.push_back(read.lines.size());
      continue;
    }
    if (*n == 0) return read;
    for (size_t i = 0; i < *n; ++i) read.lines.emplace_back(views[i]);
  }
  ADD_FAILURE() << "the reader never ended";
  return read;
}

// tf.data's TextLineDataset (BufferedInputStream::ReadLine), byte by byte.
std::vector<std::string> ReferenceLines(const std::string& bytes) {
  std::vector<std::string> lines;
  std::string line;
  for (char c : bytes) {
    if (c == '\n') {
      lines.push_back(std::exchange(line, ""));
    } else if (c != '\r') {
      line += c;
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

TEST(LineReaderTest, SplitsAsTextLineDataset) {
  EXPECT_EQ(ReadAll("a\nb\r\nc\rd\n\nlast").lines, (std::vector<std::string>{"a", "b", "cd", "", "last"}));
  EXPECT_EQ(ReadAll("one\ntwo\n").lines, (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(ReadAll("\n\n").lines, (std::vector<std::string>{"", ""}));
  EXPECT_EQ(ReadAll("x\n\r").lines, (std::vector<std::string>{"x"}));  // an empty last line is dropped
  EXPECT_EQ(ReadAll("\r\r\n").lines, (std::vector<std::string>{""}));
  EXPECT_TRUE(ReadAll("").lines.empty());
  EXPECT_EQ(ReadAll(std::string("nul\0byte\n", 9)).lines, (std::vector<std::string>{std::string("nul\0byte", 8)}));
}

// Lines cut by every chunk boundary, of every length, with '\r' anywhere,
// read at several lines a call and one: the reference's lines.
TEST(LineReaderTest, EveryBufferSizeGivesTheSameLines) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    std::string bytes;
    const int size = static_cast<int>(rng() % 300);
    for (int i = 0; i < size; ++i) {
      const unsigned pick = rng() % 10;
      bytes += pick == 0 ? '\n' : pick == 1 ? '\r' : static_cast<char>('a' + rng() % 26);
    }
    const std::vector<std::string> expected = ReferenceLines(bytes);
    for (size_t buffer_size : {1, 2, 3, 5, 8, 13, 64, 1 << 16}) {
      for (size_t max : {1, 3, 64}) {
        Read read = ReadAll(bytes, {.buffer_size = buffer_size}, max);
        EXPECT_TRUE(read.errors.empty()) << read.errors[0];
        EXPECT_EQ(read.lines, expected) << "trial " << trial << ", buffer_size " << buffer_size << ", max " << max;
      }
    }
  }
}

TEST(LineReaderTest, CompressedFilesGiveTheSameLines) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "line " + std::to_string(i) + (i % 7 == 0 ? "\r\n" : "\n");
  for (Compression compression : {Compression::kZlib, Compression::kGzip}) {
    std::string compressed;
    auto out = MakeZlibOutputStream(MakeStringOutputStream(&compressed, "mem"), compression);
    ASSERT_TRUE(out->Write(text.data(), text.size()).ok());
    ASSERT_TRUE(out->Close().ok());
    Read read = ReadAll(compressed, {.compression = compression, .buffer_size = 1000});
    EXPECT_TRUE(read.errors.empty());
    EXPECT_EQ(read.lines, ReferenceLines(text));
  }
}

// A line past max_line_bytes is an error naming the file, the line and its
// byte offset; reading goes on at the next line, wherever the long line's
// end lies.
TEST(LineReaderTest, LongLinesAreErrorsAndReadingGoesOn) {
  const std::string bytes = "ab\n" + std::string(50, 'x') + "\ncd\n" + std::string(30, 'y');
  for (size_t buffer_size : {4, 16, 1024}) {
    Read read = ReadAll(bytes, {.buffer_size = buffer_size, .max_line_bytes = 10});
    EXPECT_EQ(read.lines, (std::vector<std::string>{"ab", "cd"})) << buffer_size;
    ASSERT_EQ(read.errors.size(), 2u) << buffer_size;
    EXPECT_EQ(read.error_positions, (std::vector<size_t>{1, 2}));
    EXPECT_EQ(read.errors[0].code(), StatusCode::kDataLoss);
    EXPECT_NE(read.errors[0].message().find("lines.txt: line 1 at byte offset 3 has "), std::string::npos)
        << read.errors[0];
    EXPECT_NE(read.errors[0].message().find("past max_line_bytes (10)"), std::string::npos);
    EXPECT_NE(read.errors[1].message().find("line 3 at byte offset 57 has "), std::string::npos) << read.errors[1];
  }
  // Found whole in the buffer, the length is exact.
  Read read = ReadAll("0123456789ab\nok\n", {.max_line_bytes = 10});
  ASSERT_EQ(read.errors.size(), 1u);
  EXPECT_EQ(read.errors[0].message(), "lines.txt: line 0 at byte offset 0 has 12 bytes, past max_line_bytes (10)");
  EXPECT_EQ(read.lines, (std::vector<std::string>{"ok"}));
}

// Buffers past 4 KiB are charged while in use: the usual 64 KiB one as the
// file goes on, a larger one while a long line needs it; all is released at
// the end. A refused charge for a long line is that line's error.
TEST(LineReaderTest, BufferGrowthIsCharged) {
  const std::string bytes = std::string(100000, 'a') + "\n" + std::string(200000, 'b') + "\nlast\n";
  int64_t charged = 0, peak = 0;
  auto reader = LineReader::FromStream(MakeMemoryInputStream(bytes, "lines.txt"),
                                       {.buffer_size = 64 << 10, .charge = [&](int64_t bytes) {
                                          charged += bytes;
                                          peak = std::max(peak, charged);
                                          return OkStatus();
                                        }});
  std::shared_ptr<const Buffer> owner;
  std::string_view line;
  std::vector<size_t> sizes;
  while (*reader->ReadLines(&line, 1, &owner) == 1) sizes.push_back(line.size());
  EXPECT_EQ(sizes, (std::vector<size_t>{100000, 200000, 4}));
  EXPECT_EQ(peak, (256 << 10) - (4 << 10)) << "the 200000-byte line needs a 256 KiB buffer";
  reader.reset();
  EXPECT_EQ(charged, 0);

  Read read = ReadAll(std::string(10000, 'z') + "\nnext\n", {.buffer_size = 4096, .charge = [](int64_t bytes) {
                                                               return bytes > 0 ? ResourceExhaustedError("no room")
                                                                                : OkStatus();
                                                             }});
  ASSERT_EQ(read.errors.size(), 1u);
  EXPECT_EQ(read.errors[0].ToString(),
            "ResourceExhausted: lines.txt: growing the read buffer to 8192 bytes for an item of 4096 bytes or more at "
            "byte offset 0: no room");
  EXPECT_EQ(read.lines, (std::vector<std::string>{"next"}));
}

// Views stay valid after the reader and later chunks are gone.
TEST(LineReaderTest, ViewsOutliveTheReader) {
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes += "line-" + std::to_string(i) + "\n";
  std::vector<std::pair<std::string_view, std::shared_ptr<const Buffer>>> kept;
  {
    auto reader = LineReader::FromStream(MakeMemoryInputStream(bytes, "mem"), {.buffer_size = 100});
    std::shared_ptr<const Buffer> owner;
    std::string_view line;
    while (true) {
      Result<size_t> n = reader->ReadLines(&line, 1, &owner);
      ASSERT_TRUE(n.ok());
      if (*n == 0) break;
      kept.emplace_back(line, owner);
    }
  }
  ASSERT_EQ(kept.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(kept[i].first, "line-" + std::to_string(i));
}

TEST(LineReaderTest, SeekResumesAtThePosition) {
  std::string bytes;
  for (int i = 0; i < 300; ++i) bytes += std::to_string(i) + "\r\n";
  for (Compression compression : {Compression::kNone, Compression::kGzip}) {
    std::string file = bytes;
    if (compression != Compression::kNone) {
      file.clear();
      auto out = MakeZlibOutputStream(MakeStringOutputStream(&file, "mem"), compression);
      ASSERT_TRUE(out->Write(bytes.data(), bytes.size()).ok());
      ASSERT_TRUE(out->Close().ok());
    }
    for (size_t skip : {0, 1, 77, 299, 300}) {
      auto reader =
          LineReader::FromStream(MakeMemoryInputStream(file, "mem"), {.compression = compression, .buffer_size = 50});
      std::shared_ptr<const Buffer> owner;
      std::string_view line;
      for (size_t i = 0; i < skip; ++i) ASSERT_EQ(*reader->ReadLines(&line, 1, &owner), 1u);
      const ItemPosition position = reader->position();
      EXPECT_EQ(position.next_item, static_cast<int64_t>(skip));
      auto resumed = LineReader::FromStream(MakeMemoryInputStream(file, "mem"), {.compression = compression});
      ASSERT_TRUE(resumed->Seek(position).ok());
      for (size_t i = skip; i < 300; ++i) {
        ASSERT_EQ(*resumed->ReadLines(&line, 1, &owner), 1u);
        EXPECT_EQ(line, std::to_string(i));
      }
      EXPECT_EQ(*resumed->ReadLines(&line, 1, &owner), 0u);
    }
  }
  auto reader = LineReader::FromStream(MakeMemoryInputStream("short\n", "mem"));
  EXPECT_EQ(reader->Seek({.offset = 100}).code(), StatusCode::kDataLoss);
}

}  // namespace
}  // namespace sluice
