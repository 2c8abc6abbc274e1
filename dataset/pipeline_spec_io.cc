#include "sluice/dataset/pipeline_spec_io.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/text_format.h>

#include <algorithm>

#include "sluice/dataset/batch_dataset.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/cache_dataset.h"
#include "sluice/dataset/concatenate_dataset.h"
#include "sluice/dataset/enumerate_dataset.h"
#include "sluice/dataset/filter_dataset.h"
#include "sluice/dataset/from_slices_dataset.h"
#include "sluice/dataset/from_tensors_dataset.h"
#include "sluice/dataset/ignore_errors_dataset.h"
#include "sluice/dataset/interleave_dataset.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/list_files_dataset.h"
#include "sluice/dataset/map_dataset.h"
#include "sluice/dataset/padded_batch_dataset.h"
#include "sluice/dataset/prefetch_dataset.h"
#include "sluice/dataset/range_dataset.h"
#include "sluice/dataset/repeat_dataset.h"
#include "sluice/dataset/shard_dataset.h"
#include "sluice/dataset/shuffle_dataset.h"
#include "sluice/dataset/skip_dataset.h"
#include "sluice/dataset/take_dataset.h"
#include "sluice/dataset/tensor_proto.h"
#include "sluice/dataset/text_proto_file.h"
#include "sluice/dataset/tfrecord_dataset.h"
#include "sluice/dataset/unbatch_dataset.h"
#include "sluice/dataset/zip_dataset.h"

namespace sluice {
namespace {

using Node = spec::DatasetNode;

// The op's field name in the spec ("batch"), or "unset".
std::string OpName(const Node& node) {
  const auto* field = Node::descriptor()->FindFieldByNumber(node.op_case());
  return field == nullptr ? "unset" : field->name();
}

// Returns `result`, or its error prefixed with `context`.
template <typename T>
Result<T> WithContext(Result<T> result, std::string_view context) {
  if (!result.ok()) return result.status().WithContext(context);
  return result;
}

Result<std::vector<NamedTensor>> ComponentsFromProto(
    const google::protobuf::RepeatedPtrField<spec::NamedTensor>& protos) {
  std::vector<NamedTensor> components;
  for (int i = 0; i < protos.size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(NamedTensor component, WithContext(NamedTensorFromProto(protos[i]),
                                                               StrCat("components[", i, "]")));
    components.push_back(std::move(component));
  }
  return components;
}

// The options of a tfrecord node or of a TFRECORD element_source (whose
// files come from the element instead).
Result<TFRecordOptions> TFRecordOptionsFromSpec(const spec::TFRecord& node) {
  TFRecordOptions options{.files = {node.files().begin(), node.files().end()}};
  SLUICE_ASSIGN_OR_RETURN(options.compression,
                          WithContext(ParseCompression(node.compression()), "compression"));
  if (node.has_buffer_size()) options.buffer_size = node.buffer_size();
  if (node.has_num_parallel_reads()) options.num_parallel_reads = node.num_parallel_reads();
  if (node.has_max_record_bytes()) options.max_record_bytes = node.max_record_bytes();
  if (!node.on_corrupt().empty()) {
    SLUICE_ASSIGN_OR_RETURN(options.on_corrupt,
                            WithContext(ParseCorruptRecordPolicy(node.on_corrupt()), "on_corrupt"));
  }
  return options;
}

Result<DatasetPtr> BuildSource(const Node& node) {
  switch (node.op_case()) {
    case Node::kFromSlices: {
      SLUICE_ASSIGN_OR_RETURN(auto components,
                              ComponentsFromProto(node.from_slices().components()));
      return MakeFromSlicesDataset(std::move(components));
    }
    case Node::kFromTensors: {
      SLUICE_ASSIGN_OR_RETURN(auto components,
                              ComponentsFromProto(node.from_tensors().components()));
      return MakeFromTensorsDataset(std::move(components));
    }
    case Node::kRange: {
      const spec::Range& range = node.range();
      RangeOptions options{.start = range.start(), .stop = range.stop()};
      if (range.has_step()) options.step = range.step();
      if (!range.dtype().empty()) {
        SLUICE_ASSIGN_OR_RETURN(options.dtype, WithContext(ParseDType(range.dtype()), "dtype"));
      }
      return MakeRangeDataset(options);
    }
    case Node::kTfrecord: {
      SLUICE_ASSIGN_OR_RETURN(TFRecordOptions options, TFRecordOptionsFromSpec(node.tfrecord()));
      return MakeTFRecordDataset(std::move(options));
    }
    case Node::kListFiles: {
      const spec::ListFiles& list = node.list_files();
      ListFilesOptions options{.patterns = {list.patterns().begin(), list.patterns().end()}};
      if (list.has_shuffle()) options.shuffle = list.shuffle();
      if (list.has_seed()) options.seed = list.seed();
      return MakeListFilesDataset(std::move(options));
    }
    case Node::kElementSource:
      return InvalidArgumentError(
          "element_source is only allowed as the first op of interleave's function");
    case Node::OP_NOT_SET: return InvalidArgumentError("the node has no op set");
    default:
      return InvalidArgumentError(
          "a pipeline must start with a source (from_slices, from_tensors, range, tfrecord or "
          "list_files)");
  }
}

Result<PaddedBatchOptions> PaddedBatchOptionsFromSpec(const spec::PaddedBatch& node) {
  PaddedBatchOptions options;
  options.batch_size = node.batch_size();
  options.drop_remainder = node.drop_remainder();
  for (int i = 0; i < node.padded_shapes_size(); ++i) {
    const auto& dims = node.padded_shapes(i).dims();
    if (dims.size() > kMaxRank) {
      return InvalidArgumentError("padded_shapes[", i, "] has rank ", dims.size(),
                                  ", above the maximum rank ", kMaxRank);
    }
    for (int64_t d : dims) {
      if (d < -1) {
        return InvalidArgumentError("padded_shapes[", i, "] has dimension ", d,
                                    " (expected >= 0, or -1 for the batch maximum)");
      }
    }
    options.padded_shapes.emplace_back(std::span<const int64_t>(dims.data(), dims.size()));
  }
  for (int i = 0; i < node.padding_values_size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(Tensor value, WithContext(TensorFromProto(node.padding_values(i)),
                                                      StrCat("padding_values[", i, "]")));
    options.padding_values.push_back(std::move(value));
  }
  return options;
}

// The spec an interleave's function is part of, kept alive by the function:
// nested functions view their part of it instead of copying it, so that a
// function nested n deep is not copied again at each of the n levels. Null
// when no function holds the spec being built (DatasetFromSpec's argument).
using SpecOwner = std::shared_ptr<const spec::Pipeline>;

Result<DatasetPtr> ApplyOps(const spec::Pipeline& pipeline, int first, DatasetPtr dataset, const SpecOwner& owner);
Result<DatasetPtr> BuildPipeline(const spec::Pipeline& pipeline, const SpecOwner& owner);
Result<DatasetFunctionPtr> BuildFunction(SpecOwner function, const ElementSpec& input_spec, int input_depth);

// An op's optional `deterministic` field.
Determinism DeterminismFromSpec(bool has_deterministic, bool deterministic) {
  if (!has_deterministic) return Determinism::kDefault;
  return deterministic ? Determinism::kDeterministic : Determinism::kNondeterministic;
}

// One op of a chain, reading `input`.
Result<DatasetPtr> ApplyOp(const Node& node, DatasetPtr input, const SpecOwner& owner) {
  switch (node.op_case()) {
    case Node::kMap: {
      if (!node.map().has_fn()) return InvalidArgumentError("map has no fn");
      SLUICE_ASSIGN_OR_RETURN(ElementFunctionPtr fn, ElementFunctionFromSpec(node.map().fn()));
      return MakeMapDataset(std::move(input), std::move(fn),
                            {.num_parallel_calls = node.map().num_parallel_calls(),
                             .deterministic = DeterminismFromSpec(node.map().has_deterministic(),
                                                                  node.map().deterministic())});
    }
    case Node::kFilter: {
      if (!node.filter().has_predicate()) return InvalidArgumentError("filter has no predicate");
      SLUICE_ASSIGN_OR_RETURN(PredicatePtr predicate, PredicateFromSpec(node.filter().predicate()));
      return MakeFilterDataset(std::move(input), std::move(predicate));
    }
    case Node::kShuffle: {
      const spec::Shuffle& shuffle = node.shuffle();
      ShuffleOptions options;
      options.buffer_size = shuffle.buffer_size();
      if (shuffle.has_seed()) options.seed = shuffle.seed();
      if (shuffle.has_reshuffle_each_iteration()) {
        options.reshuffle_each_iteration = shuffle.reshuffle_each_iteration();
      }
      return MakeShuffleDataset(std::move(input), options);
    }
    case Node::kBatch:
      return MakeBatchDataset(std::move(input),
                              {.batch_size = node.batch().batch_size(),
                               .drop_remainder = node.batch().drop_remainder(),
                               .num_parallel_calls = node.batch().num_parallel_calls(),
                               .deterministic = DeterminismFromSpec(node.batch().has_deterministic(),
                                                                    node.batch().deterministic())});
    case Node::kPaddedBatch: {
      SLUICE_ASSIGN_OR_RETURN(PaddedBatchOptions options,
                              PaddedBatchOptionsFromSpec(node.padded_batch()));
      return MakePaddedBatchDataset(std::move(input), std::move(options));
    }
    case Node::kPrefetch:
      return MakePrefetchDataset(std::move(input), {.buffer_size = node.prefetch().buffer_size()});
    case Node::kRepeat:
      return MakeRepeatDataset(std::move(input),
                               {.count = node.repeat().has_count() ? node.repeat().count() : -1});
    case Node::kTake: return MakeTakeDataset(std::move(input), {.count = node.take().count()});
    case Node::kSkip: return MakeSkipDataset(std::move(input), {.count = node.skip().count()});
    case Node::kInterleave: {
      const spec::Interleave& interleave = node.interleave();
      if (!interleave.has_function()) return InvalidArgumentError("interleave has no function");
      SLUICE_ASSIGN_OR_RETURN(
          DatasetFunctionPtr fn,
          WithContext(BuildFunction(owner != nullptr ? SpecOwner(owner, &interleave.function())
                                                     : std::make_shared<const spec::Pipeline>(interleave.function()),
                                    input->element_spec(), input->depth()),
                      "function"));
      const InterleaveOptions options{
          .cycle_length = interleave.has_cycle_length() ? interleave.cycle_length() : kAutotune,
          .block_length = interleave.has_block_length() ? interleave.block_length() : 1,
          .num_parallel_calls = interleave.num_parallel_calls(),
          .deterministic = DeterminismFromSpec(interleave.has_deterministic(), interleave.deterministic())};
      return MakeInterleaveDataset(std::move(input), std::move(fn), options);
    }
    case Node::kZip: {
      std::vector<DatasetPtr> inputs = {std::move(input)};
      for (int i = 0; i < node.zip().others_size(); ++i) {
        SLUICE_ASSIGN_OR_RETURN(DatasetPtr other, WithContext(BuildPipeline(node.zip().others(i), owner),
                                                              StrCat("others[", i, "]")));
        inputs.push_back(std::move(other));
      }
      return MakeZipDataset(std::move(inputs));
    }
    case Node::kConcatenate: {
      if (!node.concatenate().has_other()) return InvalidArgumentError("concatenate has no other");
      SLUICE_ASSIGN_OR_RETURN(DatasetPtr other,
                              WithContext(BuildPipeline(node.concatenate().other(), owner), "other"));
      return MakeConcatenateDataset(std::move(input), std::move(other));
    }
    case Node::kShard:
      return MakeShardDataset(std::move(input), {.num_shards = node.shard().num_shards(),
                                                 .index = node.shard().index()});
    case Node::kUnbatch: return MakeUnbatchDataset(std::move(input));
    case Node::kCache: return MakeCacheDataset(std::move(input));
    case Node::kEnumerate:
      return MakeEnumerateDataset(std::move(input), {.start = node.enumerate().start()});
    case Node::kIgnoreErrors:
      return MakeIgnoreErrorsDataset(std::move(input),
                                     {.log_warning = node.ignore_errors().log_warning()});
    case Node::kFromSlices:
    case Node::kFromTensors:
    case Node::kRange:
    case Node::kTfrecord:
    case Node::kListFiles:
      return InvalidArgumentError("a source can only be the first op of a pipeline");
    case Node::kElementSource:
      return InvalidArgumentError(
          "element_source is only allowed as the first op of interleave's function");
    case Node::OP_NOT_SET: break;
  }
  return InvalidArgumentError("the node has no op set");
}

// Builds ops[first], ops[first + 1], ... of `pipeline` on top of `dataset`.
Result<DatasetPtr> ApplyOps(const spec::Pipeline& pipeline, int first, DatasetPtr dataset, const SpecOwner& owner) {
  for (int i = first; i < pipeline.ops_size(); ++i) {
    const Node& node = pipeline.ops(i);
    const std::string context = StrCat("ops[", i, "] (", OpName(node), ")");
    SLUICE_ASSIGN_OR_RETURN(dataset, WithContext(ApplyOp(node, std::move(dataset), owner), context));
  }
  return dataset;
}

// ---- interleave's function ----

using Kind = spec::ElementSource::Kind;

// The spec of the datasets an element_source makes from elements of `input`
// (TFRECORD's comes from its function, MakeTFRecordFunction).
Result<ElementSpec> SourceSpec(Kind kind, const ElementSpec& input) {
  switch (kind) {
    case spec::ElementSource::TENSORS: return input;
    case spec::ElementSource::SLICES: {
      std::vector<ComponentSpec> out;
      for (size_t i = 0; i < input.size(); ++i) {
        if (input[i].shape.rank() == 0) {
          return InvalidArgumentError("SLICES needs components of rank >= 1, but component ",
                                      input.DisplayName(i), " is a scalar in ", input);
        }
        out.push_back({input[i].name, input[i].dtype, input[i].shape.WithoutFirstDim()});
      }
      return ElementSpec(std::move(out));
    }
    case spec::ElementSource::RANGE:
      if (input.size() != 1 || !IsInteger(input[0].dtype) || input[0].shape.rank() > 0) {
        return InvalidArgumentError("RANGE needs elements that are one integer scalar, got ",
                                    input);
      }
      return ElementSpec{{"", DType::kInt64, Shape{}}};
    default: return InvalidArgumentError("unknown element_source kind ", static_cast<int>(kind));
  }
}

// The source of a function's chain before an element is bound to it: it
// carries the element spec, so the ops after it infer their specs, and
// writes itself back as the element_source it stands for. Never iterated.
// It stands as deep as the interleave's input (`input_depth`), so that a
// function's ops, and the functions nested in them, count toward the
// graph's depth.
class ElementSourceDataset final : public Dataset {
 public:
  ElementSourceDataset(spec::ElementSource source, ElementSpec spec, int input_depth)
      : Dataset(std::move(spec), kUnknownCardinality, input_depth), source_(std::move(source)) {}

  std::string_view op_name() const override { return "element_source"; }
  std::string DebugParams() const override {
    return StrCat("kind=", spec::ElementSource::Kind_Name(source_.kind()));
  }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext&) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    *pipeline->add_ops()->mutable_element_source() = source_;
    return OkStatus();
  }

 private:
  const spec::ElementSource source_;
};

class UnboundSourceIterator final : public Iterator {
 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    return FailedPreconditionError(
        "element_source: no element is bound to it (it only describes interleave's function)");
  }
  // No position to save: it yields nothing.
  Status SaveInternal(IteratorStateWriter&) override { return OkStatus(); }
  Status RestoreInternal(IteratorStateReader&) override { return OkStatus(); }
};

std::unique_ptr<Iterator> ElementSourceDataset::NewIteratorInternal(const IteratorContext&) const {
  return std::make_unique<UnboundSourceIterator>();
}

// The value of a scalar uint8, int32 or int64 tensor.
int64_t IntegerScalar(const Tensor& t) {
  switch (t.dtype()) {
    case DType::kUInt8: return t.scalar<uint8_t>();
    case DType::kInt32: return t.scalar<int32_t>();
    default: return t.scalar<int64_t>();  // int64, the last integer dtype
  }
}

class SpecDatasetFunction final : public DatasetFunction {
 public:
  // `tfrecord`: for a TFRECORD element_source, the function that opens the
  // files an element names; null for the other kinds.
  SpecDatasetFunction(SpecOwner function, ElementSpec input_spec, ElementSpec output_spec,
                      DatasetFunctionPtr tfrecord)
      : function_(std::move(function)),
        kind_(function_->ops(0).element_source().kind()),
        input_spec_(std::move(input_spec)),
        output_spec_(std::move(output_spec)),
        tfrecord_(std::move(tfrecord)) {}

  std::string name() const override {
    std::string out =
        StrCat("pipeline(element_source(", spec::ElementSource::Kind_Name(kind_), ")");
    for (int i = 1; i < function_->ops_size(); ++i) out += ", " + OpName(function_->ops(i));
    return out + ")";
  }
  Result<ElementSpec> OutputSpec(const ElementSpec& input) const override {
    if (!input.IsCompatibleWith(input_spec_)) {
      return InvalidArgumentError(name(), ": built for input elements ", input_spec_, " but given ",
                                  input);
    }
    return output_spec_;
  }
  Result<DatasetPtr> Apply(const Element& element) const override {
    SLUICE_RETURN_IF_ERROR(input_spec_.Check(element).WithContext("element_source"));
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr source,
                            WithContext(Source(element), "ops[0] (element_source)"));
    return ApplyOps(*function_, 1, std::move(source), function_);
  }
  Status ToSpec(spec::Pipeline* out) const override {
    *out = *function_;
    return OkStatus();
  }

 private:
  Result<DatasetPtr> Source(const Element& element) const {
    if (kind_ == spec::ElementSource::RANGE) {
      if (element[0].rank() != 0) {
        return InvalidArgumentError("RANGE needs a scalar element, got shape ", element[0].shape());
      }
      return MakeRangeDataset({.stop = IntegerScalar(element[0])});
    }
    if (tfrecord_ != nullptr) return tfrecord_->Apply(element);
    std::vector<NamedTensor> components;
    for (size_t i = 0; i < element.size(); ++i) {
      components.push_back({input_spec_[i].name, element[i]});
    }
    if (kind_ == spec::ElementSource::SLICES) return MakeFromSlicesDataset(std::move(components));
    return MakeFromTensorsDataset(std::move(components));
  }

  const SpecOwner function_;
  const Kind kind_;
  const ElementSpec input_spec_;
  const ElementSpec output_spec_;
  const DatasetFunctionPtr tfrecord_;
};

// Keeps the first error protobuf's text parser reports, 1-based.
// Protobuf's nesting limit for spec messages. A pipeline nested in another
// (by zip, concatenate or interleave) is three messages deeper (DatasetNode,
// the op, Pipeline) and an op's own fields at most six, so every spec whose
// pipelines nest within kMaxGraphDepth parses, and deeper ones stop before
// the parser's recursion can exhaust the stack.
constexpr int kMaxSpecMessageDepth = 3 * kMaxGraphDepth + 8;

Status CheckSpecSize(size_t bytes, std::string_view what) {
  if (bytes <= kMaxSpecBytes) return OkStatus();
  return InvalidArgumentError("cannot parse pipeline spec: ", what, " is larger than the limit of ", kMaxSpecBytes,
                              " bytes (kMaxSpecBytes)");
}

// Parses `text`; errors read "cannot parse pipeline spec: <where>:<line>:<column>: ...".
Result<spec::Pipeline> ParseText(std::string_view text, std::string_view where) {
  spec::Pipeline pipeline;
  SLUICE_RETURN_IF_ERROR(ParseTextProto(text, "pipeline spec", where, kMaxSpecMessageDepth, &pipeline));
  return pipeline;
}

// How deep pipelines nest in `pipeline` (1 when it has no zip, concatenate
// or interleave), walked on a stack of our own.
int PipelineNesting(const spec::Pipeline& pipeline) {
  int deepest = 0;
  std::vector<std::pair<const spec::Pipeline*, int>> pending = {{&pipeline, 1}};
  while (!pending.empty()) {
    const auto [chain, level] = pending.back();
    pending.pop_back();
    deepest = std::max(deepest, level);
    for (const Node& node : chain->ops()) {
      if (node.has_zip()) {
        for (const spec::Pipeline& other : node.zip().others()) pending.emplace_back(&other, level + 1);
      } else if (node.has_concatenate()) {
        pending.emplace_back(&node.concatenate().other(), level + 1);
      } else if (node.has_interleave()) {
        pending.emplace_back(&node.interleave().function(), level + 1);
      }
    }
  }
  return deepest;
}

// Building recurses once per nested pipeline, and each adds at least one
// dataset to the depth of the graph it is part of: nesting deeper than
// kMaxGraphDepth is refused before anything is built.
Status CheckNesting(const spec::Pipeline& pipeline) {
  const int nesting = PipelineNesting(pipeline);
  if (nesting <= kMaxGraphDepth) return OkStatus();
  return InvalidArgumentError("the pipeline spec nests pipelines (zip, concatenate, interleave) ", nesting,
                              " deep, above the limit of ", kMaxGraphDepth, " (kMaxGraphDepth)");
}

Result<DatasetPtr> BuildPipeline(const spec::Pipeline& pipeline, const SpecOwner& owner) {
  if (pipeline.ops_size() == 0) return InvalidArgumentError("the pipeline spec has no ops");
  const Node& first = pipeline.ops(0);
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr source,
                          WithContext(BuildSource(first), StrCat("ops[0] (", OpName(first), ")")));
  return ApplyOps(pipeline, 1, std::move(source), owner);
}

// MakeSpecDatasetFunction for the interleave of a dataset `input_depth` deep.
Result<DatasetFunctionPtr> BuildFunction(SpecOwner function, const ElementSpec& input_spec, int input_depth) {
  if (function->ops_size() == 0 || function->ops(0).op_case() != Node::kElementSource) {
    return InvalidArgumentError(
        "interleave's function must start with an element_source, but starts with ",
        function->ops_size() == 0 ? "nothing" : OpName(function->ops(0)));
  }
  const spec::ElementSource& source = function->ops(0).element_source();
  // TFRECORD's records come from the built-in tfrecord function.
  DatasetFunctionPtr tfrecord;
  if (source.kind() == spec::ElementSource::TFRECORD) {
    SLUICE_ASSIGN_OR_RETURN(TFRecordOptions options,
                            WithContext(TFRecordOptionsFromSpec(source.tfrecord()), "ops[0] (element_source)"));
    SLUICE_ASSIGN_OR_RETURN(tfrecord, WithContext(MakeTFRecordFunction(std::move(options)),
                                                  "ops[0] (element_source)"));
  }
  SLUICE_ASSIGN_OR_RETURN(
      ElementSpec source_spec,
      WithContext(tfrecord ? tfrecord->OutputSpec(input_spec) : SourceSpec(source.kind(), input_spec),
                  "ops[0] (element_source)"));
  SLUICE_ASSIGN_OR_RETURN(
      DatasetPtr unbound,
      WithContext(Dataset::Make<ElementSourceDataset>(source, std::move(source_spec), input_depth),
                  "ops[0] (element_source)"));
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr chain, ApplyOps(*function, 1, std::move(unbound), function));
  ElementSpec output_spec = chain->element_spec();
  return DatasetFunctionPtr(std::make_shared<SpecDatasetFunction>(std::move(function), input_spec,
                                                                  std::move(output_spec), std::move(tfrecord)));
}

}  // namespace

Result<spec::Pipeline> DatasetToSpec(const Dataset& dataset) {
  spec::Pipeline pipeline;
  SLUICE_RETURN_IF_ERROR(dataset.ToSpec(&pipeline));
  return pipeline;
}

Result<DatasetPtr> DatasetFromSpec(const spec::Pipeline& pipeline) {
  SLUICE_RETURN_IF_ERROR(CheckNesting(pipeline));
  return BuildPipeline(pipeline, /*owner=*/nullptr);
}

Result<DatasetFunctionPtr> MakeSpecDatasetFunction(spec::Pipeline function,
                                                   const ElementSpec& input_spec) {
  SLUICE_RETURN_IF_ERROR(CheckNesting(function));
  return BuildFunction(std::make_shared<const spec::Pipeline>(std::move(function)), input_spec, /*input_depth=*/1);
}

Result<spec::Pipeline> ParseSpecText(std::string_view text) {
  SLUICE_RETURN_IF_ERROR(CheckSpecSize(text.size(), "the text"));
  return ParseText(text, "");
}

Result<spec::Pipeline> ParseSpecBinary(std::string_view bytes) {
  SLUICE_RETURN_IF_ERROR(CheckSpecSize(bytes.size(), "the binary spec"));
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  input.SetRecursionLimit(kMaxSpecMessageDepth);
  spec::Pipeline pipeline;
  if (!pipeline.ParseFromCodedStream(&input) || !input.ConsumedEntireMessage()) {
    return InvalidArgumentError("cannot parse pipeline spec: ", bytes.size(),
                                " bytes are not a binary Pipeline message whose messages nest at most ",
                                kMaxSpecMessageDepth, " deep");
  }
  return pipeline;
}

Result<spec::Pipeline> ReadSpecFile(const std::string& path) {
  SLUICE_ASSIGN_OR_RETURN(const std::string text,
                          ReadTextFile(path, {.what = "pipeline spec", .max_bytes = kMaxSpecBytes,
                                              .limit_name = "kMaxSpecBytes"}));
  return ParseText(text, StrCat(path, ":"));
}

std::string SpecToText(const spec::Pipeline& pipeline) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(pipeline, &text);
  return text;
}

}  // namespace sluice
