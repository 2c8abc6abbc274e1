// `sluice tfrecord inspect|verify|write` on the conformance corpus and on
// files it writes.

#include <algorithm>
#include <fstream>

#include "tests/tools/cli_runner.h"

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

}  // namespace
}  // namespace sluice
