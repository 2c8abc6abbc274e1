#include <gtest/gtest.h>

#include "contract.h"
#include "function_spec_round_trip.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/text_functions.h"
#include "sluice/ops/vocabulary.h"
#include "ops/image_test_util.h"
#include "temp_dir.h"

namespace sluice {
namespace {

using testing::ExpectStatus;
using testing::Ok;

Tensor Strings(const std::vector<std::string>& values) { return Tensor::FromVector(values); }

TEST(TextSplitFunctions, ScalarsBecomeTokenVectors) {
  ElementFunctionPtr fn = Ok(MakeSplitWhitespaceFunction("text"));
  EXPECT_EQ(fn->name(), "split_whitespace(text)");
  const ElementSpec input{{"text", DType::kString, Shape{}}, {"label", DType::kInt64, Shape{}}};
  BoundElementFunction bound = Ok(fn->Bind(input));
  EXPECT_EQ(bound.output_spec, (ElementSpec{{"text", DType::kString, PartialShape{-1}},
                                            {"label", DType::kInt64, Shape{}}}));
  EXPECT_FALSE(bound.row_wise);
  Element out = Ok(bound.apply(Element{Tensor::Scalar("a bb ccc"), Tensor::Scalar<int64_t>(7)}));
  EXPECT_TRUE(out[0].Equals(Strings({"a", "bb", "ccc"})));
  EXPECT_TRUE(out[1].Equals(Tensor::Scalar<int64_t>(7)));
  testing::ExpectSpecRoundTrip(*fn);
}

// A [N] vector gives the flat tokens and "<component>/row_lengths", as
// parse_example's VarLen features after batch().
TEST(TextSplitFunctions, VectorsGiveValuesAndRowLengths) {
  ElementFunctionPtr fn = Ok(MakeRegexSplitFunction("text", "<>"));
  EXPECT_EQ(fn->name(), "regex_split(text, '<>')");
  BoundElementFunction bound = Ok(fn->Bind(ElementSpec{{"text", DType::kString, Shape{3}}}));
  EXPECT_EQ(bound.output_spec, (ElementSpec{{"text", DType::kString, PartialShape{-1}},
                                            {"text/row_lengths", DType::kInt64, Shape{3}}}));
  Element out = Ok(bound.apply(Element{Strings({"1<>2<><>3", "", "4"})}));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].Equals(Strings({"1", "2", "3", "4"})));
  EXPECT_TRUE(out[1].Equals(Tensor::FromVector<int64_t>({3, 0, 1})));
  testing::ExpectSpecRoundTrip(*fn);
}

// BERT's basic tokenizer as tf.text builds it: lower, NFD, combining marks
// removed (regex_replace), then split at whitespace and punctuation with the
// punctuation kept; and the same after the pipeline's spec.
TEST(TextSplitFunctions, BertBasicTokenizer) {
  const std::string punctuation = "[!-/]|[:-@]|[\\[-`]|[{-~]|\\p{P}";
  ElementFunctionPtr split = Ok(MakeRegexSplitFunction("text", "\\s+|" + punctuation, punctuation));
  EXPECT_EQ(split->name(), "regex_split(text, '\\s+|" + punctuation + "', keep='" + punctuation + "')");
  ElementFunctionPtr strip = Ok(MakeRegexReplaceFunction("text", "\\p{Mn}", ""));
  EXPECT_EQ(strip->name(), "regex_replace(text, '\\p{Mn}', '')");
  const Tensor text = Strings({"Hello, World!", "\u00c7a va? (tr\u00e8s)"});
  DatasetPtr dataset = testing::Build(Pipeline::FromSlices({{"text", text}})
                                          .Map(MakeLowerFunction("text"))
                                          .Map(MakeNormalizeFunction("text", NormalizationForm::kNFD))
                                          .Map(strip)
                                          .Map(split));
  const std::vector<std::vector<std::string>> want = {{"hello", ",", "world", "!"},
                                                      {"ca", "va", "?", "(", "tres", ")"}};
  for (const DatasetPtr& d : {dataset, Ok(DatasetFromSpec(Ok(DatasetToSpec(*dataset))))}) {
    const std::vector<Element> out = testing::Collect(d);
    ASSERT_EQ(out.size(), 2u);
    for (size_t i = 0; i < 2; ++i) EXPECT_TRUE(out[i][0].Equals(Strings(want[i]))) << out[i][0].ToJson();
  }
  testing::ExpectSpecRoundTrip(*split);
  testing::ExpectSpecRoundTrip(*strip);
  testing::ExpectSpecRoundTrip(*Ok(MakeRegexReplaceFunction("", "(a)(b)", "\\2\\1", /*replace_global=*/false)));
  EXPECT_EQ(Ok(MakeRegexReplaceFunction("", "a", "b", false))->name(), "regex_replace('a', 'b', first)");
  ExpectStatus(MakeRegexReplaceFunction("text", "(a)", "\\3").status(), StatusCode::kInvalidArgument,
               "regex_replace: rewrite '\\3' for pattern '(a)': Rewrite schema requests 3 matches, but the regexp only "
               "has 1 parenthesized subexpressions.");
  ExpectStatus(MakeRegexSplitFunction("text", ",", "[").status(), StatusCode::kInvalidArgument,
               "regex_split: keep_delim_pattern: invalid pattern '[': missing ]: [");
}

// lower -> normalize -> split -> padded_batch at parallelism 1 and 3, and
// the same pipeline after its spec.
TEST(TextSplitFunctions, PipelineWithPaddedBatch) {
  const std::vector<std::string> lines = {"Caf\u00e9  AU lait", "THE\tend", "\ufb01ne"};
  for (int64_t parallelism : {0, 3}) {
    SCOPED_TRACE(parallelism);
    const MapOptions map{.num_parallel_calls = parallelism};
    Pipeline pipeline = Pipeline::FromSlices({{"text", Strings(lines)}})
                            .Map(MakeLowerFunction("text"), map)
                            .Map(MakeNormalizeFunction("text", NormalizationForm::kNFKC), map)
                            .Map(MakeSplitWhitespaceFunction("text"), map)
                            .PaddedBatch({.batch_size = 3});
    DatasetPtr dataset = testing::Build(pipeline);
    EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"text", DType::kString, PartialShape{-1, -1}}}));
    std::vector<Element> batches = testing::Collect(dataset);
    ASSERT_EQ(batches.size(), 1u);
    EXPECT_TRUE(batches[0][0].Equals(Tensor::FromVector<std::string>(
        {"caf\u00e9", "au", "lait", "the", "end", "", "fine", "", ""}, Shape{3, 3})))
        << batches[0][0].ToJson();
    DatasetPtr again = Ok(DatasetFromSpec(Ok(DatasetToSpec(*dataset))));
    std::vector<Element> batches_again = testing::Collect(again);
    ASSERT_EQ(batches_again.size(), 1u);
    EXPECT_TRUE(batches_again[0][0].Equals(batches[0][0]));
  }
}

TEST(TextSplitFunctions, ErrorsNameTheFunctionAndComponent) {
  ExpectStatus(MakeRegexSplitFunction("text", "[a").status(), StatusCode::kInvalidArgument,
               "regex_split: invalid pattern '[a': missing ]: [a");
  ElementFunctionPtr split = Ok(MakeSplitWhitespaceFunction("text"));
  ExpectStatus(split->Bind(ElementSpec{{"text", DType::kString, Shape{2, 2}}}).status(),
               StatusCode::kInvalidArgument,
               "split_whitespace(text): component text is string[2, 2]; expected a string scalar or a [N] vector "
               "of strings");
  ExpectStatus(split->Bind(ElementSpec{{"text", DType::kString, Shape{2}}, {"text/row_lengths", DType::kInt64, Shape{}}})
                   .status(),
               StatusCode::kInvalidArgument,
               "split_whitespace(text): component text's row lengths text/row_lengths are int64[]; expected an int64 "
               "vector");
  // Ill-formed UTF-8 fails that element only.
  Pipeline pipeline = Pipeline::FromSlices({{"text", Strings({"ok", "bad \xff", "fine"})}})
                          .Map(MakeSplitWhitespaceFunction("text"));
  std::vector<Result<Element>> results = testing::CollectResults(testing::Build(pipeline));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].ok());
  EXPECT_EQ(results[1].status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(results[1].status().message().find(
                "split_whitespace(text): component text: split_whitespace: string 0 is not valid UTF-8: bad byte "
                "sequence at byte offset 4"),
            std::string::npos)
      << results[1].status();
  EXPECT_TRUE(results[2].ok());
  ElementFunctionPtr normalize = Ok(MakeNormalizeFunction("", NormalizationForm::kNFD));
  EXPECT_EQ(normalize->name(), "normalize(NFD)");
  testing::ExpectSpecRoundTrip(*normalize);
  testing::ExpectSpecRoundTrip(*Ok(MakeLowerFunction("")));
}

// tf.text's WordpieceTokenizer example after split_whitespace: ids with
// offsets, and the pipeline's spec.
TEST(TextSplitFunctions, WordpieceAfterSplit) {
  testing::TempDir dir;
  const std::string vocab = dir.File("vocab.txt");
  testing::WriteFileBytes(vocab, "they\n##'\n##re\nthe\ngreat\n##est\n");
  ElementFunctionPtr fn = Ok(MakeWordpieceFunction("text", {.vocabulary_file = vocab, .with_offsets = true}));
  EXPECT_EQ(fn->name(), StrCat("wordpiece(text, '", vocab,
                               "', 6 tokens, suffix='##', max_bytes_per_word=100, unknown='[UNK]', ids, with_offsets)"));
  testing::ExpectSpecRoundTrip(*fn);
  // The table and the tokenizer's index of it, charged by map to the RAM budget.
  EXPECT_EQ(Ok(fn->Bind(ElementSpec{{"text", DType::kString, Shape{2}}})).held_bytes,
            2 * (30 + 6 * Vocabulary::kBytesPerToken));
  for (int64_t parallelism : {0, 3}) {
    SCOPED_TRACE(parallelism);
    Pipeline pipeline = Pipeline::FromSlices({{"text", Strings({"they're the greatest", "they are"})}})
                            .Map(MakeSplitWhitespaceFunction("text"), {.num_parallel_calls = parallelism})
                            .Map(fn, {.num_parallel_calls = parallelism});
    DatasetPtr dataset = testing::Build(pipeline);
    EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"text", DType::kInt64, PartialShape{-1}},
                                                    {"text/start_offsets", DType::kInt64, PartialShape{-1}},
                                                    {"text/end_offsets", DType::kInt64, PartialShape{-1}},
                                                    {"text/row_lengths", DType::kInt64, PartialShape{-1}}}));
    std::vector<Element> elements = testing::Collect(dataset);
    ASSERT_EQ(elements.size(), 2u);
    EXPECT_TRUE(elements[0][0].Equals(Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5})));
    EXPECT_TRUE(elements[0][1].Equals(Tensor::FromVector<int64_t>({0, 4, 5, 0, 0, 5})));
    EXPECT_TRUE(elements[0][2].Equals(Tensor::FromVector<int64_t>({4, 5, 7, 3, 5, 8})));
    EXPECT_TRUE(elements[0][3].Equals(Tensor::FromVector<int64_t>({3, 1, 2})));
    EXPECT_TRUE(elements[1][0].Equals(Tensor::FromVector<int64_t>({0, 6})));  // "are": [UNK], vocab size
    DatasetPtr again = Ok(DatasetFromSpec(Ok(DatasetToSpec(*dataset))));
    std::vector<Element> elements_again = testing::Collect(again);
    ASSERT_EQ(elements_again.size(), 2u);
    EXPECT_TRUE(elements_again[0][2].Equals(elements[0][2]));
  }
  ElementFunctionPtr strings = Ok(MakeWordpieceFunction("", {.vocabulary_file = vocab, .tokens = true}));
  Element out = Ok(Ok(strings->Bind(ElementSpec{{"", DType::kString, Shape{}}})).apply(Element{Tensor::Scalar("greatest")}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].Equals(Strings({"great", "##est"})));
  ExpectStatus(MakeWordpieceFunction("", {.vocabulary_file = vocab, .tokenizer = {.max_bytes_per_word = 0}}).status(),
               StatusCode::kInvalidArgument, "wordpiece: max_bytes_per_word must be in [1, 2^31 - 1], got 0");
  ExpectStatus(MakeWordpieceFunction("", {.vocabulary_file = dir.File("none.txt")}).status(), StatusCode::kNotFound,
               StrCat("wordpiece: vocabulary file '", dir.File("none.txt"), "' does not exist"));
}

// A batch split into words, then pieces, then padded: each sentence's
// pieces stay its row (tf.text's [batch, words, pieces] merged to
// [batch, pieces]), and pad_or_truncate makes them [batch, length].
TEST(TextSplitFunctions, WordpieceOverABatchKeepsEachStringsRow) {
  testing::TempDir dir;
  const std::string vocab = dir.File("vocab.txt");
  testing::WriteFileBytes(vocab, "they\n##'\n##re\nthe\ngreat\n##est\n");
  Pipeline pipeline = Pipeline::FromSlices({{"text", Strings({"they're the greatest", "", "the great"})}})
                          .Batch({.batch_size = 3})
                          .Map(MakeSplitWhitespaceFunction("text"))
                          .Map(MakeWordpieceFunction("text", {.vocabulary_file = vocab, .with_offsets = true}))
                          .Map(MakePadOrTruncateFunction("text", 5, 0, /*per_row=*/true));
  DatasetPtr dataset = testing::Build(pipeline);
  EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"text", DType::kInt64, PartialShape{-1, 5}},
                                                  {"text/mask", DType::kInt64, PartialShape{-1, 5}},
                                                  {"text/start_offsets", DType::kInt64, PartialShape{-1}},
                                                  {"text/end_offsets", DType::kInt64, PartialShape{-1}},
                                                  {"text/row_lengths", DType::kInt64, PartialShape{-1}}}));
  std::vector<Element> batches = testing::Collect(dataset);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_TRUE(batches[0][0].Equals(Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 3, 4, 0, 0, 0},
                                                               Shape{3, 5})))
      << batches[0][0].ToJson();
  EXPECT_TRUE(batches[0][1].Equals(Tensor::FromVector<int64_t>({1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0},
                                                               Shape{3, 5})));
  EXPECT_TRUE(batches[0][2].Equals(Tensor::FromVector<int64_t>({0, 4, 5, 0, 0, 5, 0, 0})));
  EXPECT_TRUE(batches[0][4].Equals(Tensor::FromVector<int64_t>({6, 0, 2})));

  // Row lengths that don't describe the words are that element's error.
  ElementFunctionPtr wordpiece = Ok(MakeWordpieceFunction("text", {.vocabulary_file = vocab}));
  BoundElementFunction bound = Ok(wordpiece->Bind(
      ElementSpec{{"text", DType::kString, PartialShape{-1}}, {"text/row_lengths", DType::kInt64, PartialShape{-1}}}));
  Result<Element> bad = bound.apply(Element{Strings({"the", "great"}), Tensor::FromVector<int64_t>({1, 2})});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument) << bad.status();
  EXPECT_NE(bad.status().message().find("row 1 has length 2, but the rows before it hold 1 of the 2 values"),
            std::string::npos)
      << bad.status();
}

}  // namespace
}  // namespace sluice
