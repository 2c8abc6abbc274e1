// `sluice tfrecord inspect|verify|write` on the conformance corpus and on
// files it writes.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "sluice/tests/tools/cli_runner.h"

namespace sluice {
namespace {

const std::string kCorpus = "../shared/testdata/tfrecord/";

bool Contains(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

TEST(TFRecordCommandTest, InspectDetectsCompressionAndDecodesExamples) {
  const CliResult result = RunCli("tfrecord inspect " + kCorpus + "ydf_toy.tfrecord.gz --records 1");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.lines[1], "  compression: GZIP (detected)");
  EXPECT_EQ(result.lines[2], "  records: 3, 479 data bytes, 153-167 bytes each");
  EXPECT_EQ(result.lines[3], "  CRCs: all verified");
  EXPECT_EQ(result.lines[5],
            R"(    #0 {"Bool_1": {"int64": [0]}, "Bool_2": {"int64": [0]}, "Cat_1": {"bytes": ["A"]}, )"
            R"("Cat_2": {"bytes": ["A"]}, "Cat_3": {"float": [1]}, "Cat_set_1": {"bytes": ["x"]}, )"
            R"("Cat_set_2": {}, "Num_1": {"float": [1]}, "Num_2": {}})");
  EXPECT_TRUE(Contains(result.lines, "    Cat_set_1: bytes in 3/3 records, 1-3 value(s)"));
  EXPECT_TRUE(Contains(result.lines, "    Num_2: float|none in 3/3 records, 0-1 value(s)"));
}

TEST(TFRecordCommandTest, InspectDecodesSequenceExamples) {
  const CliResult result = RunCli("tfrecord inspect " + kCorpus + "tfx_sequence_examples.gz --records 2");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_TRUE(Contains(result.lines, "  first 2 record(s) as tf.train.SequenceExample:"));
  EXPECT_TRUE(Contains(result.lines, R"(    #1 {"context": {"f": {"float": [1]}, "i": {"int64": [1]}}, )"
                                     R"("feature_lists": {"s": [{"bytes": ["1"]}, {"bytes": ["2"]}]}})"));
  EXPECT_TRUE(Contains(result.lines, "    context/i: int64|none in 15000/15000 records, 0-1 value(s)"));
  EXPECT_TRUE(Contains(result.lines, "    lists/s: bytes in 15000/15000 records, 2 step(s)"));
}

TEST(TFRecordCommandTest, InspectSaysWhatIsNotAnExampleAndWhatIsDamaged) {
  const CliResult events = RunCli("tfrecord inspect " + kCorpus + "tfx_keras_validation.tfevents.v2");
  EXPECT_EQ(events.exit_code, 0);
  EXPECT_TRUE(Contains(events.lines, "record 0 is not a tf.train.Example or SequenceExample"));
  const CliResult damaged = RunCli("tfrecord inspect " + kCorpus + "derived/bad_length_crc.tfrecord");
  EXPECT_EQ(damaged.exit_code, 1);
  EXPECT_TRUE(Contains(damaged.lines, "record 1 at byte offset 27: length CRC mismatch"));
}

TEST(TFRecordCommandTest, VerifyExitsNonZeroOnDamage) {
  const CliResult good = RunCli("tfrecord verify '" + kCorpus + "*.gz' '" + kCorpus + "*.tfr'");
  EXPECT_EQ(good.exit_code, 0);
  EXPECT_EQ(good.lines.size(), 6u);
  EXPECT_TRUE(Contains(good.lines, "OK  " + kCorpus + "tfx_sequence_examples.gz: 15000 records"));
  const CliResult bad = RunCli("tfrecord verify '" + kCorpus + "derived/*' '" + kCorpus + "ydf_toy.tfrecord'");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(Contains(bad.lines, "OK  " + kCorpus + "ydf_toy.tfrecord: 3 records"));
  EXPECT_TRUE(Contains(bad.lines, "BAD " + kCorpus + "derived/trunc_in_footer.tfrecord"));
  EXPECT_EQ(RunCli("tfrecord verify '/nonexistent/*'").exit_code, 1);
}

TEST(TFRecordCommandTest, WriteFromCsvAndJsonLinesThenInspect) {
  const std::string csv = ::testing::TempDir() + "tfrecord_cli.csv";
  const std::string jsonl = ::testing::TempDir() + "tfrecord_cli.jsonl";
  const std::string out = ::testing::TempDir() + "tfrecord_cli.tfrecord";
  std::ofstream(csv) << "label,score,name\n1,0.5,a\n0,,\"b,c\"\n";
  std::ofstream(jsonl) << R"({"ids": [3, 4], "w": 1.5, "text": "hi"})" << "\n";
  ASSERT_EQ(RunCli("tfrecord write --input " + csv + " --output " + out + " --compression gzip").exit_code, 0);
  CliResult back = RunCli("tfrecord inspect " + out);
  EXPECT_EQ(back.lines[1], "  compression: GZIP (detected)");
  EXPECT_TRUE(Contains(back.lines, R"(#1 {"label": {"int64": [0]}, "name": {"bytes": ["b,c"]}})"));
  EXPECT_TRUE(Contains(back.lines, "    score: float in 1/2 records, 1 value(s)"));
#if !defined(__SANITIZE_THREAD__)
  // JSON lines go through protobuf's JSON parser, which Debian's libprotobuf
  // can't run in a TSan build (tests/tfrecord/corpus.h says more).
  ASSERT_EQ(RunCli("tfrecord write --input " + jsonl + " --output " + out).exit_code, 0);
  back = RunCli("tfrecord inspect " + out);
  EXPECT_TRUE(Contains(back.lines, R"(#0 {"ids": {"int64": [3, 4]}, "text": {"bytes": ["hi"]}, "w": {"float": [1.5]}})"));
#endif
  std::ofstream(csv) << "a,b\n1\n";
  const CliResult ragged = RunCli("tfrecord write --input " + csv + " --output " + out, true);
  EXPECT_EQ(ragged.exit_code, 1);
  EXPECT_TRUE(Contains(ragged.lines, "CSV line 2: 1 cells, but the header has 2"));
  EXPECT_EQ(RunCli("tfrecord frobnicate x").exit_code, 1);
  EXPECT_EQ(RunCli("tfrecord").exit_code, 2);
}

// Endless input ends: /dev/zero has no header with a valid length CRC, and
// the scan for one gives up after --max-record-bytes + 16 bytes (default
// 256 MiB), naming the range; random bytes end the same way, or at a
// "header" whose length is over the limit.
TEST(TFRecordCommandTest, VerifyEndsOnEndlessInput) {
  const CliResult zeros = RunCli("tfrecord verify /dev/zero");
  EXPECT_EQ(zeros.exit_code, 1);
  ASSERT_EQ(zeros.lines.size(), 1u);
  EXPECT_TRUE(Contains(zeros.lines, "BAD /dev/zero: 2 damaged record(s), 0 intact, 268435473 bytes skipped; first: "
                                    "DataLoss: /dev/zero: record 0 at byte offset 0: length CRC mismatch"));
  EXPECT_TRUE(Contains(zeros.lines, "last: DataLoss: /dev/zero: no valid record header in byte offsets "
                                    "[1, 268435473) after the damaged header at 0"));
  const CliResult random = RunCli("tfrecord verify /dev/urandom --max-record-bytes 1048576 --compression none");
  EXPECT_EQ(random.exit_code, 1);
  EXPECT_TRUE(Contains(random.lines, "BAD /dev/urandom: ")) << random.lines.size();
  EXPECT_EQ(RunCli("tfrecord verify /dev/zero --max-record-bytes 0").exit_code, 1);
}

// A record over --max-record-bytes is damage; the records after it are read.
TEST(TFRecordCommandTest, VerifyChecksRecordLengthsAgainstTheLimit) {
  const CliResult result = RunCli("tfrecord verify " + kCorpus + "ydf_toy.tfrecord --max-record-bytes 160");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(Contains(result.lines, "1 damaged record(s), 2 intact"));
  EXPECT_TRUE(Contains(result.lines, "record 2 at byte offset 344: the header declares 167 data bytes"));
  EXPECT_TRUE(Contains(result.lines, "more than max_record_bytes (160); the record is skipped"));
}

// A directory is an error naming it, and so is a pattern that matches
// nothing, even beside one that matches.
TEST(TFRecordCommandTest, VerifyAndWriteRejectDirectoriesAndEmptyPatterns) {
  const std::string dir = kCorpus + "derived";
  const CliResult directory = RunCli("tfrecord verify " + dir);
  EXPECT_EQ(directory.exit_code, 1);
  EXPECT_TRUE(Contains(directory.lines, "BAD " + dir + ": InvalidArgument: Cannot read " + dir +
                                            ": it is a directory, not a file"));
  const CliResult unmatched = RunCli("tfrecord verify " + kCorpus + "ydf_toy.tfrecord '" + kCorpus + "nothing*'");
  EXPECT_EQ(unmatched.exit_code, 1);
  EXPECT_TRUE(Contains(unmatched.lines, "OK  " + kCorpus + "ydf_toy.tfrecord: 3 records"));
  EXPECT_TRUE(Contains(unmatched.lines, "BAD " + kCorpus + "nothing*: NotFound"));
  const std::string out = ::testing::TempDir() + "tfrecord_cli_dir.tfrecord";
  const CliResult write = RunCli("tfrecord write --input " + dir + " --output " + out + " --format csv", true);
  EXPECT_EQ(write.exit_code, 1);
  EXPECT_TRUE(Contains(write.lines, "Cannot read " + dir + ": it is a directory, not a file"));
}

// Bytes print as one code point each: the text "0xff", the byte 0xff and
// the text "\u00ff" all differ.
TEST(TFRecordCommandTest, InspectPrintsTextAndBytesApart) {
  const std::string csv = ::testing::TempDir() + "tfrecord_cli_bytes.csv";
  const std::string out = ::testing::TempDir() + "tfrecord_cli_bytes.tfrecord";
  std::ofstream(csv) << "name\n0xff\n\xff\n\\u00ff\n\"a\"\"b\"\n";
  ASSERT_EQ(RunCli("tfrecord write --input " + csv + " --output " + out).exit_code, 0);
  const CliResult result = RunCli("tfrecord inspect " + out + " --records 4");
  EXPECT_TRUE(Contains(result.lines, R"(#0 {"name": {"bytes": ["0xff"]}})"));
  EXPECT_TRUE(Contains(result.lines, R"(#1 {"name": {"bytes": ["\u00ff"]}})"));
  EXPECT_TRUE(Contains(result.lines, R"(#2 {"name": {"bytes": ["\\u00ff"]}})"));
  EXPECT_TRUE(Contains(result.lines, R"(#3 {"name": {"bytes": ["a\"b"]}})"));
}

// Bytes after the last gzip member that aren't one: every record before
// them, then an error naming where they start.
TEST(TFRecordCommandTest, VerifyReadsEveryRecordBeforeTrailingGarbage) {
  const std::string csv = ::testing::TempDir() + "tfrecord_cli_garbage.csv";
  const std::string out = ::testing::TempDir() + "tfrecord_cli_garbage.tfrecord.gz";
  {
    std::ofstream rows(csv);
    rows << "id,text\n";
    for (int i = 0; i < 826; ++i) rows << i << "," << std::string(100 + i * 37 % 1400, 'x') << "\n";
  }
  ASSERT_EQ(RunCli("tfrecord write --input " + csv + " --output " + out + " --compression gzip").exit_code, 0);
  const auto size = std::filesystem::file_size(out);
  std::ofstream(out, std::ios::app | std::ios::binary) << std::string(3000, '\0');
  const CliResult result = RunCli("tfrecord verify " + out);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(Contains(result.lines, "1 damaged record(s), 826 intact"));
  EXPECT_TRUE(Contains(result.lines, out + ": the bytes from compressed byte " + std::to_string(size) +
                                           " on, after 1 complete GZIP member(s), are not a GZIP member"));
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

// Progress goes to stderr only on a terminal (these tests read pipes) or
// when forced, and is erased before each file's line and at the end.
TEST(TFRecordCommandTest, VerifyShowsProgressOnlyWhenStderrIsATerminalOrForced) {
  const std::string files = "'" + kCorpus + "*.gz'";
  const CliResult piped = RunCli("tfrecord verify " + files, /*capture_stderr=*/true);
  EXPECT_EQ(piped.exit_code, 0);
  EXPECT_EQ(piped.lines, Lines{});
  const CliResult forced = RunCli("tfrecord verify " + files + " --progress always", /*capture_stderr=*/true);
  EXPECT_EQ(forced.exit_code, 0);
  ASSERT_EQ(forced.lines.size(), 1u) << "one line, rewritten with \\r";
  EXPECT_NE(forced.lines[0].find("\rverify: 0/"), std::string::npos) << forced.lines[0];
  EXPECT_TRUE(forced.lines[0].ends_with(" \r")) << "erased at the end: " << forced.lines[0];
  const CliResult never = RunCli("tfrecord verify " + files + " --progress never", /*capture_stderr=*/true);
  EXPECT_EQ(never.lines, Lines{});
  EXPECT_EQ(RunCli("tfrecord verify " + files + " --progress sometimes", true).exit_code, 1);
}

TEST(TFRecordCommandTest, WriteShowsProgressWhenForced) {
  const std::string csv = ::testing::TempDir() + "progress_write.csv";
  std::ofstream(csv) << "a,b\n1,x\n2,y\n";
  const std::string out = ::testing::TempDir() + "progress_write.tfrecord";
  const CliResult forced =
      RunCli("tfrecord write --input " + csv + " --output " + out + " --progress always", /*capture_stderr=*/true);
  EXPECT_EQ(forced.exit_code, 0);
  ASSERT_EQ(forced.lines.size(), 1u);
  EXPECT_TRUE(forced.lines[0].starts_with("\rwrite: 1/2 records")) << forced.lines[0];
  EXPECT_TRUE(forced.lines[0].ends_with(" \r")) << forced.lines[0];
  const CliResult piped = RunCli("tfrecord write --input " + csv + " --output " + out, /*capture_stderr=*/true);
  EXPECT_EQ(piped.lines, Lines{});
}

}  // namespace
}  // namespace sluice
