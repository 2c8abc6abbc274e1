#include <gtest/gtest.h>

#include "contract.h"
#include "function_spec_round_trip.h"
#include "ops/image_test_util.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/runtime.h"
#include "sluice/dataset/text_functions.h"
#include "sluice/ops/vocabulary.h"
#include "temp_dir.h"

namespace sluice {
namespace {

using testing::ExpectStatus;
using testing::Ok;

ElementSpec TextSpec(PartialShape shape) {
  return ElementSpec{{"text", DType::kString, std::move(shape)}, {"label", DType::kInt64, Shape{}}};
}

TEST(TextElementwiseFunctions, ToHashBucketFastDocumentationExample) {
  ElementFunctionPtr fn = Ok(MakeToHashBucketFastFunction("", 3));
  EXPECT_EQ(fn->name(), "to_hash_bucket_fast(3)");
  BoundElementFunction bound = Ok(fn->Bind(ElementSpec{{"", DType::kString, Shape{3}}}));
  EXPECT_EQ(bound.output_spec, (ElementSpec{{"", DType::kInt64, Shape{3}}}));
  EXPECT_TRUE(bound.row_wise);
  Element out = Ok(bound.apply(Element{Tensor::FromVector<std::string>({"Hello", "TensorFlow", "2.x"})}));
  EXPECT_TRUE(out[0].Equals(Tensor::FromVector<int64_t>({0, 2, 2})));
  testing::ExpectSpecRoundTrip(*fn);
}

TEST(TextElementwiseFunctions, LookupInAPipelineAndItsSpec) {
  testing::TempDir dir;
  const std::string vocab = dir.File("vocab.txt");
  testing::WriteFileBytes(vocab, "emerson\nlake\npalmer\ncrimnson\n");
  ElementFunctionPtr fn = Ok(MakeLookupFunction("text", {.vocabulary_file = vocab, .num_oov_buckets = 3}));
  EXPECT_EQ(fn->name(), StrCat("lookup(text, '", vocab, "', 4 tokens, num_oov_buckets=3)"));
  testing::ExpectSpecRoundTrip(*fn);
  const std::vector<std::string> words = {"palmer", "crimnson", "king", "tarkus", "black", "moon"};
  for (int64_t parallelism : {0, 3}) {
    SCOPED_TRACE(parallelism);
    Pipeline pipeline = Pipeline::FromSlices({{"text", Tensor::FromVector(words)},
                                              {"label", Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5})}})
                            .Map(fn, {.num_parallel_calls = parallelism})
                            .Batch({.batch_size = 6});
    DatasetPtr dataset = testing::Build(pipeline);
    EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"text", DType::kInt64, PartialShape{-1}},
                                                    {"label", DType::kInt64, PartialShape{-1}}}));
    std::vector<Element> batches = testing::Collect(dataset);
    ASSERT_EQ(batches.size(), 1u);
    EXPECT_TRUE(batches[0][0].Equals(Tensor::FromVector<int64_t>({2, 3, 5, 6, 6, 4})));
    DatasetPtr again = Ok(DatasetFromSpec(Ok(DatasetToSpec(*dataset))));
    std::vector<Element> batches_again = testing::Collect(again);
    ASSERT_EQ(batches_again.size(), 1u);
    EXPECT_TRUE(batches_again[0][0].Equals(batches[0][0]));
  }
  ElementFunctionPtr with_default =
      Ok(MakeLookupFunction("text", {.vocabulary_file = vocab, .num_oov_buckets = 0, .default_value = -5}));
  EXPECT_EQ(with_default->name(), StrCat("lookup(text, '", vocab, "', 4 tokens, num_oov_buckets=0, default_value=-5)"));
  Element out = Ok(Ok(with_default->Bind(TextSpec(Shape{2}))).apply(
      Element{Tensor::FromVector<std::string>({"lake", "tarkus"}), Tensor::Scalar<int64_t>(0)}));
  EXPECT_TRUE(out[0].Equals(Tensor::FromVector<int64_t>({1, -5})));
}

// The vocabulary's table is bytes the function holds: map charges them to
// its traversal's RAM budget while its iterator lives, and a budget too small
// for them is ResourceExhausted naming the function (and so the file) and the
// bytes, before any element is mapped.
TEST(TextElementwiseFunctions, LookupTableIsChargedToTheRamBudget) {
  testing::TempDir dir;
  const std::string vocab = dir.File("vocab.txt");
  testing::WriteFileBytes(vocab, "emerson\nlake\npalmer\n");
  const int64_t table = 3 * Vocabulary::kBytesPerToken + 20;  // 3 lines, 20 bytes of text
  ElementFunctionPtr fn = Ok(MakeLookupFunction("text", {.vocabulary_file = vocab}));
  EXPECT_EQ(Ok(fn->Bind(TextSpec(Shape{}))).held_bytes, table);
  for (int64_t parallelism : {0, 2}) {
    SCOPED_TRACE(parallelism);
    DatasetPtr dataset = testing::Build(
        Pipeline::FromSlices({{"text", Tensor::FromVector<std::string>({"lake", "king"})}})
            .Map(fn, {.num_parallel_calls = parallelism}));
    IteratorContext tight;
    tight.runtime = Runtime::Create({.ram_budget_bytes = table - 1});
    {
      auto it = dataset->MakeIterator(tight);
      Result<std::optional<Element>> first = it->GetNext();
      ASSERT_FALSE(first.ok());
      EXPECT_EQ(first.status().code(), StatusCode::kResourceExhausted) << first.status();
      EXPECT_NE(first.status().message().find(StrCat("map: ", fn->name(), " holds ", table,
                                                      " bytes while it runs, more than the RAM budget has left: ",
                                                      table - 1, " of ", table - 1, " bytes")),
                std::string::npos)
          << first.status();
      EXPECT_FALSE(Ok(it->GetNext()).has_value());  // then the end, not the same error again
    }
    IteratorContext enough;
    enough.runtime = Runtime::Create({.ram_budget_bytes = table + 4096});
    {
      auto it = dataset->MakeIterator(enough);
      EXPECT_GE(enough.runtime->ram_budget().used(), table);
      std::optional<Element> first = Ok(it->GetNext());
      ASSERT_TRUE(first.has_value());
      EXPECT_TRUE((*first)[0].Equals(Tensor::Scalar<int64_t>(1)));
    }
    EXPECT_EQ(enough.runtime->ram_budget().used(), 0);  // released with the iterator
  }
}

TEST(TextElementwiseFunctions, ErrorsNameTheFunctionAndFile) {
  testing::TempDir dir;
  const std::string vocab = dir.File("vocab.txt");
  testing::WriteFileBytes(vocab, "a\nb\na\n");
  ExpectStatus(MakeLookupFunction("text", {.vocabulary_file = vocab}).status(), StatusCode::kInvalidArgument,
               StrCat("lookup: vocabulary file '", vocab, "': line 3 repeats the token 'a' of line 1"));
  ExpectStatus(MakeLookupFunction("text", {.vocabulary_file = dir.File("missing.txt")}).status(),
               StatusCode::kNotFound, StrCat("lookup: vocabulary file '", dir.File("missing.txt"), "' does not exist"));
  Status too_large = MakeLookupFunction("text", {.vocabulary_file = vocab, .max_vocabulary_bytes = 4}).status();
  EXPECT_EQ(too_large.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(too_large.message().find("max_vocabulary_bytes"), std::string::npos) << too_large;
  ExpectStatus(MakeLookupFunction("text", {.vocabulary_file = vocab, .num_oov_buckets = -1}).status(),
               StatusCode::kInvalidArgument, "lookup: num_oov_buckets must be >= 0, got -1");
  const std::string valid = dir.File("valid.txt");
  testing::WriteFileBytes(valid, "a\nb\nc\n");
  ExpectStatus(MakeLookupFunction("text", {.vocabulary_file = valid, .num_oov_buckets = INT64_MAX}).status(),
               StatusCode::kInvalidArgument,
               "lookup: num_oov_buckets 9223372036854775807 beside 3 tokens gives ids past the int64 maximum");
  ExpectStatus(MakeToHashBucketFastFunction("text", 0).status(), StatusCode::kInvalidArgument,
               "to_hash_bucket_fast: num_buckets must be at least 1, got 0");
  ElementFunctionPtr hash = Ok(MakeToHashBucketFastFunction("label", 10));
  ExpectStatus(hash->Bind(TextSpec(Shape{})).status(), StatusCode::kInvalidArgument,
               "to_hash_bucket_fast(label, 10): component label is int64[]; expected strings");
}

}  // namespace
}  // namespace sluice
