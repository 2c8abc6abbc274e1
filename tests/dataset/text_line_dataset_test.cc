#include "sluice/dataset/text_line_dataset.h"

#include <fstream>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/tests/dataset/contract.h"
#include "sluice/tests/write_file.h"

namespace sluice {
namespace {

using namespace ::sluice::testing;

TEST(TextLineDatasetTest, ReadsTheLinesOfFilesOneAfterAnother) {
  TempDir dir;
  const std::vector<std::string> files = {WriteFile(dir, "a.txt", "a0\r\na1\n"), WriteFile(dir, "empty.txt", ""),
                                          WriteFile(dir, "b.txt", "b0\n\nb2")};
  const std::vector<Element> expected = Strings({"a0", "a1", "b0", "", "b2"});
  ExpectProduces(Pipeline::TextLine({.files = files}), expected);
  ExpectProduces(Pipeline::TextLine({.files = files, .buffer_size = 1}), expected);
  for (Compression compression : {Compression::kZlib, Compression::kGzip}) {
    const std::string packed = WriteFile(dir, "packed", "a0\r\na1\n", compression);
    ExpectProduces(Pipeline::TextLine({.files = {packed}, .compression = compression}), Strings({"a0", "a1"}));
  }
  const DatasetPtr dataset = Build(Pipeline::TextLine({.files = files}));
  EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"", DType::kString, Shape{}}}));
  EXPECT_EQ(dataset->cardinality(), kUnknownCardinality);
  for (int64_t max_rows : {1, 2, 64}) ExpectRunsMatchElements(dataset, max_rows);
}

TEST(TextLineDatasetTest, ParallelReadsGoRoundRobinInTfDataOrder) {
  TempDir dir;
  const std::vector<std::string> files = {WriteFile(dir, "0", "0-0\n0-1\n0-2\n"), WriteFile(dir, "1", "1-0\n"),
                                          WriteFile(dir, "2", "2-0\n2-1\n"), WriteFile(dir, "3", "3-0\n3-1\n")};
  ExpectProduces(Pipeline::TextLine({.files = files, .num_parallel_reads = 2}),
                 Strings({"0-0", "1-0", "0-1", "0-2", "2-0", "2-1", "3-0", "3-1"}));
  ExpectProduces(Pipeline::TextLine({.files = files, .num_parallel_reads = 8}),
                 Strings({"0-0", "1-0", "2-0", "3-0", "0-1", "2-1", "3-1", "0-2"}));
}

TEST(TextLineDatasetTest, InvalidArguments) {
  ExpectError(Pipeline::TextLine({}), StatusCode::kInvalidArgument, "text_line: no files given");
  ExpectError(Pipeline::TextLine({.files = {""}}), StatusCode::kInvalidArgument, "an empty file name");
  ExpectError(Pipeline::TextLine({.files = {"a"}, .num_parallel_reads = 0}), StatusCode::kInvalidArgument,
              "num_parallel_reads must be >= 1, got 0");
  ExpectError(Pipeline::TextLine({.files = {"a"}, .buffer_size = 0}), StatusCode::kInvalidArgument,
              "buffer_size must be 1 to 1073741824 bytes, or kAutotune, got 0");
  ExpectError(Pipeline::TextLine({.files = {"a"}, .max_line_bytes = int64_t{1} << 40}), StatusCode::kInvalidArgument,
              "max_line_bytes must be 1 to 17179869184 bytes, got 1099511627776");
  EXPECT_EQ(MakeTextLineFunction({.files = {"x"}}).status().code(), StatusCode::kInvalidArgument);
}

// A missing file and a long line are each one element's error; the lines
// after them follow, and ignore_errors drops the errors.
TEST(TextLineDatasetTest, ErrorsAreElementsAndReadingGoesOn) {
  TempDir dir;
  const std::string good = WriteFile(dir, "good.txt", "x\n" + std::string(20, 'l') + "\ny\n");
  const std::vector<std::string> files = {dir.File("missing.txt"), good};
  auto it = Build(Pipeline::TextLine({.files = files, .max_line_bytes = 8}))->MakeIterator();
  const std::vector<Result<Element>> results = CollectResults(*it);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].status().code(), StatusCode::kNotFound) << results[0].status();
  EXPECT_NE(results[0].status().message().find("missing.txt"), std::string::npos);
  EXPECT_EQ(Ok(results[1])[0].scalar<TString>(), "x");
  ExpectStatus(results[2].status(), StatusCode::kDataLoss,
               good + ": line 1 at byte offset 2 has 20 bytes, past max_line_bytes (8)");
  EXPECT_EQ(Ok(results[3])[0].scalar<TString>(), "y");
  ExpectProduces(Pipeline::TextLine({.files = files, .max_line_bytes = 8}).IgnoreErrors(), Strings({"x", "y"}));
}

// A line longer than the read buffer grows it only as far as the RAM
// budget allows: past it, that line is an error and the next one follows.
TEST(TextLineDatasetTest, LongLinesAreChargedToTheRamBudget) {
  TempDir dir;
  const std::string path = WriteFile(dir, "long.txt", "a\n" + std::string(3 << 20, 'b') + "\nafter\n");
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 1 << 20});
  auto it = Build(Pipeline::TextLine({.files = {path}}))->MakeIterator(ctx);
  const std::vector<Result<Element>> results = CollectResults(*it);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[1].status().code(), StatusCode::kResourceExhausted) << results[1].status();
  EXPECT_TRUE(results[1].status().message().starts_with(path + ": growing the read buffer to ")) << results[1].status();
  EXPECT_EQ(Ok(results[2])[0].scalar<TString>(), "after");
  it.reset();
  EXPECT_EQ(ctx.runtime->ram_budget().used(), 0);
  EXPECT_EQ(ctx.stats->Get("text_line/lines"), 2);
}

TEST(TextLineDatasetTest, ResumesEverywhere) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 150; ++i) text += "line " + std::to_string(i) + "\n";
  const std::vector<std::string> files = {WriteFile(dir, "a.gz", text, Compression::kGzip),
                                          WriteFile(dir, "b.gz", "last\n", Compression::kGzip)};
  ExpectResumesEverywhere(
      [&] { return Pipeline::TextLine({.files = files, .compression = Compression::kGzip, .buffer_size = 100}); });
  ExpectResumesEverywhere([&] {
    return Pipeline::TextLine({.files = files, .compression = Compression::kGzip, .num_parallel_reads = 2})
        .Batch({.batch_size = 7});
  });
}

TEST(TextLineDatasetTest, SpecRoundTripAndFunctionOverListedFiles) {
  TempDir dir;
  WriteFile(dir, "part-0.txt", "0-0\n0-1\n");
  WriteFile(dir, "part-1.txt", "1-0\n1-1\n1-2\n");
  const std::vector<Element> expected = Strings({"0-0", "1-0", "0-1", "1-1", "1-2"});
  const std::string text = StrCat(R"(
    ops { list_files { patterns: ")",
                                  dir.path(), R"(/part-*.txt" shuffle: false } }
    ops { interleave { cycle_length: 2 function { ops { element_source { kind: TEXT_LINE } } } } }
  )");
  const DatasetPtr from_text = Ok(DatasetFromSpec(Ok(ParseSpecText(text))));
  ExpectProduces(from_text, expected);
  ExpectProduces(Ok(DatasetFromSpec(Ok(DatasetToSpec(*from_text)))), expected);

  const DatasetPtr direct = Build(Pipeline::TextLine(
      {.files = {dir.File("part-1.txt"), dir.File("part-0.txt")}, .num_parallel_reads = 2, .max_line_bytes = 99}));
  const std::string written = SpecToText(Ok(DatasetToSpec(*direct)));
  EXPECT_NE(written.find("max_line_bytes: 99"), std::string::npos) << written;
  ExpectProduces(Ok(DatasetFromSpec(Ok(ParseSpecText(written)))), Strings({"1-0", "0-0", "1-1", "0-1", "1-2"}));
}

TEST(TextLineDatasetTest, LinesAreViewsThatOutliveTheIterator) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 1000; ++i) text += std::to_string(i) + "\n";
  const std::string path = WriteFile(dir, "n.txt", text);
  std::vector<Element> kept;
  {
    auto it = Build(Pipeline::TextLine({.files = {path}, .buffer_size = 64}))->MakeIterator();
    kept = Ok(CollectAll(*it));
  }
  ASSERT_EQ(kept.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(kept[i][0].scalar<TString>(), std::to_string(i));
}

TEST(TextLineDatasetTest, EarlyDestructionIsClean) {
  TempDir dir;
  std::string text(100000, 'x');
  for (size_t i = 0; i < text.size(); i += 10) text[i] = '\n';
  const std::vector<std::string> files = {WriteFile(dir, "a", text), WriteFile(dir, "b", text),
                                          WriteFile(dir, "c", text)};
  ExpectEarlyDestructionIsClean(Build(Pipeline::TextLine({.files = files, .num_parallel_reads = 3})), 5);
}

}  // namespace
}  // namespace sluice
