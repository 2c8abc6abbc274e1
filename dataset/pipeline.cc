#include "sluice/dataset/pipeline.h"

#include "sluice/dataset/cache_dataset.h"
#include "sluice/dataset/concatenate_dataset.h"
#include "sluice/dataset/enumerate_dataset.h"
#include "sluice/dataset/filter_dataset.h"
#include "sluice/dataset/flat_map_dataset.h"
#include "sluice/dataset/from_tensors_dataset.h"
#include "sluice/dataset/ignore_errors_dataset.h"
#include "sluice/dataset/map_dataset.h"
#include "sluice/dataset/prefetch_dataset.h"
#include "sluice/dataset/repeat_dataset.h"
#include "sluice/dataset/shard_dataset.h"
#include "sluice/dataset/skip_dataset.h"
#include "sluice/dataset/take_dataset.h"
#include "sluice/dataset/take_while_dataset.h"
#include "sluice/dataset/unbatch_dataset.h"
#include "sluice/dataset/unique_dataset.h"
#include "sluice/dataset/zip_dataset.h"

namespace sluice {

Pipeline Pipeline::FromSlices(std::vector<NamedTensor> components) {
  return Pipeline(MakeFromSlicesDataset(std::move(components)));
}

Pipeline Pipeline::FromTensors(std::vector<NamedTensor> components) {
  return Pipeline(MakeFromTensorsDataset(std::move(components)));
}

Pipeline Pipeline::Range(RangeOptions options) { return Pipeline(MakeRangeDataset(options)); }
Pipeline Pipeline::TFRecord(TFRecordOptions options) { return Pipeline(MakeTFRecordDataset(std::move(options))); }
Pipeline Pipeline::TextLine(TextLineOptions options) { return Pipeline(MakeTextLineDataset(std::move(options))); }
Pipeline Pipeline::Csv(CsvOptions options) { return Pipeline(MakeCsvDataset(std::move(options))); }
Pipeline Pipeline::FixedLengthRecord(FixedLengthRecordOptions options) {
  return Pipeline(MakeFixedLengthRecordDataset(std::move(options)));
}
Pipeline Pipeline::ListFiles(ListFilesOptions options) { return Pipeline(MakeListFilesDataset(std::move(options))); }
Pipeline Pipeline::LabelledFiles(LabelledFilesOptions options) {
  return Pipeline(MakeLabelledFilesDataset(std::move(options)));
}
Pipeline Pipeline::Counter(CounterOptions options) { return Pipeline(MakeCounterDataset(options)); }
Pipeline Pipeline::Random(RandomOptions options) { return Pipeline(MakeRandomDataset(options)); }
Pipeline Pipeline::FromGenerator(GeneratorOptions options) {
  return Pipeline(MakeGeneratorDataset(std::move(options)));
}
Pipeline Pipeline::Load(LoadOptions options) { return Pipeline(MakeLoadDataset(std::move(options))); }

namespace {

// The datasets of `pipelines`, or the first error building them.
Result<std::vector<DatasetPtr>> BuildAll(const std::vector<Pipeline>& pipelines) {
  std::vector<DatasetPtr> built;
  for (const Pipeline& pipeline : pipelines) {
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset, pipeline.Build());
    built.push_back(std::move(dataset));
  }
  return built;
}

}  // namespace

Pipeline Pipeline::ChooseFromDatasets(std::vector<Pipeline> datasets, const Pipeline& choice_dataset,
                                      ChooseFromDatasetsOptions options) {
  return choice_dataset.Then([&](DatasetPtr choice) -> Result<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(std::vector<DatasetPtr> built, BuildAll(datasets));
    return MakeChooseFromDatasetsDataset(std::move(built), std::move(choice), options);
  });
}

Pipeline Pipeline::SampleFromDatasets(std::vector<Pipeline> datasets, SampleFromDatasetsOptions options) {
  Result<std::vector<DatasetPtr>> built = BuildAll(datasets);
  if (!built.ok()) return Pipeline(built.status());
  return Pipeline(MakeSampleFromDatasetsDataset(*std::move(built), std::move(options)));
}

Pipeline Pipeline::Snapshot(SnapshotOptions options) const {
  return Then([&](DatasetPtr in) { return MakeSnapshotDataset(std::move(in), std::move(options)); });
}

Result<int64_t> Pipeline::Save(const std::string& path, SaveOptions options) const {
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset, dataset_);
  return SaveDataset(*dataset, path, options);
}

Pipeline Pipeline::Then(const std::function<Result<DatasetPtr>(DatasetPtr)>& make) const {
  if (!dataset_.ok()) return *this;
  Pipeline next(make(*dataset_));
  next.seed_ = seed_;
  return next;
}

Pipeline Pipeline::Seed(uint64_t seed) const {
  Pipeline next = *this;
  next.seed_ = seed;
  return next;
}

Pipeline Pipeline::Map(Result<ElementFunctionPtr> fn, MapOptions options) const {
  if (!options.pipeline_seed) options.pipeline_seed = seed_;
  return Then([&](DatasetPtr in) -> Result<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(ElementFunctionPtr f, fn);
    return MakeMapDataset(std::move(in), std::move(f), options);
  });
}

Pipeline Pipeline::Map(std::function<Result<Element>(Element)> fn, LambdaFunctionOptions options,
                       MapOptions map_options) const {
  return Map(MakeLambdaFunction(std::move(fn), std::move(options)), map_options);
}

Pipeline Pipeline::Filter(Result<PredicatePtr> predicate) const {
  return Then([&](DatasetPtr in) -> Result<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(PredicatePtr p, predicate);
    return MakeFilterDataset(std::move(in), std::move(p));
  });
}

Pipeline Pipeline::Filter(std::function<Result<bool>(const Element&)> predicate) const {
  return Filter(MakeLambdaPredicate(std::move(predicate)));
}

Pipeline Pipeline::Shuffle(ShuffleOptions options) const {
  return Then([&](DatasetPtr in) { return MakeShuffleDataset(std::move(in), options); });
}

Pipeline Pipeline::Batch(BatchOptions options) const {
  return Then([&](DatasetPtr in) { return MakeBatchDataset(std::move(in), options); });
}

Pipeline Pipeline::PaddedBatch(PaddedBatchOptions options) const {
  return Then([&](DatasetPtr in) { return MakePaddedBatchDataset(std::move(in), options); });
}

Pipeline Pipeline::RaggedBatch(RaggedBatchOptions options) const {
  return Then([&](DatasetPtr in) { return MakeRaggedBatchDataset(std::move(in), options); });
}
Pipeline Pipeline::SparseBatch(SparseBatchOptions options) const {
  return Then([&](DatasetPtr in) { return MakeSparseBatchDataset(std::move(in), std::move(options)); });
}

Pipeline Pipeline::Prefetch(int64_t buffer_size) const {
  return Then([&](DatasetPtr in) { return MakePrefetchDataset(std::move(in), {.buffer_size = buffer_size}); });
}

Pipeline Pipeline::Repeat(int64_t count) const {
  return Then([&](DatasetPtr in) { return MakeRepeatDataset(std::move(in), {.count = count}); });
}

Pipeline Pipeline::Take(int64_t count) const {
  return Then([&](DatasetPtr in) { return MakeTakeDataset(std::move(in), {.count = count}); });
}

Pipeline Pipeline::Skip(int64_t count) const {
  return Then([&](DatasetPtr in) { return MakeSkipDataset(std::move(in), {.count = count}); });
}

Pipeline Pipeline::Interleave(Result<DatasetFunctionPtr> fn, InterleaveOptions options) const {
  return Then([&](DatasetPtr in) -> Result<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(DatasetFunctionPtr f, fn);
    return MakeInterleaveDataset(std::move(in), std::move(f), options);
  });
}

Pipeline Pipeline::Interleave(std::function<Result<DatasetPtr>(const Element&)> fn, ElementSpec output_spec,
                              InterleaveOptions options) const {
  return Interleave(MakeLambdaDatasetFunction(std::move(fn), std::move(output_spec)), options);
}

Pipeline Pipeline::Zip(std::vector<Pipeline> others) const {
  return Then([&](DatasetPtr in) -> Result<DatasetPtr> {
    std::vector<DatasetPtr> inputs = {std::move(in)};
    for (const Pipeline& other : others) {
      SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset, other.Build());
      inputs.push_back(std::move(dataset));
    }
    return MakeZipDataset(std::move(inputs));
  });
}

Pipeline Pipeline::Concatenate(const Pipeline& other) const {
  return Then([&](DatasetPtr in) -> Result<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr second, other.Build());
    return MakeConcatenateDataset(std::move(in), std::move(second));
  });
}

Pipeline Pipeline::Shard(int64_t num_shards, int64_t index) const {
  return Then(
      [&](DatasetPtr in) { return MakeShardDataset(std::move(in), {.num_shards = num_shards, .index = index}); });
}

Pipeline Pipeline::Unbatch() const {
  return Then([](DatasetPtr in) { return MakeUnbatchDataset(std::move(in)); });
}

Pipeline Pipeline::Cache() const {
  return Then([](DatasetPtr in) { return MakeCacheDataset(std::move(in)); });
}

Pipeline Pipeline::Enumerate(int64_t start) const {
  return Then([&](DatasetPtr in) { return MakeEnumerateDataset(std::move(in), {.start = start}); });
}

Pipeline Pipeline::IgnoreErrors() const {
  return Then([](DatasetPtr in) { return MakeIgnoreErrorsDataset(std::move(in)); });
}

Pipeline Pipeline::TakeWhile(Result<PredicatePtr> predicate) const {
  return Then([&](DatasetPtr in) -> Result<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(PredicatePtr p, predicate);
    return MakeTakeWhileDataset(std::move(in), std::move(p));
  });
}

Pipeline Pipeline::TakeWhile(std::function<Result<bool>(const Element&)> predicate) const {
  return TakeWhile(MakeLambdaPredicate(std::move(predicate)));
}

Pipeline Pipeline::Unique() const {
  return Then([](DatasetPtr in) { return MakeUniqueDataset(std::move(in)); });
}

Pipeline Pipeline::Rebatch(RebatchOptions options) const {
  return Then([&](DatasetPtr in) { return MakeRebatchDataset(std::move(in), options); });
}

Pipeline Pipeline::Scan(ScanOptions options, Result<ElementFunctionPtr> fn) const {
  return Then([&](DatasetPtr in) -> Result<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(ElementFunctionPtr f, fn);
    return MakeScanDataset(std::move(in), std::move(f), options);
  });
}

Pipeline Pipeline::Scan(ScanOptions options, std::function<Result<Element>(Element)> fn,
                        LambdaFunctionOptions fn_options) const {
  return Scan(std::move(options), MakeLambdaFunction(std::move(fn), std::move(fn_options)));
}

Pipeline Pipeline::BucketBySequenceLength(BucketBySequenceLengthOptions options) const {
  return Then([&](DatasetPtr in) { return MakeBucketBySequenceLengthDataset(std::move(in), std::move(options)); });
}

Pipeline Pipeline::PackSequences(PackSequencesOptions options) const {
  return Then([&](DatasetPtr in) { return MakePackSequencesDataset(std::move(in), std::move(options)); });
}

Pipeline Pipeline::FlatMap(Result<DatasetFunctionPtr> fn) const {
  return Then([&](DatasetPtr in) -> Result<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(DatasetFunctionPtr f, fn);
    return MakeFlatMapDataset(std::move(in), std::move(f));
  });
}

Pipeline Pipeline::FlatMap(std::function<Result<DatasetPtr>(const Element&)> fn, ElementSpec output_spec) const {
  return FlatMap(MakeLambdaDatasetFunction(std::move(fn), std::move(output_spec)));
}

Pipeline Pipeline::Window(WindowOptions options) const {
  return Then([&](DatasetPtr in) { return MakeWindowDataset(std::move(in), options); });
}

Pipeline Pipeline::FlatMapWindows(const WindowBody& body) const {
  return Then([&](DatasetPtr in) -> Result<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(DatasetFunctionPtr fn, MakeWindowFunction(body, in->element_spec()));
    return MakeFlatMapDataset(std::move(in), std::move(fn));
  });
}

Pipeline Pipeline::GroupByWindow(GroupByWindowOptions options) const {
  return Then([&](DatasetPtr in) { return MakeGroupByWindowDataset(std::move(in), std::move(options)); });
}

Pipeline Pipeline::GroupByWindow(GroupByWindowOptions options, const WindowBody& body) const {
  return Then([&](DatasetPtr in) -> Result<DatasetPtr> {
    if (options.reduce_fn != nullptr) {
      return InvalidArgumentError("group_by_window: give reduce_fn or a body, not both");
    }
    SLUICE_ASSIGN_OR_RETURN(ElementSpec window_spec, GroupWindowSpec(in->element_spec(), options.key_name));
    SLUICE_ASSIGN_OR_RETURN(options.reduce_fn, MakeWindowFunction(body, window_spec, /*hidden_trailing=*/1));
    return MakeGroupByWindowDataset(std::move(in), std::move(options));
  });
}

Pipeline Pipeline::RejectionResample(RejectionResampleOptions options) const {
  return Then([&](DatasetPtr in) { return MakeRejectionResampleDataset(std::move(in), std::move(options)); });
}

Result<std::unique_ptr<Iterator>> Pipeline::MakeIterator() const {
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset, dataset_);
  return dataset->MakeIterator();
}

ElementRange Pipeline::Elements() const { return ElementRange(MakeIterator()); }

ElementRange::ElementRange(Result<std::unique_ptr<Iterator>> iterator) {
  if (iterator.ok()) {
    iterator_ = std::move(iterator).value();
  } else {
    status_ = iterator.status();
  }
}

ElementRange::iterator ElementRange::begin() {
  if (!started_) {
    started_ = true;
    Advance();
  }
  return iterator(this);
}

void ElementRange::Advance() {
  current_.reset();
  if (iterator_ == nullptr) return;
  Result<std::optional<Element>> next = iterator_->GetNext();
  if (!next.ok()) {
    status_ = next.status();
    iterator_.reset();
    return;
  }
  current_ = std::move(*next);
  if (!current_) iterator_.reset();
}

}  // namespace sluice
