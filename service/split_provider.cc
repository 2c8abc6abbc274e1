#include "sluice/service/split_provider.h"

#include <algorithm>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include "sluice/dataset/list_files_dataset.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/seed_mix.h"
#include "sluice/dataset/tensor_proto.h"
#include "sluice/ops/string_hash.h"

namespace sluice::service {
namespace {

using Node = spec::DatasetNode;

// The files of a tfrecord, text_line, csv or fixed_length_record source.
const google::protobuf::RepeatedPtrField<std::string>& FilesOf(const Node& source) {
  switch (source.op_case()) {
    case Node::kTextLine: return source.text_line().files();
    case Node::kCsv: return source.csv().files();
    case Node::kFixedLengthRecord: return source.fixed_length_record().files();
    default: return source.tfrecord().files();
  }
}
google::protobuf::RepeatedPtrField<std::string>* MutableFilesOf(Node& source) {
  switch (source.op_case()) {
    case Node::kTextLine: return source.mutable_text_line()->mutable_files();
    case Node::kCsv: return source.mutable_csv()->mutable_files();
    case Node::kFixedLengthRecord: return source.mutable_fixed_length_record()->mutable_files();
    default: return source.mutable_tfrecord()->mutable_files();
  }
}

// Ops that need the whole sequence, refused in a pipeline split by source:
// their output depends on positions in it (take, skip, enumerate, shard), on
// what came before (take_while, unique, scan), on pairing or choosing among
// other sequences (zip, concatenate, choose_from_datasets), or they write it
// out as one (snapshot). Batching ops are not among them: per split they
// batch as at the end of a sequence.
Status CheckSplittableOps(const spec::Pipeline& pipeline) {
  for (int i = 1; i < pipeline.ops_size(); ++i) {
    const char* op = nullptr;
    switch (pipeline.ops(i).op_case()) {
      case Node::kTake: op = "take"; break;
      case Node::kSkip: op = "skip"; break;
      case Node::kEnumerate: op = "enumerate"; break;
      case Node::kShard: op = "shard"; break;
      case Node::kZip: op = "zip"; break;
      case Node::kConcatenate: op = "concatenate"; break;
      case Node::kTakeWhile: op = "take_while"; break;
      case Node::kUnique: op = "unique"; break;
      case Node::kScan: op = "scan"; break;
      case Node::kChooseFromDatasets: op = "choose_from_datasets"; break;
      case Node::kSnapshot: op = "snapshot"; break;
      default: break;
    }
    if (op != nullptr) {
      return InvalidArgumentError("ops[", i, "] (", op, ") needs the whole sequence and cannot run per split in ",
                                  ProcessingModeName(ProcessingMode::kDistributedEpoch),
                                  " mode; use parallel_epochs or static_sharding, or move it after the service");
    }
  }
  return OkStatus();
}

// The number of elements of the source alone (range, from_slices, labelled_files).
Result<int64_t> SourceCardinality(const spec::Pipeline& pipeline) {
  spec::Pipeline source;
  *source.add_ops() = pipeline.ops(0);
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset, DatasetFromSpec(source));
  return dataset->cardinality();
}

// How a source of `rows` rows (elements, or a labelled_files source's
// files) is cut: rows_per_split rows a split (0: rows /
// kDefaultSplitsPerSource rounded up, at least 1), and the splits that
// makes, refused past max_splits before any is made.
struct SplitSizes {
  int64_t rows_per_split = 1;
  int64_t count = 0;
};
Result<SplitSizes> SizeSplits(int64_t rows, const SplitOptions& options, uint64_t max_splits) {
  if (options.rows_per_split < 0) {
    return InvalidArgumentError("rows_per_split must be >= 0 (0 = automatic), got ", options.rows_per_split);
  }
  // rows / parts, rounded up, without the overflow of (rows + parts - 1).
  const auto divide_rounding_up = [rows](int64_t parts) { return rows / parts + (rows % parts != 0 ? 1 : 0); };
  int64_t per_split = options.rows_per_split;
  if (per_split == 0) per_split = std::max<int64_t>(1, divide_rounding_up(SplitOptions::kDefaultSplitsPerSource));
  const int64_t count = divide_rounding_up(per_split);
  if (static_cast<uint64_t>(count) > max_splits) {
    return ResourceExhaustedError("a source of ", rows, " rows in splits of ", per_split, " rows makes ", count,
                                  " splits, past the cap of ", max_splits, ": give it more rows per split");
  }
  return SplitSizes{.rows_per_split = per_split, .count = count};
}

Result<std::vector<SourceSplit>> RowSplits(const spec::Pipeline& pipeline, const SplitOptions& options,
                                           uint64_t max_splits) {
  SLUICE_ASSIGN_OR_RETURN(int64_t rows, SourceCardinality(pipeline));
  SLUICE_ASSIGN_OR_RETURN(SplitSizes sizes, SizeSplits(rows, options, max_splits));
  const int64_t per_split = sizes.rows_per_split;
  std::vector<SourceSplit> splits;
  for (int64_t begin = 0; begin < rows; begin += std::min(per_split, rows - begin)) {
    splits.push_back(
        {.kind = SourceSplit::Kind::kRows, .begin = begin, .end = begin + std::min(per_split, rows - begin)});
  }
  return splits;
}

// A labelled_files source's files dealt into shards of the listing, as
// many as a row source of that many rows has splits, each a split: every
// split holds every class in proportion.
Result<std::vector<SourceSplit>> LabelledFilesSplits(const spec::Pipeline& pipeline, const SplitOptions& options,
                                                     uint64_t max_splits) {
  SLUICE_ASSIGN_OR_RETURN(int64_t files, SourceCardinality(pipeline));
  if (files == 0) return InvalidArgumentError("ops[0] (labelled_files) holds no files to split");
  SLUICE_ASSIGN_OR_RETURN(SplitSizes sizes, SizeSplits(files, options, max_splits));
  std::vector<SourceSplit> splits;
  for (int64_t i = 0; i < sizes.count; ++i) {
    splits.push_back({.kind = SourceSplit::Kind::kShard, .shard_index = i, .num_shards = sizes.count});
  }
  return splits;
}

// labelled_files shard (a split of it, or static sharding) by its own
// options: it then reads only its shard's files.
Result<Node> ShardedLabelledFiles(const Node& source, const SourceSplit& split) {
  if (split.num_shards < 1 || split.shard_index < 0 || split.shard_index >= split.num_shards) {
    return InvalidArgumentError("shard split ", split.shard_index, " of ", split.num_shards, " is out of range");
  }
  Node out = source;
  spec::LabelledFiles& files = *out.mutable_labelled_files();
  const int64_t outer = files.has_num_shards() ? files.num_shards() : 1;
  if (outer < 1 || split.num_shards > INT64_MAX / outer) {
    return InvalidArgumentError("labelled_files' num_shards ", outer, " cannot be split into ", split.num_shards,
                                " shards");
  }
  // Shard k of the source's shard holds positions outer_index + outer * (k + n * j).
  files.set_num_shards(outer * split.num_shards);
  files.set_shard_index(files.shard_index() + outer * split.shard_index);
  return out;  // without a seed, its shuffle is seeded by PinSplitRandomness
}

// What a split's randomness is drawn from: `split`, the same in every
// epoch (from what the split covers), `epoch`, new in each (from its split
// id, which counts on across a job's epochs, and the job's iteration), and
// `job`, the job's seed, for the seeds the spec does not give.
struct SplitSeeds {
  uint64_t split = 0;
  uint64_t epoch = 0;
  uint64_t job = 0;
};

SplitSeeds SeedsOf(const SourceSplit& split, int64_t split_id, const JobSeeds& job) {
  uint64_t seed = MixSeed(static_cast<uint64_t>(split.kind), Fingerprint64(split.file));
  for (const int64_t value : {split.begin, split.end, split.shard_index, split.num_shards}) {
    seed = MixSeed(seed, static_cast<uint64_t>(value));
  }
  // Seeds of 0 mix in nothing: a job whose consumer chose none (an older
  // one's) runs as jobs did before they had seeds.
  const uint64_t epoch = MixSeed(seed, static_cast<uint64_t>(split_id));
  return {.split = seed, .epoch = job.iteration == 0 ? epoch : MixSeed(epoch, job.iteration), .job = job.seed};
}

// Calls visit(message, field, same_every_epoch) for each singular scalar
// field with presence, set or not, of `message` and of the messages inside
// it, in the order of their declarations (a message field's fields where it
// stands); same_every_epoch: `message` is a shuffle told to keep its order
// across epochs (reshuffle_each_iteration: false).
template <typename Visit>
void VisitScalarFields(google::protobuf::Message& message, const Visit& visit) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Descriptor* descriptor = message.GetDescriptor();
  const google::protobuf::Reflection* reflection = message.GetReflection();
  const FieldDescriptor* reshuffle = descriptor->FindFieldByName("reshuffle_each_iteration");
  const bool same_every_epoch = reshuffle != nullptr && reshuffle->cpp_type() == FieldDescriptor::CPPTYPE_BOOL &&
                                reflection->HasField(message, reshuffle) && !reflection->GetBool(message, reshuffle);
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (field->is_repeated()) {
        for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
          VisitScalarFields(*reflection->MutableRepeatedMessage(&message, field, j), visit);
        }
      } else if (reflection->HasField(message, field)) {
        VisitScalarFields(*reflection->MutableMessage(&message, field), visit);
      }
      continue;
    }
    if (!field->is_repeated() && field->has_presence()) visit(message, *field, same_every_epoch);
  }
}

bool IsSeed(const google::protobuf::FieldDescriptor& field) {
  return field.name() == "seed" && field.cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_UINT64;
}

// Makes `pipeline` (a split's, and the messages inside it) run the
// same way every time its split runs, so that a split run again is
// deduplicated by element index, while each split and epoch draws its own:
// every `seed` (an op's, a function's, a pipeline's) becomes
// MixSeed(given, base) when the spec gives it, else
// MixSeed(MixSeed(base, seeds.job), n) (MixSeed(base, n) for a job seed of
// 0), n counting the seed fields in the order the walk meets them; base is seeds.epoch, or seeds.split for a
// shuffle told to keep its order across epochs (reshuffle_each_iteration:
// false). Every `deterministic` becomes true.
void PinSplitRandomness(spec::Pipeline& pipeline, const SplitSeeds& seeds) {
  uint64_t ordinal = 0;
  VisitScalarFields(pipeline, [&](google::protobuf::Message& message, const google::protobuf::FieldDescriptor& field,
                                  bool same_every_epoch) {
    const google::protobuf::Reflection* reflection = message.GetReflection();
    const uint64_t base = same_every_epoch ? seeds.split : seeds.epoch;
    if (IsSeed(field)) {
      const uint64_t n = ordinal++;
      reflection->SetUInt64(&message, &field,
                            reflection->HasField(message, &field) ? MixSeed(reflection->GetUInt64(message, &field), base)
                            : seeds.job == 0                      ? MixSeed(base, n)
                                                                  : MixSeed(MixSeed(base, seeds.job), n));
    } else if (field.name() == "deterministic" &&
               field.cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_BOOL) {
      reflection->SetBool(&message, &field, true);
    }
  });
}

// Makes a parallel_epochs job of iteration `iteration` (> 0) draw its own:
// every `seed` the spec gives (an op's, a function's, the pipeline's)
// becomes MixSeed(given, iteration), but a shuffle told to keep its order
// across epochs (reshuffle_each_iteration: false) keeps its seed.
void MixIterationIntoSeeds(spec::Pipeline& pipeline, uint64_t iteration) {
  VisitScalarFields(pipeline, [&](google::protobuf::Message& message, const google::protobuf::FieldDescriptor& field,
                                  bool same_every_epoch) {
    const google::protobuf::Reflection* reflection = message.GetReflection();
    if (same_every_epoch || !IsSeed(field) || !reflection->HasField(message, &field)) return;
    reflection->SetUInt64(&message, &field, MixSeed(reflection->GetUInt64(message, &field), iteration));
  });
}

// Gives each shuffle of a parallel_epochs `pipeline` that keeps its order
// across epochs (reshuffle_each_iteration: false) and has no seed one from
// the job's seed: MixSeed(job_seed, n), n counting such shuffles in the
// order the walk meets them. A job seed is the same in every iteration of
// its dataset, so such a shuffle keeps its order from epoch to epoch, as a
// local pipeline's does.
void SeedKeptOrders(spec::Pipeline& pipeline, uint64_t job_seed) {
  uint64_t ordinal = 0;
  VisitScalarFields(pipeline, [&](google::protobuf::Message& message, const google::protobuf::FieldDescriptor& field,
                                  bool same_every_epoch) {
    if (!same_every_epoch || !IsSeed(field)) return;
    const uint64_t n = ordinal++;
    const google::protobuf::Reflection* reflection = message.GetReflection();
    if (!reflection->HasField(message, &field)) reflection->SetUInt64(&message, &field, MixSeed(job_seed, n));
  });
}

Result<std::vector<SourceSplit>> DistributedSplits(const spec::Pipeline& pipeline, const SplitOptions& options,
                                                   uint64_t max_splits) {
  SLUICE_RETURN_IF_ERROR(CheckSplittableOps(pipeline));
  const Node& source = pipeline.ops(0);
  std::vector<SourceSplit> splits;
  switch (source.op_case()) {
    case Node::kListFiles: {
      const auto& patterns = source.list_files().patterns();
      SLUICE_ASSIGN_OR_RETURN(std::vector<std::string> files,
                              MatchFiles(std::vector<std::string>(patterns.begin(), patterns.end()), max_splits));
      for (std::string& file : files) splits.push_back({.kind = SourceSplit::Kind::kFile, .file = std::move(file)});
      return splits;
    }
    case Node::kTfrecord:
    case Node::kTextLine:
    case Node::kCsv:
    case Node::kFixedLengthRecord: {
      const std::string op = SpecOpName(source);
      const auto& files = FilesOf(source);
      if (files.empty()) return InvalidArgumentError("ops[0] (", op, ") lists no files");
      if (static_cast<uint64_t>(files.size()) > max_splits) {
        return ResourceExhaustedError("ops[0] (", op, ") lists ", files.size(), " files, more splits than the cap of ",
                                      max_splits);
      }
      for (const std::string& file : files) splits.push_back({.kind = SourceSplit::Kind::kFile, .file = file});
      return splits;
    }
    case Node::kRange:
    case Node::kFromSlices: return RowSplits(pipeline, options, max_splits);
    case Node::kLabelledFiles: return LabelledFilesSplits(pipeline, options, max_splits);
    case Node::kFromTensors: return std::vector<SourceSplit>{{.kind = SourceSplit::Kind::kWhole}};
    default:
      return InvalidArgumentError(
          "a pipeline split by source must start with list_files, tfrecord, text_line, csv, fixed_length_record, "
          "range, from_slices, from_tensors or labelled_files");
  }
}

// ops[0] of `pipeline` restricted to `split`.
Result<Node> RestrictedSource(const Node& source, const SourceSplit& split) {
  Node out = source;
  switch (split.kind) {
    case SourceSplit::Kind::kWhole: return out;
    case SourceSplit::Kind::kFile:
      if (source.has_tfrecord() || source.has_text_line() || source.has_csv() || source.has_fixed_length_record()) {
        MutableFilesOf(out)->Clear();
        *MutableFilesOf(out)->Add() = split.file;
        return out;
      }
      if (source.has_list_files()) {  // the one file name list_files would yield
        spec::NamedTensor* name = out.mutable_from_tensors()->add_components();
        TensorToProto(Tensor::Scalar(split.file), name->mutable_tensor());
        return out;
      }
      return InvalidArgumentError(
          "a file split needs a list_files, tfrecord, text_line, csv or fixed_length_record source");
    case SourceSplit::Kind::kRows: {
      if (split.begin < 0 || split.end <= split.begin) {
        return InvalidArgumentError("row split [", split.begin, ", ", split.end, ") is empty or negative");
      }
      if (source.has_range()) {
        const spec::Range& range = source.range();
        const int64_t step = range.has_step() ? range.step() : 1;
        const __int128 begin_value = static_cast<__int128>(range.start()) + static_cast<__int128>(split.begin) * step;
        const __int128 end_value = static_cast<__int128>(range.start()) + static_cast<__int128>(split.end) * step;
        const bool past_stop = step > 0 ? end_value >= range.stop() : end_value <= range.stop();
        if (step > 0 ? begin_value >= range.stop() : begin_value <= range.stop()) {
          return InvalidArgumentError("row split [", split.begin, ", ", split.end, ") starts past the range's end");
        }
        out.mutable_range()->set_start(static_cast<int64_t>(begin_value));
        out.mutable_range()->set_stop(past_stop ? range.stop() : static_cast<int64_t>(end_value));
        return out;
      }
      if (source.has_from_slices()) {
        for (spec::NamedTensor& component : *out.mutable_from_slices()->mutable_components()) {
          SLUICE_ASSIGN_OR_RETURN(Tensor tensor, TensorFromProto(component.tensor()));
          if (tensor.rank() == 0 || split.end > tensor.dim(0)) {
            return InvalidArgumentError("row split [", split.begin, ", ", split.end,
                                        ") is outside from_slices' component of shape ", tensor.shape());
          }
          component.clear_tensor();
          TensorToProto(tensor.Slice(split.begin, split.end), component.mutable_tensor());
        }
        return out;
      }
      return InvalidArgumentError("a row split needs a range or from_slices source");
    }
    case SourceSplit::Kind::kShard:
      if (source.has_labelled_files()) return ShardedLabelledFiles(source, split);
      return out;  // the shard op follows the source
  }
  return InvalidArgumentError("unknown split kind");
}

}  // namespace

Result<std::vector<SourceSplit>> ListSplits(const spec::Pipeline& pipeline, ProcessingMode mode, int64_t num_shards,
                                            SplitOptions options, uint64_t max_splits) {
  if (pipeline.ops_size() == 0) return InvalidArgumentError("the pipeline spec has no ops");
  switch (mode) {
    case ProcessingMode::kParallelEpochs: return std::vector<SourceSplit>{{.kind = SourceSplit::Kind::kWhole}};
    case ProcessingMode::kStaticSharding: {
      if (num_shards < 1) return InvalidArgumentError("static_sharding needs num_shards >= 1, got ", num_shards);
      std::vector<SourceSplit> splits;
      for (int64_t i = 0; i < num_shards; ++i) {
        splits.push_back({.kind = SourceSplit::Kind::kShard, .shard_index = i, .num_shards = num_shards});
      }
      return splits;
    }
    case ProcessingMode::kDistributedEpoch: return DistributedSplits(pipeline, options, max_splits);
  }
  return InvalidArgumentError("unknown processing mode");
}

int64_t EpochCount(const spec::Pipeline& pipeline) {
  int64_t epochs = 1;
  for (const Node& node : pipeline.ops()) {
    if (!node.has_repeat()) continue;
    const int64_t count = node.repeat().has_count() ? node.repeat().count() : -1;
    if (count < 0) return -1;
    if (count == 0) return 0;
    if (epochs > INT64_MAX / count) return -1;  // more epochs than anyone can run: forever
    epochs *= count;
  }
  return epochs;
}

Result<spec::Pipeline> SplitPipelineSpec(const spec::Pipeline& pipeline, ProcessingMode mode,
                                         const SourceSplit& split, int64_t split_id, JobSeeds job) {
  if (pipeline.ops_size() == 0) return InvalidArgumentError("the pipeline spec has no ops");
  spec::Pipeline out;
  if (pipeline.has_seed()) out.set_seed(pipeline.seed());
  SLUICE_ASSIGN_OR_RETURN(*out.add_ops(), RestrictedSource(pipeline.ops(0), split));
  if (split.kind == SourceSplit::Kind::kShard && !pipeline.ops(0).has_labelled_files()) {
    spec::Shard* shard = out.add_ops()->mutable_shard();
    shard->set_num_shards(split.num_shards);
    shard->set_index(split.shard_index);
  }
  for (int i = 1; i < pipeline.ops_size(); ++i) {
    // Epochs of a distributed job are the dispatcher's repeat.
    if (mode == ProcessingMode::kDistributedEpoch && pipeline.ops(i).has_repeat()) continue;
    *out.add_ops() = pipeline.ops(i);
  }
  // The worker's task buffer runs ahead of its consumers as a trailing
  // prefetch would; kept, each would start and join a thread per split.
  while (out.ops_size() > 1 && out.ops(out.ops_size() - 1).has_prefetch()) out.mutable_ops()->RemoveLast();
  if (mode != ProcessingMode::kParallelEpochs) {
    PinSplitRandomness(out, SeedsOf(split, split_id, job));
  } else {
    if (job.iteration > 0) MixIterationIntoSeeds(out, job.iteration);
    // A job seed of 0 (its consumer chose none) leaves such a shuffle's
    // seed to the worker's runtime.
    if (job.seed != 0) SeedKeptOrders(out, job.seed);
  }
  return out;
}

Result<DatasetPtr> MakeSplitDataset(const spec::Pipeline& pipeline, ProcessingMode mode, const SourceSplit& split,
                                    int64_t split_id, JobSeeds job) {
  SLUICE_ASSIGN_OR_RETURN(spec::Pipeline split_spec, SplitPipelineSpec(pipeline, mode, split, split_id, job));
  return DatasetFromSpec(split_spec);
}

std::string SplitDebugString(const SourceSplit& split) {
  switch (split.kind) {
    case SourceSplit::Kind::kWhole: return "whole pipeline";
    case SourceSplit::Kind::kFile: return StrCat("file ", split.file);
    case SourceSplit::Kind::kRows: return StrCat("rows [", split.begin, ", ", split.end, ")");
    case SourceSplit::Kind::kShard: return StrCat("shard ", split.shard_index, " of ", split.num_shards);
  }
  return "unknown split";
}

}  // namespace sluice::service
