#include "sluice/service/split_provider.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/tfrecord/record_writer.h"
#include "temp_dir.h"

namespace sluice::service {
namespace {

spec::Pipeline Spec(std::string_view text) {
  Result<spec::Pipeline> pipeline = ParseSpecText(text);
  EXPECT_TRUE(pipeline.ok()) << pipeline.status();
  return *pipeline;
}

// Every element of a dataset, printed.
std::vector<std::string> Elements(const DatasetPtr& dataset) {
  std::vector<std::string> out;
  auto it = dataset->MakeIterator();
  for (;;) {
    Result<std::optional<Element>> next = it->GetNext();
    EXPECT_TRUE(next.ok()) << next.status();
    if (!next.ok() || !next->has_value()) return out;
    out.push_back((*next)->DebugString());
  }
}

std::vector<std::string> LocalElements(const spec::Pipeline& pipeline) {
  Result<DatasetPtr> dataset = DatasetFromSpec(pipeline);
  EXPECT_TRUE(dataset.ok()) << dataset.status();
  return Elements(*dataset);
}

// The elements of every split, in split order.
std::vector<std::string> SplitElements(const spec::Pipeline& pipeline, ProcessingMode mode,
                                       const std::vector<SourceSplit>& splits) {
  std::vector<std::string> out;
  int64_t split_id = 0;
  for (const SourceSplit& split : splits) {
    Result<DatasetPtr> dataset = MakeSplitDataset(pipeline, mode, split, split_id++);
    EXPECT_TRUE(dataset.ok()) << SplitDebugString(split) << ": " << dataset.status();
    if (!dataset.ok()) continue;
    std::vector<std::string> elements = Elements(*dataset);
    out.insert(out.end(), elements.begin(), elements.end());
  }
  return out;
}

std::vector<std::string> Sorted(std::vector<std::string> values) {
  std::sort(values.begin(), values.end());
  return values;
}

TEST(SplitProviderTest, RangeSplitsAreConsecutiveRowRanges) {
  const spec::Pipeline pipeline = Spec("ops { range { start: 0 stop: 10 } }");
  Result<std::vector<SourceSplit>> splits =
      ListSplits(pipeline, ProcessingMode::kDistributedEpoch, 1, {.rows_per_split = 3});
  ASSERT_TRUE(splits.ok()) << splits.status();
  ASSERT_EQ(splits->size(), 4u);
  EXPECT_EQ((*splits)[0], (SourceSplit{.kind = SourceSplit::Kind::kRows, .begin = 0, .end = 3}));
  EXPECT_EQ((*splits)[3], (SourceSplit{.kind = SourceSplit::Kind::kRows, .begin = 9, .end = 10}));
}

TEST(SplitProviderTest, SplitPipelineYieldsExactlyItsElements) {
  const spec::Pipeline pipeline = Spec("ops { range { start: 5 stop: -6 step: -2 } }");  // 5 3 1 -1 -3 -5
  Result<DatasetPtr> split = MakeSplitDataset(pipeline, ProcessingMode::kDistributedEpoch,
                                              {.kind = SourceSplit::Kind::kRows, .begin = 2, .end = 5}, 0);
  ASSERT_TRUE(split.ok()) << split.status();
  std::vector<std::string> expected;
  for (int64_t v : {1, -1, -3}) expected.push_back(Element({Tensor::Scalar<int64_t>(v)}).DebugString());
  EXPECT_EQ(Elements(*split), expected);
}

TEST(SplitProviderTest, UnionOfRangeSplitsIsTheLocalPipeline) {
  const spec::Pipeline pipeline = Spec(R"(
    ops { range { start: 0 stop: 100 } }
    ops { map { fn { scale_shift { scale: 2 shift: 1 } } } }
    ops { filter { predicate { comparison: GREATER value: 20 } } }
    ops { batch { batch_size: 4 } }
    ops { unbatch {} })");
  Result<std::vector<SourceSplit>> splits = ListSplits(pipeline, ProcessingMode::kDistributedEpoch);
  ASSERT_TRUE(splits.ok()) << splits.status();
  EXPECT_EQ(splits->size(), 50u);  // 100 rows, kDefaultSplitsPerSource = 64: 2 rows each
  EXPECT_EQ(Sorted(SplitElements(pipeline, ProcessingMode::kDistributedEpoch, *splits)),
            Sorted(LocalElements(pipeline)));
}

TEST(SplitProviderTest, FromSlicesSplitsSliceEveryComponent) {
  const spec::Pipeline pipeline = Spec(R"(
    ops { from_slices {
      components { name: "x" tensor { dtype: "float32" shape: [5, 2] float_values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] } }
      components { name: "y" tensor { dtype: "string" shape: [5] string_values: ["a", "b", "c", "d", "e"] } } } })");
  Result<std::vector<SourceSplit>> splits =
      ListSplits(pipeline, ProcessingMode::kDistributedEpoch, 1, {.rows_per_split = 2});
  ASSERT_TRUE(splits.ok()) << splits.status();
  ASSERT_EQ(splits->size(), 3u);
  EXPECT_EQ(SplitElements(pipeline, ProcessingMode::kDistributedEpoch, *splits), LocalElements(pipeline));
}

TEST(SplitProviderTest, FileSplitsOfListFilesAndTFRecord) {
  testing::TempDir dir;
  std::vector<std::string> files;
  for (int f = 0; f < 3; ++f) {
    files.push_back(dir.File("part-" + std::to_string(f) + ".tfrecord"));
    auto writer = RecordWriter::Open(files.back());
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (int r = 0; r < 4; ++r)
      ASSERT_TRUE((*writer)->WriteRecord("f" + std::to_string(f) + "r" + std::to_string(r)).ok());
    ASSERT_TRUE((*writer)->Close().ok());
  }
  const spec::Pipeline listed = Spec("ops { list_files { patterns: '" + dir.path() +
                                     "/part-*' shuffle: false } }"
                                     "ops { interleave { function { ops { element_source { kind: TFRECORD } } } "
                                     "cycle_length: 2 } }"
                                     "ops { batch { batch_size: 3 } }");
  Result<std::vector<SourceSplit>> splits = ListSplits(listed, ProcessingMode::kDistributedEpoch);
  ASSERT_TRUE(splits.ok()) << splits.status();
  ASSERT_EQ(splits->size(), 3u);
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ((*splits)[i], (SourceSplit{.kind = SourceSplit::Kind::kFile, .file = files[i]}));
  }
  // Batches stay within a file: 4 records make a batch of 3 and one of 1.
  EXPECT_EQ(SplitElements(listed, ProcessingMode::kDistributedEpoch, *splits).size(), 6u);

  spec::Pipeline records = Spec("ops { tfrecord { } }");
  for (const std::string& file : files) records.mutable_ops(0)->mutable_tfrecord()->add_files(file);
  Result<std::vector<SourceSplit>> record_splits = ListSplits(records, ProcessingMode::kDistributedEpoch);
  ASSERT_TRUE(record_splits.ok()) << record_splits.status();
  EXPECT_EQ(*record_splits, *splits);
  EXPECT_EQ(SplitElements(records, ProcessingMode::kDistributedEpoch, *record_splits), LocalElements(records));

  // More files than the split cap: refused, list_files' listing stopped at the cap.
  for (const spec::Pipeline& pipeline : {listed, records}) {
    EXPECT_TRUE(ListSplits(pipeline, ProcessingMode::kDistributedEpoch, 1, {}, /*max_splits=*/3).ok());
    Result<std::vector<SourceSplit>> refused = ListSplits(pipeline, ProcessingMode::kDistributedEpoch, 1, {}, 2);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted) << refused.status();
    EXPECT_NE(refused.status().message().find("more"), std::string::npos) << refused.status();
  }
}

// text_line, csv and fixed_length_record sources split by file, as tfrecord does.
TEST(SplitProviderTest, FileSplitsOfTextLineCsvAndFixedLengthRecord) {
  testing::TempDir dir;
  std::vector<std::string> files;
  for (int f = 0; f < 3; ++f) {
    files.push_back(dir.File("part-" + std::to_string(f) + ".csv"));
    std::ofstream(files.back()) << f << ",a\n" << f << ",b\n";
  }
  for (const char* source : {"text_line { }",
                             "csv { record_defaults { dtype: 'int64' int_values: 0 } "
                             "record_defaults { dtype: 'string' string_values: '' } }",
                             "fixed_length_record { record_bytes: 4 }"}) {
    spec::Pipeline pipeline = Spec(StrCat("ops { ", source, " } ops { batch { batch_size: 3 } }"));
    for (const std::string& file : files) {
      spec::DatasetNode& node = *pipeline.mutable_ops(0);
      auto* listed = node.has_csv()                   ? node.mutable_csv()->mutable_files()
                     : node.has_fixed_length_record() ? node.mutable_fixed_length_record()->mutable_files()
                                                      : node.mutable_text_line()->mutable_files();
      *listed->Add() = file;
    }
    Result<std::vector<SourceSplit>> splits = ListSplits(pipeline, ProcessingMode::kDistributedEpoch);
    ASSERT_TRUE(splits.ok()) << splits.status();
    ASSERT_EQ(splits->size(), 3u) << source;
    EXPECT_EQ((*splits)[1], (SourceSplit{.kind = SourceSplit::Kind::kFile, .file = files[1]}));
    // Each file's 2 rows are a batch of their own.
    EXPECT_EQ(SplitElements(pipeline, ProcessingMode::kDistributedEpoch, *splits).size(), 3u) << source;
    Result<std::vector<SourceSplit>> refused = ListSplits(pipeline, ProcessingMode::kDistributedEpoch, 1, {}, 2);
    EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted) << source;
  }
}

TEST(SplitProviderTest, StaticShardsPartitionTheLocalPipeline) {
  const spec::Pipeline pipeline = Spec("ops { range { stop: 23 } } ops { batch { batch_size: 2 } }");
  Result<std::vector<SourceSplit>> splits = ListSplits(pipeline, ProcessingMode::kStaticSharding, 3);
  ASSERT_TRUE(splits.ok()) << splits.status();
  ASSERT_EQ(splits->size(), 3u);
  EXPECT_EQ((*splits)[2], (SourceSplit{.kind = SourceSplit::Kind::kShard, .shard_index = 2, .num_shards = 3}));
  // Unbatched, the shards hold every element once.
  spec::Pipeline unbatched = pipeline;
  unbatched.add_ops()->mutable_unbatch();
  EXPECT_EQ(Sorted(SplitElements(unbatched, ProcessingMode::kStaticSharding, *splits)),
            Sorted(LocalElements(unbatched)));
  EXPECT_FALSE(ListSplits(pipeline, ProcessingMode::kStaticSharding, 0).ok());
}

// labelled_files is split into shards of its listing: every split holds
// files of every class, runs the same way each time (its shuffle seeded by
// the split), and the splits together hold every file once, also of a
// source that is itself a shard; static sharding shards the source itself.
TEST(SplitProviderTest, LabelledFilesSplitsDealTheListing) {
  testing::TempDir dir;
  for (const char* name : {"a/0", "a/1", "a/2", "a/3", "a/4", "b/0", "b/1", "b/2", "b/3"}) {
    std::filesystem::create_directories(std::filesystem::path(dir.File(name)).parent_path());
    std::ofstream(dir.File(name)) << name;
  }
  const spec::Pipeline pipeline = Spec(StrCat("ops { labelled_files { directory: \"", dir.path(), "\" } }"));
  const auto labels = [](const spec::Pipeline& p, const SourceSplit& split) {
    std::vector<int64_t> out;
    Result<DatasetPtr> dataset = MakeSplitDataset(p, ProcessingMode::kDistributedEpoch, split, 0);
    EXPECT_TRUE(dataset.ok()) << dataset.status();
    for (auto it = (*dataset)->MakeIterator();;) {
      Result<std::optional<Element>> next = it->GetNext();
      if (!next.ok() || !next->has_value()) return out;
      out.push_back((**next)[1].scalar<int64_t>());
    }
  };

  Result<std::vector<SourceSplit>> splits = ListSplits(pipeline, ProcessingMode::kDistributedEpoch);
  ASSERT_TRUE(splits.ok()) << splits.status();
  ASSERT_EQ(splits->size(), 9u);  // one file each: fewer files than kDefaultSplitsPerSource
  EXPECT_EQ((*splits)[4], (SourceSplit{.kind = SourceSplit::Kind::kShard, .shard_index = 4, .num_shards = 9}));
  EXPECT_EQ(Sorted(SplitElements(pipeline, ProcessingMode::kDistributedEpoch, *splits)),
            Sorted(LocalElements(pipeline)));

  splits = ListSplits(pipeline, ProcessingMode::kDistributedEpoch, 1, {.rows_per_split = 4});
  ASSERT_TRUE(splits.ok()) << splits.status();
  ASSERT_EQ(splits->size(), 3u);
  EXPECT_EQ(Sorted(SplitElements(pipeline, ProcessingMode::kDistributedEpoch, *splits)),
            Sorted(LocalElements(pipeline)));
  for (const SourceSplit& split : *splits) {
    const std::vector<int64_t> first = labels(pipeline, split);
    EXPECT_EQ(first.size(), 3u) << SplitDebugString(split);
    EXPECT_GE(std::count(first.begin(), first.end(), 0), 1) << SplitDebugString(split);
    EXPECT_GE(std::count(first.begin(), first.end(), 1), 1) << SplitDebugString(split);
    // A split run again (built anew, as a worker does) yields the same sequence.
    std::vector<std::vector<std::string>> runs;
    for (int run = 0; run < 2; ++run) {
      Result<DatasetPtr> dataset = MakeSplitDataset(pipeline, ProcessingMode::kDistributedEpoch, split, 0);
      ASSERT_TRUE(dataset.ok()) << dataset.status();
      runs.push_back(Elements(*dataset));
    }
    EXPECT_EQ(runs[0], runs[1]) << SplitDebugString(split);
    Result<spec::Pipeline> split_spec = SplitPipelineSpec(pipeline, ProcessingMode::kDistributedEpoch, split, 0);
    ASSERT_TRUE(split_spec.ok()) << split_spec.status();
    EXPECT_EQ(split_spec->ops_size(), 1);  // no shard op: the source reads only its files
  }

  // A source that is shard 1 of 2 (positions 1, 3, 5, 7), split in two.
  spec::Pipeline half = pipeline;
  half.mutable_ops(0)->mutable_labelled_files()->set_num_shards(2);
  half.mutable_ops(0)->mutable_labelled_files()->set_shard_index(1);
  splits = ListSplits(half, ProcessingMode::kDistributedEpoch, 1, {.rows_per_split = 2});
  ASSERT_TRUE(splits.ok()) << splits.status();
  ASSERT_EQ(splits->size(), 2u);
  EXPECT_EQ(Sorted(SplitElements(half, ProcessingMode::kDistributedEpoch, *splits)), Sorted(LocalElements(half)));

  splits = ListSplits(pipeline, ProcessingMode::kStaticSharding, 2);
  ASSERT_TRUE(splits.ok()) << splits.status();
  EXPECT_EQ(Sorted(SplitElements(pipeline, ProcessingMode::kStaticSharding, *splits)), Sorted(LocalElements(pipeline)));
  Result<spec::Pipeline> shard_spec = SplitPipelineSpec(pipeline, ProcessingMode::kStaticSharding, (*splits)[1], 0);
  ASSERT_TRUE(shard_spec.ok()) << shard_spec.status();
  EXPECT_EQ(shard_spec->ops_size(), 1);
  EXPECT_EQ(shard_spec->ops(0).labelled_files().shard_index(), 1);

  const Result<std::vector<SourceSplit>> capped =
      ListSplits(pipeline, ProcessingMode::kDistributedEpoch, 1, {.rows_per_split = 1}, 5);
  ASSERT_FALSE(capped.ok());
  EXPECT_EQ(capped.status().code(), StatusCode::kResourceExhausted) << capped.status();
}

TEST(SplitProviderTest, ParallelEpochsRunTheWholeSpec) {
  const spec::Pipeline pipeline = Spec("ops { range { stop: 7 } } ops { repeat { count: 2 } }");
  Result<std::vector<SourceSplit>> splits = ListSplits(pipeline, ProcessingMode::kParallelEpochs);
  ASSERT_TRUE(splits.ok()) << splits.status();
  ASSERT_EQ(splits->size(), 1u);
  EXPECT_EQ(SplitElements(pipeline, ProcessingMode::kParallelEpochs, *splits), LocalElements(pipeline));
}

TEST(SplitProviderTest, RepeatBecomesEpochs) {
  EXPECT_EQ(EpochCount(Spec("ops { range { stop: 3 } }")), 1);
  EXPECT_EQ(EpochCount(Spec("ops { range { stop: 3 } } ops { repeat { count: 2 } } ops { repeat { count: 3 } }")), 6);
  EXPECT_EQ(EpochCount(Spec("ops { range { stop: 3 } } ops { repeat { } }")), -1);
  const spec::Pipeline pipeline = Spec("ops { range { stop: 4 } } ops { repeat { count: 5 } }");
  Result<DatasetPtr> split = MakeSplitDataset(pipeline, ProcessingMode::kDistributedEpoch,
                                              {.kind = SourceSplit::Kind::kRows, .begin = 0, .end = 4}, 0);
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ(Elements(*split).size(), 4u);  // one epoch per split
}

// A job's seeds (its consumer's): each iterator of a dataset makes a job of
// its own iteration, so a shuffle draws anew in every epoch, as a local
// pipeline's does; a shuffle the spec gives no seed draws from the job's
// seed too (random per dataset unless fixed), one it gives a seed does not
// (its runs repeat), and one that keeps its order across epochs keeps it
// across iterations.
TEST(SplitProviderTest, EachIterationOfAJobDrawsAnewFromItsSeeds) {
  const spec::Pipeline pipeline = Spec(
      "ops { range { stop: 64 } } ops { shuffle { buffer_size: 64 } } ops { shuffle { buffer_size: 8 seed: 3 } } "
      "ops { shuffle { buffer_size: 8 reshuffle_each_iteration: false seed: 5 } }");
  const SourceSplit split{.kind = SourceSplit::Kind::kRows, .begin = 0, .end = 64};
  const auto spec_of = [&](JobSeeds seeds) {
    Result<spec::Pipeline> split_spec =
        SplitPipelineSpec(pipeline, ProcessingMode::kDistributedEpoch, split, 0, seeds);
    EXPECT_TRUE(split_spec.ok()) << split_spec.status();
    return split_spec.ok() ? *split_spec : spec::Pipeline();
  };
  const auto seeds_of = [&](JobSeeds seeds) {
    const spec::Pipeline p = spec_of(seeds);
    return std::vector<uint64_t>{p.ops(1).shuffle().seed(), p.ops(2).shuffle().seed(), p.ops(3).shuffle().seed()};
  };
  const std::vector<uint64_t> first = seeds_of({.seed = 11, .iteration = 0});
  const std::vector<uint64_t> second = seeds_of({.seed = 11, .iteration = 1});
  const std::vector<uint64_t> other_run = seeds_of({.seed = 12, .iteration = 0});
  EXPECT_EQ(seeds_of({.seed = 11, .iteration = 1}), second) << "the same seeds, the same job";
  EXPECT_NE(first[0], second[0]);
  EXPECT_NE(first[1], second[1]);
  EXPECT_EQ(first[2], second[2]) << "reshuffle_each_iteration: false keeps its order";
  EXPECT_NE(first[0], other_run[0]) << "an unseeded shuffle draws from the job's seed";
  EXPECT_EQ(first[1], other_run[1]) << "a seeded one does not";
  EXPECT_EQ(first[2], other_run[2]);
  Result<DatasetPtr> a = MakeSplitDataset(pipeline, ProcessingMode::kDistributedEpoch, split, 0, {11, 0});
  Result<DatasetPtr> b = MakeSplitDataset(pipeline, ProcessingMode::kDistributedEpoch, split, 0, {11, 1});
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
  const std::vector<std::string> epoch0 = Elements(*a), epoch1 = Elements(*b);
  EXPECT_NE(epoch0, epoch1);
  EXPECT_EQ(Sorted(epoch0), Sorted(epoch1));
}

// A split runs the same way every time (so that a re-run one is
// deduplicated by element index), and each split and each epoch draws anew:
// every seed is drawn from the split and its epoch (mixed with the seed the
// spec gives), and parallel ops run deterministic; a shuffle that keeps its
// order across epochs draws from the split alone.
TEST(SplitProviderTest, SplitsRunTheSameWayEveryTimeAndDrawAnewEachEpoch) {
  const spec::Pipeline pipeline = Spec(
      "seed: 7 ops { range { stop: 256 } } ops { shuffle { buffer_size: 64 } } "
      "ops { map { fn { scale_shift { scale: 2 shift: 1 } } num_parallel_calls: 4 deterministic: false } } "
      "ops { shuffle { buffer_size: 8 seed: 3 } } "
      "ops { shuffle { buffer_size: 8 reshuffle_each_iteration: false } } ops { repeat { count: 2 } }");
  Result<std::vector<SourceSplit>> splits =
      ListSplits(pipeline, ProcessingMode::kDistributedEpoch, 1, {.rows_per_split = 128});
  ASSERT_TRUE(splits.ok()) << splits.status();
  ASSERT_EQ(splits->size(), 2u);
  const auto run = [&](int64_t split_id) {
    Result<DatasetPtr> dataset =
        MakeSplitDataset(pipeline, ProcessingMode::kDistributedEpoch, (*splits)[split_id % 2], split_id);
    EXPECT_TRUE(dataset.ok()) << dataset.status();
    return dataset.ok() ? Elements(*dataset) : std::vector<std::string>();
  };
  const std::vector<std::string> first = run(0);
  ASSERT_EQ(first.size(), 128u);
  EXPECT_EQ(run(0), first);
  EXPECT_EQ(run(3), run(3));
  const std::vector<std::string> next_epoch = run(2);  // split 0 of the second epoch
  EXPECT_NE(next_epoch, first);
  EXPECT_EQ(Sorted(next_epoch), Sorted(first));

  const auto spec_of = [&](int64_t split_id) {
    Result<spec::Pipeline> split_spec =
        SplitPipelineSpec(pipeline, ProcessingMode::kDistributedEpoch, (*splits)[split_id % 2], split_id);
    EXPECT_TRUE(split_spec.ok()) << split_spec.status();
    return split_spec.ok() ? *split_spec : spec::Pipeline();
  };
  const spec::Pipeline split0 = spec_of(0), split1 = spec_of(1), split0_again = spec_of(2);
  EXPECT_TRUE(split0.has_seed());
  EXPECT_TRUE(split0.ops(1).shuffle().has_seed());
  EXPECT_TRUE(split0.ops(2).map().deterministic());
  // A given seed is mixed with the split and epoch, the same way every time.
  EXPECT_NE(split0.ops(3).shuffle().seed(), 3u);
  EXPECT_EQ(split0.ops(3).shuffle().seed(), spec_of(0).ops(3).shuffle().seed());
  EXPECT_NE(split0.ops(3).shuffle().seed(), split0_again.ops(3).shuffle().seed());
  EXPECT_NE(split0.ops(3).shuffle().seed(), split1.ops(3).shuffle().seed());
  // reshuffle_each_iteration: false: the same in every epoch, not in every split.
  EXPECT_EQ(split0.ops(4).shuffle().seed(), split0_again.ops(4).shuffle().seed());
  EXPECT_NE(split0.ops(4).shuffle().seed(), split1.ops(4).shuffle().seed());
  // parallel_epochs: each worker's copy in its own order, as the spec says.
  Result<spec::Pipeline> whole =
      SplitPipelineSpec(pipeline, ProcessingMode::kParallelEpochs, {.kind = SourceSplit::Kind::kWhole}, 0);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(whole->seed(), 7u);
  EXPECT_FALSE(whole->ops(1).shuffle().has_seed());
  EXPECT_FALSE(whole->ops(2).map().deterministic());
  EXPECT_EQ(whole->ops(3).shuffle().seed(), 3u);
}

// A parallel_epochs job runs the spec's seeds as they are in its dataset's
// first iteration, and mixed with the iteration in the next ones, so that
// each epoch read as a new iterator draws its own orders (the same on every
// worker: the spec alone decides them); a shuffle that keeps its order
// across epochs keeps its seed, and what the spec leaves unseeded stays so.
TEST(SplitProviderTest, ParallelEpochsDrawTheirOwnOrdersFromTheSecondIterationOn) {
  const spec::Pipeline pipeline = Spec(
      "seed: 7 ops { range { stop: 64 } } ops { shuffle { buffer_size: 64 seed: 3 } } "
      "ops { shuffle { buffer_size: 4 seed: 5 reshuffle_each_iteration: false } } "
      "ops { shuffle { buffer_size: 2 } }");
  const auto spec_of = [&](uint64_t iteration) {
    Result<spec::Pipeline> whole = SplitPipelineSpec(pipeline, ProcessingMode::kParallelEpochs,
                                                     {.kind = SourceSplit::Kind::kWhole}, 0, {.iteration = iteration});
    EXPECT_TRUE(whole.ok()) << whole.status();
    return whole.ok() ? *whole : spec::Pipeline();
  };
  const spec::Pipeline first = spec_of(0), second = spec_of(1), third = spec_of(2);
  EXPECT_EQ(SpecToText(first), SpecToText(pipeline));
  for (const spec::Pipeline* later : {&second, &third}) {
    EXPECT_NE(later->seed(), 7u);
    EXPECT_NE(later->ops(1).shuffle().seed(), 3u);
    EXPECT_EQ(later->ops(2).shuffle().seed(), 5u);
    EXPECT_FALSE(later->ops(3).shuffle().has_seed());
  }
  EXPECT_NE(second.ops(1).shuffle().seed(), third.ops(1).shuffle().seed());
  EXPECT_EQ(SpecToText(spec_of(1)), SpecToText(second));

  // The orders, with the unseeded shuffle left out.
  spec::Pipeline seeded = pipeline;
  seeded.mutable_ops()->RemoveLast();
  const auto order = [&](uint64_t iteration) {
    Result<DatasetPtr> dataset = MakeSplitDataset(seeded, ProcessingMode::kParallelEpochs,
                                                  {.kind = SourceSplit::Kind::kWhole}, 0, {.iteration = iteration});
    EXPECT_TRUE(dataset.ok()) << dataset.status();
    return dataset.ok() ? Elements(*dataset) : std::vector<std::string>();
  };
  const std::vector<std::string> epoch0 = order(0), epoch1 = order(1);
  EXPECT_EQ(epoch0, LocalElements(seeded));
  EXPECT_NE(epoch1, epoch0);
  EXPECT_EQ(Sorted(epoch1), Sorted(epoch0));
  EXPECT_EQ(order(1), epoch1);
  EXPECT_NE(order(2), epoch1);
}

// In parallel_epochs a shuffle that keeps its order across epochs and has
// no seed draws one from the job's seed, the same in every iteration of its
// dataset: it keeps its order from epoch to epoch. Other unseeded shuffles,
// and every one of a job without a seed, stay unseeded (the worker's).
TEST(SplitProviderTest, ParallelEpochsSeedAKeptOrderFromTheJob) {
  const spec::Pipeline pipeline = Spec(
      "ops { range { stop: 64 } } ops { shuffle { buffer_size: 64 reshuffle_each_iteration: false } } "
      "ops { shuffle { buffer_size: 2 } }");
  const SourceSplit whole{.kind = SourceSplit::Kind::kWhole};
  const auto spec_of = [&](JobSeeds seeds) {
    Result<spec::Pipeline> split_spec = SplitPipelineSpec(pipeline, ProcessingMode::kParallelEpochs, whole, 0, seeds);
    EXPECT_TRUE(split_spec.ok()) << split_spec.status();
    return split_spec.ok() ? *split_spec : spec::Pipeline();
  };
  const spec::Pipeline first = spec_of({.seed = 11, .iteration = 0}), second = spec_of({.seed = 11, .iteration = 1});
  ASSERT_TRUE(first.ops(1).shuffle().has_seed());
  EXPECT_EQ(second.ops(1).shuffle().seed(), first.ops(1).shuffle().seed());
  EXPECT_NE(spec_of({.seed = 12, .iteration = 0}).ops(1).shuffle().seed(), first.ops(1).shuffle().seed());
  EXPECT_FALSE(first.ops(2).shuffle().has_seed());
  EXPECT_FALSE(spec_of({.seed = 0, .iteration = 1}).ops(1).shuffle().has_seed());

  // The orders, with the reshuffling one left out.
  spec::Pipeline kept = pipeline;
  kept.mutable_ops()->RemoveLast();
  const auto order = [&](JobSeeds seeds) {
    Result<DatasetPtr> dataset = MakeSplitDataset(kept, ProcessingMode::kParallelEpochs, whole, 0, seeds);
    EXPECT_TRUE(dataset.ok()) << dataset.status();
    return dataset.ok() ? Elements(*dataset) : std::vector<std::string>();
  };
  const std::vector<std::string> epoch0 = order({.seed = 11, .iteration = 0});
  EXPECT_EQ(order({.seed = 11, .iteration = 1}), epoch0);
  EXPECT_EQ(order({.seed = 11, .iteration = 2}), epoch0);
  EXPECT_EQ(Sorted(order({.seed = 12, .iteration = 0})), Sorted(epoch0));
}

// A worker's task buffer runs ahead of its consumers: a split's pipeline
// ends without the spec's trailing prefetches (each would be a thread per
// split) and keeps those before other ops.
TEST(SplitProviderTest, TrailingPrefetchesAreTheWorkersBuffer) {
  const spec::Pipeline pipeline = Spec(
      "ops { range { stop: 8 } } ops { prefetch { buffer_size: 2 } } ops { batch { batch_size: 2 } } "
      "ops { prefetch { buffer_size: 4 } } ops { prefetch { buffer_size: -1 } }");
  for (ProcessingMode mode : {ProcessingMode::kDistributedEpoch, ProcessingMode::kParallelEpochs}) {
    const SourceSplit split = mode == ProcessingMode::kParallelEpochs
                                  ? SourceSplit{.kind = SourceSplit::Kind::kWhole}
                                  : SourceSplit{.kind = SourceSplit::Kind::kRows, .begin = 0, .end = 8};
    Result<spec::Pipeline> split_spec = SplitPipelineSpec(pipeline, mode, split, 0);
    ASSERT_TRUE(split_spec.ok()) << split_spec.status();
    ASSERT_EQ(split_spec->ops_size(), 3) << SpecToText(*split_spec);
    EXPECT_TRUE(split_spec->ops(1).has_prefetch());
    EXPECT_TRUE(split_spec->ops(2).has_batch());
    EXPECT_EQ(LocalElements(*split_spec), LocalElements(pipeline));
  }
  // A source alone is kept whatever it is.
  Result<spec::Pipeline> source_only = SplitPipelineSpec(
      Spec("ops { range { stop: 3 } }"), ProcessingMode::kParallelEpochs, {.kind = SourceSplit::Kind::kWhole}, 0);
  ASSERT_TRUE(source_only.ok()) << source_only.status();
  EXPECT_EQ(source_only->ops_size(), 1);
}

TEST(SplitProviderTest, OpsNeedingTheWholeSequenceAreRefused) {
  for (std::string op : {"take { count: 3 }", "skip { count: 1 }", "enumerate {}", "shard { num_shards: 2 }",
                         "take_while { predicate { comparison: LESS value: 5 } }", "unique {}",
                         "scan { initial_state { tensor { dtype: \"int64\" int_values: 0 } } fn { select {} } }",
                         "snapshot { path: \"/nonexistent\" }"}) {
    Result<std::vector<SourceSplit>> splits =
        ListSplits(Spec("ops { range { stop: 10 } } ops { " + op + " }"), ProcessingMode::kDistributedEpoch);
    ASSERT_FALSE(splits.ok()) << op;
    EXPECT_NE(splits.status().message().find("ops[1]"), std::string::npos) << splits.status();
  }
  EXPECT_TRUE(
      ListSplits(Spec("ops { range { stop: 10 } } ops { take { count: 3 } }"), ProcessingMode::kParallelEpochs).ok());
}

TEST(SplitProviderTest, BadSplitsAreErrors) {
  const spec::Pipeline pipeline = Spec("ops { range { stop: 10 } }");
  EXPECT_FALSE(MakeSplitDataset(pipeline, ProcessingMode::kDistributedEpoch,
                                {.kind = SourceSplit::Kind::kRows, .begin = 10, .end = 12}, 0)
                   .ok());
  EXPECT_FALSE(MakeSplitDataset(pipeline, ProcessingMode::kDistributedEpoch,
                                {.kind = SourceSplit::Kind::kFile, .file = "/etc/passwd"}, 0)
                   .ok());
  EXPECT_FALSE(ListSplits(pipeline, ProcessingMode::kDistributedEpoch, 1, {.rows_per_split = -1}).ok());
}

// Rows per split that would cut a source into more splits than the cap are
// refused before any split is made; the default cut of the largest range
// does not overflow.
TEST(SplitProviderTest, RowSplitsPastTheCapAreRefusedAndTheLargestRangeIsCut) {
  const spec::Pipeline huge = Spec("ops { range { stop: 9223372036854775807 } }");
  Result<std::vector<SourceSplit>> refused =
      ListSplits(huge, ProcessingMode::kDistributedEpoch, 1, {.rows_per_split = 1}, /*max_splits=*/1 << 18);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted) << refused.status();
  EXPECT_NE(refused.status().message().find("9223372036854775807 splits"), std::string::npos) << refused.status();
  Result<std::vector<SourceSplit>> cut = ListSplits(huge, ProcessingMode::kDistributedEpoch, 1, {}, 1 << 18);
  ASSERT_TRUE(cut.ok()) << cut.status();
  ASSERT_EQ(cut->size(), static_cast<size_t>(SplitOptions::kDefaultSplitsPerSource));
  EXPECT_EQ(cut->back().end, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(ListSplits(Spec("ops { range { stop: 10 } }"), ProcessingMode::kDistributedEpoch, 1,
                         {.rows_per_split = 1}, /*max_splits=*/10)
                  .ok());
}

}  // namespace
}  // namespace sluice::service
