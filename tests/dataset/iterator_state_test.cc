#include "sluice/dataset/iterator_state.h"

#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/iterator_state.pb.h"
#include "sluice/dataset/parse_example.h"
#include "sluice/tests/dataset/contract.h"
#include "sluice/tests/temp_dir.h"
#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice {
namespace {

using namespace ::sluice::testing;

Pipeline Ints(int64_t n) { return Pipeline::Range(n); }

// Fails on multiples of 4 (an error per element, the iterator goes on).
// Row-wise: a run (range hands them to batch) fails when any of its values
// does, and map then maps that run row by row.
Pipeline FailOnMultiplesOf4(Pipeline p) {
  return p.Map(
      [](Element e) -> Result<Element> {
        const int64_t* values = e[0].data<int64_t>();
        for (int64_t i = 0; i < e[0].NumElements(); ++i) {
          if (values[i] % 4 == 0) return InvalidArgumentError("multiple of 4: ", values[i]);
        }
        return e;
      },
      {.row_wise = true});
}

TEST(IteratorStateTest, Sources) {
  ExpectResumesEverywhere([] { return Ints(7); });
  ExpectResumesEverywhere([] { return Pipeline::Range({.start = 10, .stop = -3, .step = -4}); });
  ExpectResumesEverywhere([] {
    return Pipeline::FromSlices({{"x", Tensor::FromVector<float>({1, 2, 3, 4, 5}, Shape{5})},
                                 {"s", Tensor::FromVector<std::string>({"a", "b", "c", "d", "e"})}});
  });
  ExpectResumesEverywhere([] { return Pipeline::FromTensors({{"x", Vec({1, 2, 3})}}); });
}

TEST(IteratorStateTest, ElementwiseOps) {
  ExpectResumesEverywhere([] { return Ints(9).Map(MakeCastFunction("0", DType::kFloat32)); });
  ExpectResumesEverywhere([] { return FailOnMultiplesOf4(Ints(10)); });
  ExpectResumesEverywhere(
      [] { return Ints(12).Filter([](const Element& e) -> Result<bool> { return e[0].scalar<int64_t>() % 3 != 0; }); });
  ExpectResumesEverywhere([] { return FailOnMultiplesOf4(Ints(10)).IgnoreErrors(); });
  ExpectResumesEverywhere([] { return Ints(6).Enumerate(100); });
  ExpectResumesEverywhere([] { return Ints(10).Shard(3, 1); });
}

// A row-wise map that fails inside a run keeps the run's remaining rows;
// batch reads runs, so saves land while those rows are pending.
TEST(IteratorStateTest, MapWithPendingRowsUnderBatch) {
  ExpectResumesEverywhere([] { return FailOnMultiplesOf4(Ints(23)).Batch({.batch_size = 3}); });
  ExpectResumesEverywhere([] { return FailOnMultiplesOf4(Ints(23)).IgnoreErrors().Batch({.batch_size = 5}); });
}

// A parallel map saves the results it finished, in order, after joining
// its runner and tasks.
TEST(IteratorStateTest, ParallelMap) {
  ExpectResumesEverywhere([] {
    return FailOnMultiplesOf4(Ints(23)).Map(MakeCastFunction("0", DType::kFloat32), {.num_parallel_calls = 3});
  });
  ExpectResumesEverywhere([] {
    return Ints(30).Map([](Element e) -> Result<Element> { return e; }, {}, {.num_parallel_calls = kAutotune})
        .Batch({.batch_size = 4});
  });
}

TEST(IteratorStateTest, Shuffle) {
  ExpectResumesEverywhere([] { return Ints(20).Shuffle({.buffer_size = 6, .seed = 7}); });
  ExpectResumesEverywhere([] { return Ints(5).Shuffle({.buffer_size = 100, .seed = 7}); });
  // Each pass of the repeat reshuffles: the restored run keeps the epochs.
  ExpectResumesEverywhere([] { return Ints(6).Shuffle({.buffer_size = 4, .seed = 3}).Repeat(3); });
  ExpectResumesEverywhere(
      [] { return Ints(6).Shuffle({.buffer_size = 4, .seed = 3, .reshuffle_each_iteration = false}).Repeat(2); });
}

// Without a seed each build draws its own; a restored iterator adopts the
// saved run's, later epochs included.
TEST(IteratorStateTest, UnseededShuffleAdoptsTheSavedSeed) {
  ExpectResumesEverywhere([] { return Ints(8).Shuffle({.buffer_size = 3}).Repeat(3); });
}

TEST(IteratorStateTest, Batching) {
  ExpectResumesEverywhere([] { return Ints(10).Batch({.batch_size = 3}); });
  ExpectResumesEverywhere([] { return Ints(10).Batch({.batch_size = 3, .drop_remainder = true}); });
  ExpectResumesEverywhere([] { return Ints(10).Batch({.batch_size = 4}).Unbatch().Batch({.batch_size = 3}); });
  ExpectResumesEverywhere([] { return Ints(10).Batch({.batch_size = 4}).Unbatch(); });
  const auto ragged = [] {
    return Ints(7).Map(
        [](Element e) -> Result<Element> {
          std::vector<int64_t> values(static_cast<size_t>(e[0].scalar<int64_t>() % 3), e[0].scalar<int64_t>());
          return Element{Tensor::FromVector(values)};
        },
        {.output_spec = ElementSpec{{"", DType::kInt64, PartialShape{-1}}}});
  };
  ExpectResumesEverywhere([&] { return ragged().PaddedBatch({.batch_size = 3, .padded_shapes = {PartialShape{-1}}}); });
}

TEST(IteratorStateTest, RepeatTakeSkipChains) {
  ExpectResumesEverywhere([] { return Ints(4).Repeat(3); });
  ExpectResumesEverywhere([] { return Ints(4).Repeat().Take(11); });
  ExpectResumesEverywhere([] { return Ints(10).Skip(3).Take(4).Repeat(2); });
  ExpectResumesEverywhere([] { return Ints(10).Skip(-1).Concatenate(Ints(3)); });
  ExpectResumesEverywhere([] { return Ints(5).Take(-1).Skip(0).Batch({.batch_size = 2}).Repeat(2); });
  ExpectResumesEverywhere([] { return Ints(3).Concatenate(Ints(4).Repeat(2)); });
  ExpectResumesEverywhere([] { return Ints(5).Zip({Ints(9).Skip(2), Pipeline::Range({.start = 7, .stop = 20})}); });
}

TEST(IteratorStateTest, Interleave) {
  const auto fn = [](const Element& e) -> Result<DatasetPtr> {
    return Pipeline::Range(
               {.start = 10 * e[0].scalar<int64_t>(), .stop = 10 * e[0].scalar<int64_t>() + e[0].scalar<int64_t>()})
        .Build();
  };
  const ElementSpec spec{{"", DType::kInt64, Shape{}}};
  ExpectResumesEverywhere([&] { return Ints(6).Interleave(fn, spec, {.cycle_length = 2, .block_length = 2}); });
  ExpectResumesEverywhere([&] { return Ints(5).Interleave(fn, spec, {.cycle_length = 8, .block_length = 1}); });
}

// A parallel interleave saves each stream's read-ahead results and the
// datasets opened ahead of the cycle, after joining its workers.
TEST(IteratorStateTest, ParallelInterleave) {
  for (int64_t parallelism : {1, 2, int{kAutotune}}) {
    ExpectResumesEverywhere([parallelism] {
      return FailOnMultiplesOf4(Ints(7)).Interleave(
          [](const Element& e) -> Result<DatasetPtr> {
            const int64_t x = e[0].scalar<int64_t>();
            return FailOnMultiplesOf4(Pipeline::Range({.start = 10 * x, .stop = 10 * x + x % 4})).Build();
          },
          ElementSpec{{"", DType::kInt64, Shape{}}},
          {.cycle_length = 2, .block_length = 2, .num_parallel_calls = parallelism});
    });
  }
}

TEST(IteratorStateTest, Prefetch) {
  for (int64_t buffer_size : {int64_t{0}, int64_t{1}, int64_t{3}, kAutotune}) {
    ExpectResumesEverywhere([&] { return Ints(12).Prefetch(buffer_size); });
    // Errors sit in the buffer beside elements and keep their place.
    ExpectResumesEverywhere([&] { return FailOnMultiplesOf4(Ints(12)).Prefetch(buffer_size); });
    ExpectResumesEverywhere(
        [&] { return Ints(12).Prefetch(buffer_size).Batch({.batch_size = 5}).Prefetch(buffer_size); });
  }
}

// Saving while the producer is mid-stream, many times over one traversal.
TEST(IteratorStateTest, PrefetchSavesRepeatedlyWhileProducing) {
  const DatasetPtr dataset = Build(Ints(2000).Map(MakeCastFunction("0", DType::kFloat32)).Prefetch(16));
  auto it = dataset->MakeIterator();
  for (int round = 0; round < 40; ++round) {
    for (int i = 0; i < 7; ++i) ASSERT_TRUE(Ok(it->GetNext()).has_value());
    Result<std::string> state = SaveIteratorState(*it);
    ASSERT_TRUE(state.ok()) << state.status();
    auto resumed = dataset->MakeIterator();
    ASSERT_TRUE(RestoreIteratorState(*resumed, *state).ok());
    EXPECT_TRUE(Ok(resumed->GetNext())->Equals(*Ok(it->GetNext())));
  }
}

// Writes shard-<f>.tfrecord[.gz]: `count` Examples each with an int64
// "id" (100 * f + r) and a float pair.
std::vector<std::string> WriteExamples(const TempDir& dir, int files, int count, Compression compression) {
  std::vector<std::string> paths;
  for (int f = 0; f < files; ++f) {
    paths.push_back(StrCat(dir.path(), "/shard-", f, compression == Compression::kNone ? ".tfrecord" : ".tfrecord.gz"));
    auto writer = RecordWriter::Open(paths.back(), {.compression = compression});
    EXPECT_TRUE(writer.ok()) << writer.status();
    for (int r = 0; r < count; ++r) {
      tensorflow::Example example;
      auto& features = *example.mutable_features()->mutable_feature();
      features["id"].mutable_int64_list()->add_value(100 * f + r);
      features["x"].mutable_float_list()->add_value(f + r * 0.25f);
      features["x"].mutable_float_list()->add_value(-r);
      EXPECT_TRUE((*writer)->WriteRecord(example.SerializeAsString()).ok());
    }
    EXPECT_TRUE((*writer)->Close().ok());
  }
  return paths;
}

TEST(IteratorStateTest, TFRecordResumesAtTheNextRecord) {
  TempDir dir;
  const auto plain = WriteExamples(dir, 3, 4, Compression::kNone);
  ExpectResumesEverywhere([&] { return Pipeline::TFRecord({.files = plain}); });
  ExpectResumesEverywhere([&] { return Pipeline::TFRecord({.files = plain, .buffer_size = 0}); });
  ExpectResumesEverywhere([&] { return Pipeline::TFRecord({.files = plain, .num_parallel_reads = 2}); });
  TempDir gz_dir;
  const auto gz = WriteExamples(gz_dir, 2, 5, Compression::kGzip);
  ExpectResumesEverywhere([&] { return Pipeline::TFRecord({.files = gz, .compression = Compression::kGzip}); });
}

// A missing file is an error at its place in the sequence, saved like any other.
TEST(IteratorStateTest, TFRecordWithAMissingFile) {
  TempDir dir;
  auto files = WriteExamples(dir, 2, 3, Compression::kNone);
  files.insert(files.begin() + 1, dir.File("missing.tfrecord"));
  ExpectResumesEverywhere([&] { return Pipeline::TFRecord({.files = files}); });
}

TEST(IteratorStateTest, DemoChain) {
  TempDir dir;
  WriteExamples(dir, 3, 7, Compression::kGzip);
  const std::vector<FeatureConfig> features = {
      {.key = "id", .dtype = DType::kInt64},
      {.key = "x", .dtype = DType::kFloat32, .shape = Shape{2}},
  };
  ExpectResumesEverywhere([&] {
    return Pipeline::ListFiles({.patterns = {dir.path() + "/shard-*.tfrecord.gz"}, .seed = 1})
        .Interleave(MakeTFRecordFunction({.compression = Compression::kGzip}), {.cycle_length = 2})
        .Map(MakeParseExampleFunction("", features))
        .Shuffle({.buffer_size = 5, .seed = 42})
        .Batch({.batch_size = 4})
        .Prefetch(2);
  });
  // The same with the files unshuffled, batches parsed, and two epochs.
  ExpectResumesEverywhere([&] {
    return Pipeline::ListFiles({.patterns = {dir.path() + "/shard-*.tfrecord.gz"}, .shuffle = false})
        .Interleave(MakeTFRecordFunction({.compression = Compression::kGzip}), {.cycle_length = 3, .block_length = 2})
        .Shuffle({.buffer_size = 8, .seed = 5})
        .Repeat(2)
        .Batch({.batch_size = 3})
        .Map(MakeParseExampleFunction("", features))
        .Prefetch(kAutotune);
  });
}

TEST(IteratorStateTest, ARestoredIteratorCanBeSavedAgain) {
  const DatasetPtr dataset =
      Build(Ints(30).Shuffle({.buffer_size = 8, .seed = 1}).Batch({.batch_size = 2}).Prefetch(2));
  auto first = dataset->MakeIterator();
  for (int i = 0; i < 3; ++i) (void)first->GetNext();
  std::string state = Ok(SaveIteratorState(*first));
  auto second = dataset->MakeIterator();
  ASSERT_TRUE(RestoreIteratorState(*second, state).ok());
  (void)second->GetNext();
  (void)first->GetNext();
  state = Ok(SaveIteratorState(*second));
  auto third = dataset->MakeIterator();
  ASSERT_TRUE(RestoreIteratorState(*third, state).ok());
  ExpectSameResults(CollectResults(*third), CollectResults(*first), "third vs first");
}

TEST(IteratorStateTest, RestoringIntoAnotherPipelineFailsClearly) {
  auto it = Build(Ints(10).Shuffle({.buffer_size = 4, .seed = 1}).Batch({.batch_size = 2}))->MakeIterator();
  (void)it->GetNext();
  const std::string state = Ok(SaveIteratorState(*it));
  auto other = Build(Ints(10).Shuffle({.buffer_size = 5, .seed = 1}).Batch({.batch_size = 2}))->MakeIterator();
  Status status = RestoreIteratorState(*other, state);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("saved from a different pipeline: line 2 of its graph is "
                                  "'  shuffle(buffer_size=4, seed=1"),
            std::string::npos)
      << status;
  EXPECT_NE(status.message().find("but here it is '  shuffle(buffer_size=5, seed=1"), std::string::npos) << status;

  auto shorter = Build(Ints(10).Batch({.batch_size = 2}))->MakeIterator();
  status = RestoreIteratorState(*shorter, state);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status;
}

TEST(IteratorStateTest, DamagedStateFailsClearly) {
  const DatasetPtr dataset = Build(Ints(10).Shuffle({.buffer_size = 4, .seed = 1}).Prefetch(2));
  auto it = dataset->MakeIterator();
  (void)it->GetNext();
  const std::string state = Ok(SaveIteratorState(*it));

  ExpectStatus(RestoreIteratorState(*dataset->MakeIterator(), "not a state"), StatusCode::kDataLoss,
               "iterator state: cannot parse 11 bytes as an IteratorState");
  // Every truncation and many single-byte flips fail with a status or
  // restore something, never crash.
  for (size_t size = 0; size < state.size(); size += 3) {
    Status status = RestoreIteratorState(*dataset->MakeIterator(), state.substr(0, size));
    EXPECT_FALSE(status.ok()) << "truncated to " << size;
  }
  for (size_t i = 0; i < state.size(); i += 2) {
    std::string flipped = state;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    auto resumed = dataset->MakeIterator();
    if (RestoreIteratorState(*resumed, flipped).ok()) (void)CollectResults(*resumed, 100);
  }

  // A well-formed state with an entry out of range names it.
  state::IteratorState proto;
  ASSERT_TRUE(proto.ParseFromString(state));
  for (state::Entry& entry : *proto.mutable_entries()) {
    if (entry.key() == "prefetch/input/buffer/size") entry.set_int_value(99);
  }
  ExpectStatus(RestoreIteratorState(*dataset->MakeIterator(), proto.SerializeAsString()), StatusCode::kDataLoss,
               "iterator state: entry 'prefetch/input/buffer/size' is 99, outside [0, 4]");
  // A tensor whose shape's count wraps (2^32 * 2^32 is 0 in int64) with no
  // data is damaged, not a huge tensor over an empty buffer.
  state::IteratorState wrapped = proto;
  std::string tensor_key;
  for (state::Entry& entry : *wrapped.mutable_entries()) {
    if (entry.value_case() != state::Entry::kTensor || !tensor_key.empty()) continue;
    tensor_key = entry.key();
    entry.mutable_tensor()->clear_shape();
    entry.mutable_tensor()->add_shape(int64_t{1} << 32);
    entry.mutable_tensor()->add_shape(int64_t{1} << 32);
    entry.mutable_tensor()->clear_data();
  }
  ASSERT_FALSE(tensor_key.empty());
  Status damaged = RestoreIteratorState(*dataset->MakeIterator(), wrapped.SerializeAsString());
  EXPECT_EQ(damaged.code(), StatusCode::kDataLoss) << damaged;
  EXPECT_NE(damaged.message().find(tensor_key + "' is a damaged tensor: shape [4294967296, 4294967296] has more "
                                                "elements than fit in int64"),
            std::string::npos)
      << damaged;
  proto.set_version(kIteratorStateVersion + 1);
  ExpectStatus(RestoreIteratorState(*dataset->MakeIterator(), proto.SerializeAsString()), StatusCode::kDataLoss,
               "iterator state: format version 2, expected 1");
}

TEST(IteratorStateTest, CacheIsUnimplemented) {
  auto it = Build(Ints(4).Cache().Batch({.batch_size = 2}))->MakeIterator();
  (void)it->GetNext();
  Result<std::string> state = SaveIteratorState(*it);
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(state.status().message().find("cache:"), std::string::npos) << state.status();
}

}  // namespace
}  // namespace sluice
