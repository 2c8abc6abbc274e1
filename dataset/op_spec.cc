#include "sluice/dataset/op_spec.h"

#include "sluice/dataset/batch_dataset.h"
#include "sluice/dataset/bucket_by_sequence_length_dataset.h"
#include "sluice/dataset/cache_dataset.h"
#include "sluice/dataset/choose_from_datasets_dataset.h"
#include "sluice/dataset/concatenate_dataset.h"
#include "sluice/dataset/counter_dataset.h"
#include "sluice/dataset/csv_dataset.h"
#include "sluice/dataset/fixed_length_record_dataset.h"
#include "sluice/dataset/enumerate_dataset.h"
#include "sluice/dataset/filter_dataset.h"
#include "sluice/dataset/flat_map_dataset.h"
#include "sluice/dataset/from_slices_dataset.h"
#include "sluice/dataset/from_tensors_dataset.h"
#include "sluice/dataset/group_by_window_dataset.h"
#include "sluice/dataset/ignore_errors_dataset.h"
#include "sluice/dataset/interleave_dataset.h"
#include "sluice/dataset/labelled_files_dataset.h"
#include "sluice/dataset/list_files_dataset.h"
#include "sluice/dataset/load_dataset.h"
#include "sluice/dataset/map_dataset.h"
#include "sluice/dataset/pack_sequences_dataset.h"
#include "sluice/dataset/padded_batch_dataset.h"
#include "sluice/dataset/ragged_batch_dataset.h"
#include "sluice/dataset/rejection_resample_dataset.h"
#include "sluice/dataset/sparse_batch_dataset.h"
#include "sluice/dataset/prefetch_dataset.h"
#include "sluice/dataset/random_dataset.h"
#include "sluice/dataset/range_dataset.h"
#include "sluice/dataset/rebatch_dataset.h"
#include "sluice/dataset/repeat_dataset.h"
#include "sluice/dataset/sample_from_datasets_dataset.h"
#include "sluice/dataset/scan_dataset.h"
#include "sluice/dataset/shard_dataset.h"
#include "sluice/dataset/shuffle_dataset.h"
#include "sluice/dataset/skip_dataset.h"
#include "sluice/dataset/snapshot_dataset.h"
#include "sluice/dataset/take_dataset.h"
#include "sluice/dataset/take_while_dataset.h"
#include "sluice/dataset/text_line_dataset.h"
#include "sluice/dataset/tfrecord_dataset.h"
#include "sluice/dataset/unbatch_dataset.h"
#include "sluice/dataset/unique_dataset.h"
#include "sluice/dataset/window_dataset.h"
#include "sluice/dataset/zip_dataset.h"

namespace sluice {
namespace {

using Node = spec::DatasetNode;

// Every op a spec can hold, sources first.
constexpr OpSpecReader kOpSpecReaders[] = {
    {Node::kFromSlices, /*is_source=*/true, &FromSlicesDatasetFromSpec},
    {Node::kFromTensors, /*is_source=*/true, &FromTensorsDatasetFromSpec},
    {Node::kRange, /*is_source=*/true, &RangeDatasetFromSpec},
    {Node::kTfrecord, /*is_source=*/true, &TFRecordDatasetFromSpec},
    {Node::kTextLine, /*is_source=*/true, &TextLineDatasetFromSpec},
    {Node::kCsv, /*is_source=*/true, &CsvDatasetFromSpec},
    {Node::kFixedLengthRecord, /*is_source=*/true, &FixedLengthRecordDatasetFromSpec},
    {Node::kListFiles, /*is_source=*/true, &ListFilesDatasetFromSpec},
    {Node::kLabelledFiles, /*is_source=*/true, &LabelledFilesDatasetFromSpec},
    {Node::kCounter, /*is_source=*/true, &CounterDatasetFromSpec},
    {Node::kRandom, /*is_source=*/true, &RandomDatasetFromSpec},
    {Node::kSampleFromDatasets, /*is_source=*/true, &SampleFromDatasetsDatasetFromSpec},
    {Node::kLoad, /*is_source=*/true, &LoadDatasetFromSpec},
    {Node::kMap, /*is_source=*/false, &MapDatasetFromSpec},
    {Node::kFilter, /*is_source=*/false, &FilterDatasetFromSpec},
    {Node::kShuffle, /*is_source=*/false, &ShuffleDatasetFromSpec},
    {Node::kBatch, /*is_source=*/false, &BatchDatasetFromSpec},
    {Node::kPaddedBatch, /*is_source=*/false, &PaddedBatchDatasetFromSpec},
    {Node::kRaggedBatch, /*is_source=*/false, &RaggedBatchDatasetFromSpec},
    {Node::kSparseBatch, /*is_source=*/false, &SparseBatchDatasetFromSpec},
    {Node::kPrefetch, /*is_source=*/false, &PrefetchDatasetFromSpec},
    {Node::kRepeat, /*is_source=*/false, &RepeatDatasetFromSpec},
    {Node::kTake, /*is_source=*/false, &TakeDatasetFromSpec},
    {Node::kSkip, /*is_source=*/false, &SkipDatasetFromSpec},
    {Node::kInterleave, /*is_source=*/false, &InterleaveDatasetFromSpec},
    {Node::kZip, /*is_source=*/false, &ZipDatasetFromSpec},
    {Node::kConcatenate, /*is_source=*/false, &ConcatenateDatasetFromSpec},
    {Node::kShard, /*is_source=*/false, &ShardDatasetFromSpec},
    {Node::kUnbatch, /*is_source=*/false, &UnbatchDatasetFromSpec},
    {Node::kCache, /*is_source=*/false, &CacheDatasetFromSpec},
    {Node::kEnumerate, /*is_source=*/false, &EnumerateDatasetFromSpec},
    {Node::kIgnoreErrors, /*is_source=*/false, &IgnoreErrorsDatasetFromSpec},
    {Node::kTakeWhile, /*is_source=*/false, &TakeWhileDatasetFromSpec},
    {Node::kUnique, /*is_source=*/false, &UniqueDatasetFromSpec},
    {Node::kRebatch, /*is_source=*/false, &RebatchDatasetFromSpec},
    {Node::kScan, /*is_source=*/false, &ScanDatasetFromSpec},
    {Node::kChooseFromDatasets, /*is_source=*/false, &ChooseFromDatasetsDatasetFromSpec},
    {Node::kSnapshot, /*is_source=*/false, &SnapshotDatasetFromSpec},
    {Node::kBucketBySequenceLength, /*is_source=*/false, &BucketBySequenceLengthDatasetFromSpec},
    {Node::kPackSequences, /*is_source=*/false, &PackSequencesDatasetFromSpec},
    {Node::kWindow, /*is_source=*/false, &WindowDatasetFromSpec},
    {Node::kFlatMap, /*is_source=*/false, &FlatMapDatasetFromSpec},
    {Node::kGroupByWindow, /*is_source=*/false, &GroupByWindowDatasetFromSpec},
    {Node::kRejectionResample, /*is_source=*/false, &RejectionResampleDatasetFromSpec},
};

std::string FieldName(Node::OpCase op) {
  const auto* field = Node::descriptor()->FindFieldByNumber(op);
  return field == nullptr ? "unset" : field->name();
}

}  // namespace

const OpSpecReader* FindOpSpecReader(Node::OpCase op) {
  for (const OpSpecReader& reader : kOpSpecReaders) {
    if (reader.op == op) return &reader;
  }
  return nullptr;
}

std::string SpecOpName(const Node& node) { return FieldName(node.op_case()); }

std::string SpecSourceNames() {
  std::vector<std::string> names;
  for (const OpSpecReader& reader : kOpSpecReaders) {
    if (reader.is_source) names.push_back(FieldName(reader.op));
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

Determinism DeterminismFromSpec(bool has_deterministic, bool deterministic) {
  if (!has_deterministic) return Determinism::kDefault;
  return deterministic ? Determinism::kDeterministic : Determinism::kNondeterministic;
}

}  // namespace sluice
