#include "sluice/dataset/fixed_length_record_dataset.h"

#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/expression_functions.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/tests/dataset/contract.h"
#include "sluice/tests/write_file.h"

namespace sluice {
namespace {

using namespace ::sluice::testing;

// tf.data's FixedLengthRecordDataset documentation example: two files,
// each a 6-byte header, 2-byte records and a 6-byte footer.
TEST(FixedLengthRecordDatasetTest, TheTfDataDocumentationExample) {
  TempDir dir;
  const std::vector<std::string> files = {WriteFile(dir, "fixed_length0.bin", "HEADER012345FOOTER"),
                                          WriteFile(dir, "fixed_length1.bin", "HEADER6789abFOOTER")};
  const FixedLengthRecordOptions options{.files = files, .record_bytes = 2, .header_bytes = 6, .footer_bytes = 6};
  const std::vector<Element> expected = Strings({"01", "23", "45", "67", "89", "ab"});
  ExpectProduces(Pipeline::FixedLengthRecord(options), expected);
  FixedLengthRecordOptions small_buffer = options;
  small_buffer.buffer_size = 1;
  ExpectProduces(Pipeline::FixedLengthRecord(small_buffer), expected);
  for (Compression compression : {Compression::kZlib, Compression::kGzip}) {
    FixedLengthRecordOptions packed = options;
    packed.files = {WriteFile(dir, "packed", "HEADER012345FOOTER", compression)};
    packed.compression = compression;
    ExpectProduces(Pipeline::FixedLengthRecord(packed), Strings({"01", "23", "45"}));
  }
  const DatasetPtr dataset = Build(Pipeline::FixedLengthRecord(options));
  EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"", DType::kString, Shape{}}}));
  for (int64_t max_rows : {1, 2, 64}) ExpectRunsMatchElements(dataset, max_rows);
}

TEST(FixedLengthRecordDatasetTest, ParallelReadsGoRoundRobinInTfDataOrder) {
  TempDir dir;
  const std::vector<std::string> files = {WriteFile(dir, "0", "a0a1a2"), WriteFile(dir, "1", "b0"),
                                          WriteFile(dir, "2", "c0c1")};
  ExpectProduces(Pipeline::FixedLengthRecord({.files = files, .record_bytes = 2, .num_parallel_reads = 2}),
                 Strings({"a0", "b0", "a1", "a2", "c0", "c1"}));
}

TEST(FixedLengthRecordDatasetTest, InvalidArguments) {
  ExpectError(Pipeline::FixedLengthRecord({.record_bytes = 1}), StatusCode::kInvalidArgument,
              "fixed_length_record: no files given");
  ExpectError(Pipeline::FixedLengthRecord({.files = {"a"}}), StatusCode::kInvalidArgument,
              "record_bytes must be 1 to 4294967296 bytes, got 0");
  ExpectError(Pipeline::FixedLengthRecord({.files = {"a"}, .record_bytes = 1, .header_bytes = -1}),
              StatusCode::kInvalidArgument, "header_bytes must be 0 to 4611686018427387904 bytes, got -1");
  ExpectError(Pipeline::FixedLengthRecord({.files = {"a"}, .record_bytes = 1, .footer_bytes = int64_t{1} << 40}),
              StatusCode::kInvalidArgument, "footer_bytes must be 0 to 4294967296 bytes, got 1099511627776");
  ExpectError(Pipeline::FixedLengthRecord({.files = {"a"}, .record_bytes = 1, .num_parallel_reads = 0}),
              StatusCode::kInvalidArgument, "num_parallel_reads must be >= 1, got 0");
  EXPECT_EQ(MakeFixedLengthRecordFunction({.files = {"x"}, .record_bytes = 1}).status().code(),
            StatusCode::kInvalidArgument);
}

// A file of the wrong length and a missing file are each one element's
// error, and the next file follows; ignore_errors drops them.
TEST(FixedLengthRecordDatasetTest, ErrorsAreElementsAndReadingGoesOn) {
  TempDir dir;
  const std::vector<std::string> files = {WriteFile(dir, "odd.bin", "abcde"), dir.File("missing.bin"),
                                          WriteFile(dir, "good.bin", "wxyz")};
  auto it = Build(Pipeline::FixedLengthRecord({.files = files, .record_bytes = 2}))->MakeIterator();
  const std::vector<Result<Element>> results = CollectResults(*it);
  ASSERT_EQ(results.size(), 4u);
  ExpectStatus(results[0].status(), StatusCode::kInvalidArgument,
               "fixed_length_record: Excluding the header (0 bytes) and footer (0 bytes), input file \"" + files[0] +
                   "\" has body length 5 bytes, which is not an exact multiple of the record length (2 bytes).");
  EXPECT_EQ(results[1].status().code(), StatusCode::kNotFound) << results[1].status();
  EXPECT_EQ(Ok(results[2])[0].scalar<TString>(), "wx");
  EXPECT_EQ(Ok(results[3])[0].scalar<TString>(), "yz");
  ExpectProduces(Pipeline::FixedLengthRecord({.files = files, .record_bytes = 2}).IgnoreErrors(),
                 Strings({"wx", "yz"}));
}

// Records larger than the read buffer grow it only as far as the RAM
// budget allows: past it, the file is a ResourceExhausted error.
TEST(FixedLengthRecordDatasetTest, LargeRecordsAreChargedToTheRamBudget) {
  TempDir dir;
  const std::string big = WriteFile(dir, "big.bin", std::string(6 << 20, 'b'));
  const std::string small = WriteFile(dir, "small.bin", "after!");
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 1 << 20});
  auto it = Build(Pipeline::FixedLengthRecord({.files = {big, small}, .record_bytes = 3 << 20}))->MakeIterator(ctx);
  const std::vector<Result<Element>> results = CollectResults(*it);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status().code(), StatusCode::kResourceExhausted) << results[0].status();
  EXPECT_FALSE(results[1].ok()) << "a 6-byte file of 3 MiB records";
  it.reset();
  EXPECT_EQ(ctx.runtime->ram_budget().used(), 0);
}

TEST(FixedLengthRecordDatasetTest, ResumesEverywhere) {
  TempDir dir;
  std::string body;
  for (int i = 0; i < 150; ++i) body += StrCat(i % 10, i % 7, i % 3);
  const std::vector<std::string> files = {WriteFile(dir, "a.gz", "HDR" + body + "F", Compression::kGzip),
                                          WriteFile(dir, "b.gz", "HDRxyzF", Compression::kGzip)};
  const FixedLengthRecordOptions options{.files = files,
                                         .record_bytes = 3,
                                         .header_bytes = 3,
                                         .footer_bytes = 1,
                                         .compression = Compression::kGzip,
                                         .buffer_size = 100};
  ExpectResumesEverywhere([&] { return Pipeline::FixedLengthRecord(options); });
  FixedLengthRecordOptions parallel = options;
  parallel.num_parallel_reads = 2;
  ExpectResumesEverywhere([&] { return Pipeline::FixedLengthRecord(parallel).Batch({.batch_size = 7}); });
}

// list_files -> interleave(FIXED_LENGTH_RECORD) from a spec, written back
// and read again; then CIFAR-10's record layout decoded with decode_raw.
TEST(FixedLengthRecordDatasetTest, SpecRoundTripAndDecodedRecords) {
  TempDir dir;
  WriteFile(dir, "part-0.bin",
            std::string("\x01"
                        "abc"
                        "\x02"
                        "def",
                        8));
  WriteFile(dir, "part-1.bin",
            std::string("\x03"
                        "ghi",
                        4));
  const std::string text = StrCat(R"(
    ops { list_files { patterns: ")",
                                  dir.path(), R"(/part-*.bin" shuffle: false } }
    ops { interleave { cycle_length: 2 function { ops { element_source {
      kind: FIXED_LENGTH_RECORD fixed_length_record { record_bytes: 4 } } } } } }
    ops { map { fn { decode_raw { dtype: "uint8" fixed_length: 4 } } } }
  )");
  const DatasetPtr from_text = Ok(DatasetFromSpec(Ok(ParseSpecText(text))));
  EXPECT_EQ(from_text->element_spec(), (ElementSpec{{"", DType::kUInt8, Shape{4}}}));
  const std::vector<Element> expected = {Element{Tensor::FromVector<uint8_t>({1, 'a', 'b', 'c'}, Shape{4})},
                                         Element{Tensor::FromVector<uint8_t>({3, 'g', 'h', 'i'}, Shape{4})},
                                         Element{Tensor::FromVector<uint8_t>({2, 'd', 'e', 'f'}, Shape{4})}};
  ExpectProduces(from_text, expected);
  ExpectProduces(Ok(DatasetFromSpec(Ok(DatasetToSpec(*from_text)))), expected);

  const DatasetPtr direct = Build(Pipeline::FixedLengthRecord(
      {.files = {dir.File("part-0.bin")}, .record_bytes = 4, .header_bytes = 0, .footer_bytes = 0}));
  const std::string written = SpecToText(Ok(DatasetToSpec(*direct)));
  EXPECT_NE(written.find("record_bytes: 4"), std::string::npos) << written;
  ExpectProduces(Ok(DatasetFromSpec(Ok(ParseSpecText(written)))), Strings({"\x01"
                                                                           "abc",
                                                                           "\x02"
                                                                           "def"}));

  // The label byte and the pixels, as a CIFAR-10 pipeline splits them.
  const DatasetPtr split = Build(Pipeline::FixedLengthRecord({.files = {dir.File("part-0.bin")}, .record_bytes = 4})
                                     .Map(MakeDecodeRawFunction("", {.dtype = DType::kUInt8, .fixed_length = 4}))
                                     .Map(MakeExpressionFunction({{"label", "cast(slice(`0`, 0, 0, 1), int64)"},
                                                                  {"pixels", "slice(`0`, 0, 1)"}})));
  ExpectProduces(
      split,
      {Element{Tensor::FromVector<int64_t>({1}, Shape{1}), Tensor::FromVector<uint8_t>({'a', 'b', 'c'}, Shape{3})},
       Element{Tensor::FromVector<int64_t>({2}, Shape{1}), Tensor::FromVector<uint8_t>({'d', 'e', 'f'}, Shape{3})}});
}

TEST(FixedLengthRecordDatasetTest, EarlyDestructionIsClean) {
  TempDir dir;
  const std::string body(100000, 'x');
  const std::vector<std::string> files = {WriteFile(dir, "a", body), WriteFile(dir, "b", body),
                                          WriteFile(dir, "c", body)};
  ExpectEarlyDestructionIsClean(
      Build(Pipeline::FixedLengthRecord({.files = files, .record_bytes = 10, .num_parallel_reads = 3})), 5);
}

}  // namespace
}  // namespace sluice
