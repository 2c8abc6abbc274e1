#include "sluice/dataset/tfrecord_dataset.h"

#include "sluice/dataset/parse_example.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/tests/dataset/contract.h"
#include "sluice/tests/temp_dir.h"
#include "sluice/tests/tfrecord/corpus.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice {
namespace {

using namespace ::sluice::testing;

// Writes part-<f>.tfrecord with record_counts[f] records "<f>-<r>".
std::vector<std::string> WriteFiles(const TempDir& dir, const std::vector<int>& record_counts,
                                    Compression compression = Compression::kNone) {
  std::vector<std::string> files;
  for (size_t f = 0; f < record_counts.size(); ++f) {
    files.push_back(StrCat(dir.path(), "/part-", f, ".tfrecord"));
    auto writer = RecordWriter::Open(files.back(), {.compression = compression});
    EXPECT_TRUE(writer.ok()) << writer.status();
    for (int r = 0; r < record_counts[f]; ++r) {
      EXPECT_TRUE((*writer)->WriteRecord(StrCat(f, "-", r)).ok());
    }
    EXPECT_TRUE((*writer)->Close().ok());
  }
  return files;
}

TEST(TFRecordDatasetTest, ReadsFilesOneAfterAnother) {
  for (Compression compression : {Compression::kZlib, Compression::kGzip}) {
    TempDir compressed_dir;
    const auto compressed = WriteFiles(compressed_dir, {2, 0, 3}, compression);
    ExpectProduces(Build(Pipeline::TFRecord({.files = compressed, .compression = compression})),
                   Strings({"0-0", "0-1", "2-0", "2-1", "2-2"}));
  }
  TempDir dir;
  const auto files = WriteFiles(dir, {2, 0, 3});
  ExpectProduces(Build(Pipeline::TFRecord({.files = files})),
                 Strings({"0-0", "0-1", "2-0", "2-1", "2-2"}));
  const DatasetPtr dataset = Build(Pipeline::TFRecord({.files = files}));
  EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"", DType::kString, Shape{}}}));
  EXPECT_EQ(dataset->cardinality(), kUnknownCardinality);
  ExpectRunsMatchElements(dataset, 4);
}

// tf.data's order for num_parallel_reads = N: interleave with cycle N,
// block 1; a finished file frees its slot, refilled when the cursor returns.
TEST(TFRecordDatasetTest, ParallelReadsGoRoundRobinInTfDataOrder) {
  TempDir dir;
  const auto files = WriteFiles(dir, {3, 1, 2, 2});
  ExpectProduces(Build(Pipeline::TFRecord({.files = files, .num_parallel_reads = 2})),
                 Strings({"0-0", "1-0", "0-1", "0-2", "2-0", "2-1", "3-0", "3-1"}));
  ExpectProduces(Build(Pipeline::TFRecord({.files = files, .num_parallel_reads = 8})),
                 Strings({"0-0", "1-0", "2-0", "3-0", "0-1", "2-1", "3-1", "0-2"}));
}

TEST(TFRecordDatasetTest, InvalidArguments) {
  ExpectError(Pipeline::TFRecord({}), StatusCode::kInvalidArgument, "no files");
  ExpectError(Pipeline::TFRecord({.files = {"a"}, .num_parallel_reads = 0}),
              StatusCode::kInvalidArgument, "num_parallel_reads must be >= 1");
  ExpectError(Pipeline::TFRecord({.files = {"a"}, .buffer_size = -5}), StatusCode::kInvalidArgument,
              "buffer_size");
  ExpectError(Pipeline::TFRecord({.files = {"a"}, .buffer_size = int64_t{1} << 62}), StatusCode::kInvalidArgument,
              "buffer_size must be 0 (no buffering) to 1073741824 bytes, or kAutotune, got 4611686018427387904");
  ExpectError(Pipeline::TFRecord({.files = {"a"}, .max_record_bytes = 0}), StatusCode::kInvalidArgument,
              "max_record_bytes must be 1 to 17179869184 bytes, got 0");
  ExpectError(Pipeline::TFRecord({.files = {"a"}, .max_record_bytes = int64_t{1} << 40}),
              StatusCode::kInvalidArgument, "max_record_bytes must be 1 to 17179869184 bytes");
  EXPECT_EQ(ParseCorruptRecordPolicy("skip").status().code(), StatusCode::kInvalidArgument);
}

// The default policy: the damaged record is an error naming file, record
// and offset; the rest of that file is skipped; the next file follows.
TEST(TFRecordDatasetTest, DamagedRecordFailsAndTheNextFileFollows) {
  TempDir dir;
  const auto good = WriteFiles(dir, {2});
  const std::string damaged = kCorpusDir + "derived/bad_data_crc.tfrecord";
  IteratorContext ctx;
  auto it = Build(Pipeline::TFRecord({.files = {damaged, "/nonexistent.tfrecord", good[0]}}))
                ->MakeIterator(ctx);
  std::vector<std::string> seen;
  std::vector<Status> errors;
  while (true) {
    Result<std::optional<Element>> next = it->GetNext();
    if (!next.ok()) {
      errors.push_back(next.status());
      continue;
    }
    if (!next->has_value()) break;
    seen.emplace_back((**next)[0].scalar<TString>());
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"hello world", "0-0", "0-1"}));
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].code(), StatusCode::kDataLoss);
  EXPECT_NE(errors[0].message().find("bad_data_crc.tfrecord: record 1 at byte offset 27: data CRC mismatch"),
            std::string::npos)
      << errors[0];
  EXPECT_EQ(errors[1].code(), StatusCode::kNotFound);
  EXPECT_EQ(ctx.stats->Get("tfrecord/corrupt_records"), 1);
  EXPECT_EQ(ctx.stats->Get("tfrecord/records"), 3);
}

TEST(TFRecordDatasetTest, SkipAndStopPoliciesCountWhatTheyDrop) {
  const std::vector<std::string> files = {kCorpusDir + "derived/bad_data_crc.tfrecord",
                                          kCorpusDir + "derived/trunc_in_header.tfrecord",
                                          kCorpusDir + "magenta_iterator_test.tfrecord"};
  struct Case {
    CorruptRecordPolicy policy;
    std::vector<std::string> expected;
    int64_t stopped_files;
  };
  const Case cases[] = {
      // bad_data_crc: record 1 dropped, record 2 still read; trunc_in_header: its cut header.
      {CorruptRecordPolicy::kSkipRecord, {"hello world", "success", "hello world", "hello world", "12345", "success"}, 0},
      {CorruptRecordPolicy::kStopFile, {"hello world", "hello world", "hello world", "12345", "success"}, 2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(CorruptRecordPolicyName(c.policy));
    IteratorContext ctx;
    auto it = Build(Pipeline::TFRecord({.files = files, .on_corrupt = c.policy}))->MakeIterator(ctx);
    std::vector<std::string> seen;
    while (true) {
      Result<std::optional<Element>> next = it->GetNext();
      ASSERT_TRUE(next.ok()) << next.status();
      if (!next->has_value()) break;
      seen.emplace_back((**next)[0].scalar<TString>());
    }
    EXPECT_EQ(seen, c.expected);
    EXPECT_EQ(ctx.stats->Get("tfrecord/corrupt_records"), 2);
    EXPECT_EQ(ctx.stats->Get("tfrecord/stopped_files"), c.stopped_files);
  }
}

// Runs (as batch reads them) stop before a damaged record; its error
// comes next, then the following file.
TEST(TFRecordDatasetTest, RunsEndBeforeADamagedRecord) {
  auto it = Build(Pipeline::TFRecord({.files = {kCorpusDir + "derived/bad_data_crc.tfrecord",
                                                kCorpusDir + "magenta_iterator_test.tfrecord"}}))
                ->MakeIterator();
  Result<std::optional<Element>> run = it->GetNextRun(64);
  ASSERT_TRUE(run.ok() && run->has_value()) << run.status();
  EXPECT_EQ((**run)[0].shape(), Shape{1});
  run = it->GetNextRun(64);
  EXPECT_EQ(run.status().code(), StatusCode::kDataLoss);
  run = it->GetNextRun(2);
  ASSERT_TRUE(run.ok() && run->has_value()) << run.status();
  EXPECT_EQ((**run)[0].data<TString>()[1], "12345");
  run = it->GetNextRun(64);
  ASSERT_TRUE(run.ok() && run->has_value()) << run.status();
  EXPECT_EQ((**run)[0].data<TString>()[0], "success");
  EXPECT_FALSE(Ok(it->GetNextRun(64)).has_value());
}

TEST(TFRecordDatasetTest, SpecRoundTripAndFunctionOverListedFiles) {
  TempDir dir;
  WriteFiles(dir, {2, 3}, Compression::kZlib);
  const Pipeline pipeline =
      Pipeline::ListFiles({.patterns = {dir.path() + "/part-*.tfrecord"}, .shuffle = false})
          .Interleave(MakeTFRecordFunction({.compression = Compression::kZlib}),
                      {.cycle_length = 2, .block_length = 1});
  const std::vector<Element> expected = Strings({"0-0", "1-0", "0-1", "1-1", "1-2"});
  ExpectProduces(pipeline, expected);
  const spec::Pipeline spec = Ok(DatasetToSpec(*Build(pipeline)));
  const std::string text = SpecToText(spec);
  EXPECT_NE(text.find("TFRECORD"), std::string::npos) << text;
  EXPECT_NE(text.find("compression: \"ZLIB\""), std::string::npos) << text;
  ExpectProduces(Ok(DatasetFromSpec(Ok(ParseSpecText(text)))), expected);

  const DatasetPtr direct = Build(Pipeline::TFRecord(
      {.files = {dir.path() + "/part-0.tfrecord"}, .compression = Compression::kZlib,
       .on_corrupt = CorruptRecordPolicy::kSkipRecord}));
  ExpectProduces(Ok(DatasetFromSpec(Ok(DatasetToSpec(*direct)))), Strings({"0-0", "0-1"}));
  EXPECT_EQ(MakeTFRecordFunction({.files = {"x"}}).status().code(), StatusCode::kInvalidArgument);
}

// Damaged files behind a prefetch thread: errors arrive in order, and
// ignore_errors drops them, with the rest of each damaged file.
TEST(TFRecordDatasetTest, ErrorsCrossAPrefetchThreadInOrder) {
  TempDir dir;
  const auto good = WriteFiles(dir, {3});
  const std::vector<std::string> files = {kCorpusDir + "derived/bad_length_crc.tfrecord", good[0],
                                          kCorpusDir + "derived/trunc_in_data.tfrecord", good[0]};
  const std::vector<Result<Element>> results = CollectResults(Build(Pipeline::TFRecord({.files = files}).Prefetch(2)));
  std::vector<std::string> seen;
  for (const Result<Element>& r : results) {
    seen.push_back(r.ok() ? std::string((*r)[0].scalar<TString>()) : StrCat("error: ", r.status().code() == StatusCode::kDataLoss));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"hello world", "error: 1", "0-0", "0-1", "0-2", "hello world", "error: 1",
                                            "0-0", "0-1", "0-2"}));
  ExpectProduces(Build(Pipeline::TFRecord({.files = files}).Prefetch(2).IgnoreErrors()),
                 Strings({"hello world", "0-0", "0-1", "0-2", "hello world", "0-0", "0-1", "0-2"}));
  ExpectEarlyDestructionIsClean(Build(Pipeline::TFRecord({.files = files}).Prefetch(kAutotune)), 2);
}

// Records are views of the reader's chunks, without a copy, and stay valid
// after the iterator (and its reader) and the dataset are gone.
TEST(TFRecordDatasetTest, RecordsAreViewsThatOutliveTheIterator) {
  TempDir dir;
  const auto files = WriteFiles(dir, {150, 3});
  std::vector<Element> elements, runs;
  {
    auto it = Build(Pipeline::TFRecord({.files = files, .buffer_size = 64}))->MakeIterator();
    for (int i = 0; i < 70; ++i) elements.push_back(*Ok(it->GetNext()));
    auto it2 = Build(Pipeline::TFRecord({.files = files}))->MakeIterator();
    while (std::optional<Element> run = Ok(it2->GetNextRun(64))) runs.push_back(std::move(*run));
  }
  for (int i = 0; i < 70; ++i) {
    const TString& record = elements[i][0].scalar<TString>();
    EXPECT_TRUE(record.is_view());
    EXPECT_EQ(record, StrCat("0-", i));
  }
  ASSERT_EQ(runs.size(), 3u);  // 64 + 64 + (22 + 3): runs cross files
  EXPECT_EQ(runs[2][0].shape(), Shape{25});
  EXPECT_EQ(runs[2][0].data<TString>()[24], "1-2");
  EXPECT_EQ(runs[1][0].data<TString>()[0], "0-64");
}

// GetNext reads ahead; a run asked for afterwards starts with what was read
// ahead, and the sequence is the same as element by element.
TEST(TFRecordDatasetTest, RunsAfterSingleElementsContinueInOrder) {
  TempDir dir;
  const auto files = WriteFiles(dir, {100});
  auto it = Build(Pipeline::TFRecord({.files = files}))->MakeIterator();
  std::vector<std::string> seen;
  for (int i = 0; i < 3; ++i) seen.emplace_back(Ok(it->GetNext())->components[0].scalar<TString>());
  for (int64_t max_rows : {10, 1000, 7}) {
    std::optional<Element> run = Ok(it->GetNextRun(max_rows));
    ASSERT_TRUE(run.has_value());
    EXPECT_LE((*run)[0].dim(0), max_rows);
    for (int64_t r = 0; r < (*run)[0].dim(0); ++r) seen.emplace_back((*run)[0].data<TString>()[r]);
  }
  while (std::optional<Element> next = Ok(it->GetNext())) seen.emplace_back((*next)[0].scalar<TString>());
  std::vector<std::string> expected;
  for (int i = 0; i < 100; ++i) expected.push_back(StrCat("0-", i));
  EXPECT_EQ(seen, expected);
}

TEST(TFRecordDatasetTest, EarlyDestructionIsClean) {
  TempDir dir;
  const auto files = WriteFiles(dir, {5, 5, 5});
  ExpectEarlyDestructionIsClean(Build(Pipeline::TFRecord({.files = files, .num_parallel_reads = 2})), 3);
}

// Counts beyond what can exist cost nothing: more parallel reads than files
// read every file at once, in the same order, and the read buffer is
// allocated as the file needs it, so the largest one allowed costs a small
// file little.
TEST(TFRecordDatasetTest, CountsAreBoundedByWhatExists) {
  TempDir dir;
  const auto files = WriteFiles(dir, {3, 1, 2});
  const std::vector<Element> one = Strings({"0-0", "0-1", "0-2"});
  for (const int64_t reads : {int64_t{1'000'000'000}, int64_t{1} << 62}) {
    SCOPED_TRACE(reads);
    ExpectProduces(Build(Pipeline::TFRecord({.files = {files[0]}, .num_parallel_reads = reads})), one);
    ExpectProduces(Build(Pipeline::TFRecord({.files = files, .num_parallel_reads = reads})),
                   Strings({"0-0", "1-0", "2-0", "0-1", "2-1", "0-2"}));
  }
  ExpectProduces(Build(Pipeline::TFRecord({.files = {files[0]}, .buffer_size = TFRecordOptions::kMaxBufferSize})),
                 one);
}

// A record over max_record_bytes is damage, handled by the policy (here:
// dropped, and the file goes on); the option survives a spec round trip.
TEST(TFRecordDatasetTest, RecordsOverMaxRecordBytesAreDamage) {
  TempDir dir;
  const std::string path = dir.File("long.tfrecord");
  {
    auto writer = Ok(RecordWriter::Open(path));
    ASSERT_TRUE(writer->WriteRecord("short").ok());
    ASSERT_TRUE(writer->WriteRecord(std::string(5000, 'x')).ok());
    ASSERT_TRUE(writer->WriteRecord("after").ok());
    ASSERT_TRUE(writer->Close().ok());
  }
  const TFRecordOptions options = {.files = {path}, .max_record_bytes = 1000};
  const std::vector<Result<Element>> results = CollectResults(Build(Pipeline::TFRecord(options)));
  ASSERT_EQ(results.size(), 2u);
  ExpectStatus(results[1].status(), StatusCode::kDataLoss,
               StrCat(path, ": record 1 at byte offset 21: the header declares 5000 data bytes, more than "
                            "max_record_bytes (1000); the record is skipped"));
  TFRecordOptions skip = options;
  skip.on_corrupt = CorruptRecordPolicy::kSkipRecord;
  const DatasetPtr dataset = Build(Pipeline::TFRecord(skip));
  ExpectProduces(dataset, Strings({"short", "after"}));
  const spec::Pipeline spec = Ok(DatasetToSpec(*dataset));
  EXPECT_NE(SpecToText(spec).find("max_record_bytes: 1000"), std::string::npos) << SpecToText(spec);
  ExpectProduces(Ok(DatasetFromSpec(spec)), Strings({"short", "after"}));
}

// A record larger than the read buffer is charged to the RAM budget before
// it is read: one that doesn't fit is ResourceExhausted, naming the file
// and offset, and the records after it follow; the charge ends with the read.
TEST(TFRecordDatasetTest, LargeRecordsAreChargedToTheRamBudget) {
  TempDir dir;
  const std::string path = dir.File("large.tfrecord");
  {
    auto writer = Ok(RecordWriter::Open(path));
    ASSERT_TRUE(writer->WriteRecord(std::string(300 << 10, 'a')).ok());
    ASSERT_TRUE(writer->WriteRecord(std::string(3 << 20, 'b')).ok());
    ASSERT_TRUE(writer->WriteRecord("after").ok());
    ASSERT_TRUE(writer->Close().ok());
  }
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 1 << 20});
  auto it = Build(Pipeline::TFRecord({.files = {path}, .on_corrupt = CorruptRecordPolicy::kSkipRecord}))
                ->MakeIterator(ctx);
  const std::vector<Result<Element>> results = CollectResults(*it);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(Ok(results[0])[0].scalar<TString>().size(), 300u << 10);
  EXPECT_EQ(Ok(results[1])[0].scalar<TString>(), "after");
  EXPECT_EQ(ctx.stats->Get("tfrecord/corrupt_records"), 1);
  it.reset();
  EXPECT_EQ(ctx.runtime->ram_budget().used(), 0);

  it = Build(Pipeline::TFRecord({.files = {path}}))->MakeIterator(ctx);
  const std::vector<Result<Element>> failing = CollectResults(*it);
  ASSERT_EQ(failing.size(), 2u);
  const Status& refused = failing[1].status();
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted) << refused;
  EXPECT_TRUE(refused.message().starts_with(
      StrCat(path, ": record 1 at byte offset 307216: cannot buffer its 3145728 data bytes: the RAM budget has ")))
      << refused;
  EXPECT_TRUE(refused.message().ends_with(" of its 1048576 bytes free; the record is skipped")) << refused;
}

// Endless zeros (/dev/zero: no header with a valid length CRC) end: the
// scan for a header stops after max_record_bytes + 16 bytes.
TEST(TFRecordDatasetTest, SkipRecordOverEndlessZerosEnds) {
  IteratorContext ctx;
  auto it = Build(Pipeline::TFRecord({.files = {"/dev/zero"}, .on_corrupt = CorruptRecordPolicy::kSkipRecord,
                                      .max_record_bytes = 4 << 20}))
                ->MakeIterator(ctx);
  EXPECT_FALSE(Ok(it->GetNext()).has_value());
  EXPECT_EQ(ctx.stats->Get("tfrecord/corrupt_records"), 2);
  EXPECT_EQ(ctx.stats->Get("tfrecord/skipped_bytes"), (4 << 20) + 17);
  const std::vector<Result<Element>> failing = CollectResults(Build(Pipeline::TFRecord({.files = {"/dev/zero"}})));
  ASSERT_EQ(failing.size(), 1u);
  EXPECT_EQ(failing[0].status().code(), StatusCode::kDataLoss);
  EXPECT_TRUE(failing[0].status().message().starts_with("/dev/zero: record 0 at byte offset 0: length CRC mismatch"))
      << failing[0].status();
}

// A parse error names the file and offset of the record it came from, after
// interleave and batch too: elements carry no annotation, the views do.
TEST(TFRecordDatasetTest, ParseErrorsNameTheFileAndOffsetOfTheRecord) {
  // Example{features{"x": int64_list{7}}}, and bytes that are no Example.
  const std::string valid("\x0a\x0b\x0a\x09\x0a\x01x\x12\x04\x1a\x02\x08\x07", 13);
  const std::string invalid = "\xff\xff";
  TempDir dir;
  const std::vector<std::vector<std::string>> contents = {{valid, valid, valid}, {valid, invalid}};
  for (size_t f = 0; f < contents.size(); ++f) {
    auto writer = Ok(RecordWriter::Open(StrCat(dir.path(), "/part-", f, ".tfrecord")));
    for (const std::string& record : contents[f]) ASSERT_TRUE(writer->WriteRecord(record).ok());
    ASSERT_TRUE(writer->Close().ok());
  }
  const Pipeline pipeline = Pipeline::ListFiles({.patterns = {dir.path() + "/part-*.tfrecord"}, .shuffle = false})
                                .Interleave(MakeTFRecordFunction({}), {.cycle_length = 2, .block_length = 1})
                                .Batch({.batch_size = 4})
                                .Map(MakeParseExampleFunction("", {{.key = "x"}}));
  const std::vector<Result<Element>> results = CollectResults(Build(pipeline));
  ASSERT_FALSE(results.empty());
  const Status& error = results[0].status();
  EXPECT_EQ(error.code(), StatusCode::kInvalidArgument) << error;
  EXPECT_NE(error.message().find(StrCat("(the record at byte offset 29 of ", dir.path(), "/part-1.tfrecord)")),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace sluice
