// Pipeline: the fluent public builder over the dataset ops.
//
//   auto pipeline = Pipeline::FromSlices({{"x", x}, {"y", y}})
//                       .Shuffle({.buffer_size = 1600, .seed = 42})
//                       .Batch({.batch_size = 32})
//                       .Prefetch(kAutotune);
//   auto elements = pipeline.Elements();
//   for (const Element& batch : elements) { ... }
//   SLUICE_RETURN_IF_ERROR(elements.status());
//
// A Pipeline is a cheap value wrapping Result<DatasetPtr>: each method
// validates its op and returns a new Pipeline; the first construction error
// is kept and returned by Build() (or by iteration). Nothing runs until
// iteration.
// Thread safety: immutable values, safe to share.
#pragma once

#include <functional>
#include <optional>

#include "sluice/dataset/batch_dataset.h"
#include "sluice/dataset/bucket_by_sequence_length_dataset.h"
#include "sluice/dataset/choose_from_datasets_dataset.h"
#include "sluice/dataset/counter_dataset.h"
#include "sluice/dataset/csv_dataset.h"
#include "sluice/dataset/dataset.h"
#include "sluice/dataset/fixed_length_record_dataset.h"
#include "sluice/dataset/from_slices_dataset.h"
#include "sluice/dataset/functions.h"
#include "sluice/dataset/generator_dataset.h"
#include "sluice/dataset/group_by_window_dataset.h"
#include "sluice/dataset/interleave_dataset.h"
#include "sluice/dataset/labelled_files_dataset.h"
#include "sluice/dataset/list_files_dataset.h"
#include "sluice/dataset/load_dataset.h"
#include "sluice/dataset/map_dataset.h"
#include "sluice/dataset/pack_sequences_dataset.h"
#include "sluice/dataset/padded_batch_dataset.h"
#include "sluice/dataset/ragged_batch_dataset.h"
#include "sluice/dataset/random_dataset.h"
#include "sluice/dataset/range_dataset.h"
#include "sluice/dataset/rebatch_dataset.h"
#include "sluice/dataset/rejection_resample_dataset.h"
#include "sluice/dataset/sample_from_datasets_dataset.h"
#include "sluice/dataset/save.h"
#include "sluice/dataset/scan_dataset.h"
#include "sluice/dataset/shuffle_dataset.h"
#include "sluice/dataset/snapshot_dataset.h"
#include "sluice/dataset/sparse_batch_dataset.h"
#include "sluice/dataset/text_line_dataset.h"
#include "sluice/dataset/tfrecord_dataset.h"
#include "sluice/dataset/window_dataset.h"
#include "sluice/dataset/window_function.h"

namespace sluice {

class ElementRange;

class Pipeline {
 public:
  explicit Pipeline(Result<DatasetPtr> dataset) : dataset_(std::move(dataset)) {}

  // Sources.
  static Pipeline FromSlices(std::vector<NamedTensor> components);
  static Pipeline FromTensors(std::vector<NamedTensor> components);
  static Pipeline Range(int64_t stop) { return Range({.stop = stop}); }
  static Pipeline Range(RangeOptions options);
  static Pipeline TFRecord(TFRecordOptions options);
  static Pipeline TextLine(TextLineOptions options);
  static Pipeline Csv(CsvOptions options);
  static Pipeline FixedLengthRecord(FixedLengthRecordOptions options);
  static Pipeline ListFiles(ListFilesOptions options);
  // The files of class subdirectories, each with its class index (ImageFolder).
  static Pipeline LabelledFiles(LabelledFilesOptions options);
  static Pipeline Counter(CounterOptions options = {});
  static Pipeline Random(RandomOptions options = {});
  static Pipeline FromGenerator(GeneratorOptions options);
  // The element of datasets[i] for each index i of choice_dataset.
  static Pipeline ChooseFromDatasets(std::vector<Pipeline> datasets, const Pipeline& choice_dataset,
                                     ChooseFromDatasetsOptions options = {});
  // Elements drawn from datasets at random, by weight.
  static Pipeline SampleFromDatasets(std::vector<Pipeline> datasets, SampleFromDatasetsOptions options = {});
  // The elements of a snapshot directory (save's, snapshot's).
  static Pipeline Load(LoadOptions options);

  // The pipeline seed (tf.random.set_seed's global seed) for the random
  // functions of the maps added after it that have no seed of their own:
  // each such function's seed mixes it with its map's depth in the graph
  // (dataset/element_seeds.h). A spec writes it as Pipeline.seed. Without
  // it, such functions take a random seed per map.
  Pipeline Seed(uint64_t seed) const;

  // Transformations (each returns a new pipeline).
  // Built-in functions come as Result<...Ptr> (dataset/builtin_functions.h);
  // a factory error becomes the pipeline's error.
  Pipeline Map(Result<ElementFunctionPtr> fn, MapOptions options = {}) const;
  Pipeline Map(std::function<Result<Element>(Element)> fn, LambdaFunctionOptions options = {},
               MapOptions map_options = {}) const;
  Pipeline Filter(Result<PredicatePtr> predicate) const;
  Pipeline Filter(std::function<Result<bool>(const Element&)> predicate) const;
  Pipeline Shuffle(ShuffleOptions options) const;
  Pipeline Batch(BatchOptions options) const;
  Pipeline PaddedBatch(PaddedBatchOptions options) const;
  Pipeline RaggedBatch(RaggedBatchOptions options) const;
  Pipeline SparseBatch(SparseBatchOptions options) const;
  Pipeline Prefetch(int64_t buffer_size) const;
  Pipeline Repeat(int64_t count = -1) const;
  Pipeline Take(int64_t count) const;
  Pipeline Skip(int64_t count) const;
  Pipeline Interleave(Result<DatasetFunctionPtr> fn, InterleaveOptions options) const;
  // `output_spec`: the spec of the datasets `fn` returns (see MakeLambdaDatasetFunction).
  Pipeline Interleave(std::function<Result<DatasetPtr>(const Element&)> fn, ElementSpec output_spec,
                      InterleaveOptions options) const;
  Pipeline Zip(std::vector<Pipeline> others) const;
  Pipeline Concatenate(const Pipeline& other) const;
  Pipeline Shard(int64_t num_shards, int64_t index) const;
  Pipeline Unbatch() const;
  Pipeline Cache() const;
  Pipeline Enumerate(int64_t start = 0) const;
  Pipeline IgnoreErrors() const;
  Pipeline TakeWhile(Result<PredicatePtr> predicate) const;
  Pipeline TakeWhile(std::function<Result<bool>(const Element&)> predicate) const;
  Pipeline Unique() const;
  Pipeline Rebatch(RebatchOptions options) const;
  // fn's element is the state's components, then the input's; it returns the
  // new state's, then the output's (dataset/scan_dataset.h).
  Pipeline Scan(ScanOptions options, Result<ElementFunctionPtr> fn) const;
  Pipeline Scan(ScanOptions options, std::function<Result<Element>(Element)> fn,
                LambdaFunctionOptions fn_options = {}) const;
  Pipeline BucketBySequenceLength(BucketBySequenceLengthOptions options) const;
  Pipeline PackSequences(PackSequencesOptions options) const;
  // Each element's dataset, concatenated in order (dataset/flat_map_dataset.h).
  Pipeline FlatMap(Result<DatasetFunctionPtr> fn) const;
  // `output_spec`: the spec of the datasets `fn` returns (see MakeLambdaDatasetFunction).
  Pipeline FlatMap(std::function<Result<DatasetPtr>(const Element&)> fn, ElementSpec output_spec) const;
  // Windows of stacked rows (dataset/window_dataset.h).
  Pipeline Window(WindowOptions options) const;
  // flat_map over windows, each window's dataset built by `body` from its
  // rows, as tf.data's `ds.window(3).flat_map(lambda w: w.batch(3))`
  // (dataset/window_function.h).
  Pipeline FlatMapWindows(const WindowBody& body) const;
  Pipeline GroupByWindow(GroupByWindowOptions options) const;
  // group_by_window whose reduce_fn is `body` over the window's rows,
  // without the key column, as tf.data's `lambda key, rows: rows.batch(n)`;
  // options.reduce_fn stays unset.
  Pipeline GroupByWindow(GroupByWindowOptions options, const WindowBody& body) const;
  // Elements kept at random so that their classes follow a target
  // distribution, each prefixed by its class.
  Pipeline RejectionResample(RejectionResampleOptions options) const;

  // Reads its input's snapshot in options.path, or computes and writes it.
  Pipeline Snapshot(SnapshotOptions options) const;

  // Writes every element to `path` as a snapshot that Load reads; the
  // number of elements, or the build error.
  Result<int64_t> Save(const std::string& path, SaveOptions options = {}) const;

  // The built graph, or the first error met while building it.
  const Result<DatasetPtr>& Build() const { return dataset_; }
  Result<std::unique_ptr<Iterator>> MakeIterator() const;
  // For range-for; stops at the first error, which status() then reports.
  ElementRange Elements() const;

 private:
  // Applies `make` to the built dataset, or keeps the earlier error.
  Pipeline Then(const std::function<Result<DatasetPtr>(DatasetPtr)>& make) const;

  Result<DatasetPtr> dataset_;
  std::optional<uint64_t> seed_;  // Seed's, passed on to the ops after it
};

// A single pass over a pipeline for range-for. Iteration ends at the end of
// the sequence or at the first error; check status() after the loop.
class ElementRange {
 public:
  class iterator {
   public:
    using value_type = Element;
    using difference_type = std::ptrdiff_t;
    const Element& operator*() const { return *range_->current_; }
    const Element* operator->() const { return &*range_->current_; }
    iterator& operator++() {
      range_->Advance();
      return *this;
    }
    bool operator==(std::default_sentinel_t) const { return !range_->current_.has_value(); }

   private:
    friend class ElementRange;
    explicit iterator(ElementRange* range) : range_(range) {}
    ElementRange* range_;
  };

  explicit ElementRange(Result<std::unique_ptr<Iterator>> iterator);
  iterator begin();
  std::default_sentinel_t end() { return {}; }
  // OK, or the error that ended the iteration early.
  const Status& status() const { return status_; }

 private:
  void Advance();

  std::unique_ptr<Iterator> iterator_;
  std::optional<Element> current_;
  Status status_;
  bool started_ = false;
};

}  // namespace sluice
