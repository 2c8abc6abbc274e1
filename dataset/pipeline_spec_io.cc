#include "sluice/dataset/pipeline_spec_io.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/text_format.h>

#include <algorithm>

#include "sluice/dataset/csv_dataset.h"
#include "sluice/dataset/fixed_length_record_dataset.h"
#include "sluice/dataset/from_slices_dataset.h"
#include "sluice/dataset/from_tensors_dataset.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/range_dataset.h"
#include "sluice/dataset/text_line_dataset.h"
#include "sluice/dataset/text_proto_file.h"
#include "sluice/dataset/tfrecord_dataset.h"

namespace sluice {
namespace {

using Node = spec::DatasetNode;

// The spec an interleave's function is part of, kept alive by the function:
// nested functions view their part of it instead of copying it, so that a
// function nested n deep is not copied again at each of the n levels. Null
// when no function holds the spec being built (DatasetFromSpec's argument).
using SpecOwner = std::shared_ptr<const spec::Pipeline>;

// `seed`: the pipeline seed of the enclosing pipeline, which `pipeline` takes
// unless it has its own.
using PipelineSeed = std::optional<uint64_t>;
Result<DatasetPtr> ApplyOps(const spec::Pipeline& pipeline, int first, DatasetPtr dataset, const SpecOwner& owner,
                            PipelineSeed seed);
Result<DatasetPtr> BuildPipeline(const spec::Pipeline& pipeline, const SpecOwner& owner, PipelineSeed seed);
Result<DatasetFunctionPtr> BuildFunction(SpecOwner function, const ElementSpec& input_spec, int input_depth,
                                         PipelineSeed seed);

// The seed of `pipeline`'s ops: its own, else the enclosing one.
PipelineSeed SeedOf(const spec::Pipeline& pipeline, PipelineSeed enclosing) {
  return pipeline.has_seed() ? PipelineSeed(pipeline.seed()) : enclosing;
}

// What the readers of one chain's ops see: the op before them, and the
// builders of nested pipelines and functions, which share `owner`.
class ChainContext final : public OpSpecContext {
 public:
  ChainContext(DatasetPtr input, const SpecOwner& owner, PipelineSeed seed)
      : input_(std::move(input)), owner_(owner), seed_(seed) {}

  const DatasetPtr& input() const override { return input_; }
  PipelineSeed pipeline_seed() const override { return seed_; }
  Result<DatasetPtr> BuildPipeline(const spec::Pipeline& pipeline) const override {
    return sluice::BuildPipeline(pipeline, owner_, seed_);
  }
  Result<DatasetFunctionPtr> BuildFunction(const spec::Pipeline& function) const override {
    SLUICE_CHECK(input_ != nullptr) << "a source has no elements to apply a function to";
    SpecOwner held = owner_ != nullptr ? SpecOwner(owner_, &function) : std::make_shared<const spec::Pipeline>(function);
    return sluice::BuildFunction(std::move(held), input_->element_spec(), input_->depth(), seed_);
  }

 private:
  const DatasetPtr input_;
  const SpecOwner& owner_;
  const PipelineSeed seed_;
};

// The op `node` describes, reading `input` (null for the first op of a chain).
Result<DatasetPtr> ReadOp(const Node& node, DatasetPtr input, const SpecOwner& owner, PipelineSeed seed) {
  if (node.op_case() == Node::kElementSource) {
    return InvalidArgumentError("element_source is only allowed as the first op of interleave's function");
  }
  const OpSpecReader* reader = FindOpSpecReader(node.op_case());
  if (reader == nullptr) return InvalidArgumentError("the node has no op set");
  if (input == nullptr && !reader->is_source) {
    return InvalidArgumentError("a pipeline must start with a source (", SpecSourceNames(), ")");
  }
  if (input != nullptr && reader->is_source) {
    return InvalidArgumentError("a source can only be the first op of a pipeline");
  }
  return reader->read(node, ChainContext(std::move(input), owner, seed));
}

// Builds ops[first], ops[first + 1], ... of `pipeline` on top of `dataset`.
Result<DatasetPtr> ApplyOps(const spec::Pipeline& pipeline, int first, DatasetPtr dataset, const SpecOwner& owner,
                            PipelineSeed seed) {
  seed = SeedOf(pipeline, seed);
  for (int i = first; i < pipeline.ops_size(); ++i) {
    const Node& node = pipeline.ops(i);
    const std::string context = StrCat("ops[", i, "] (", SpecOpName(node), ")");
    SLUICE_ASSIGN_OR_RETURN(dataset, WithContext(ReadOp(node, std::move(dataset), owner, seed), context));
  }
  return dataset;
}

// ---- interleave's function ----

using Kind = spec::ElementSource::Kind;

// The spec of the datasets an element_source makes from elements of `input`
// (the file sources' come from their functions: ReadFilesFunction).
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
  // `read_files`: for a file source's element_source (TFRECORD, TEXT_LINE,
  // CSV, FIXED_LENGTH_RECORD), the function that reads the files an element
  // names; null for the other kinds.
  SpecDatasetFunction(SpecOwner function, ElementSpec input_spec, ElementSpec output_spec,
                      DatasetFunctionPtr read_files, PipelineSeed seed)
      : function_(std::move(function)),
        seed_(seed),
        kind_(function_->ops(0).element_source().kind()),
        input_spec_(std::move(input_spec)),
        output_spec_(std::move(output_spec)),
        read_files_(std::move(read_files)) {}

  std::string name() const override {
    std::string out =
        StrCat("pipeline(element_source(", spec::ElementSource::Kind_Name(kind_), ")");
    for (int i = 1; i < function_->ops_size(); ++i) out += ", " + SpecOpName(function_->ops(i));
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
    return ApplyOps(*function_, 1, std::move(source), function_, seed_);
  }
  Status ToSpec(spec::Pipeline* out) const override {
    *out = *function_;
    if (seed_) out->set_seed(*seed_);
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
    if (read_files_ != nullptr) return read_files_->Apply(element);
    std::vector<NamedTensor> components;
    for (size_t i = 0; i < element.size(); ++i) {
      components.push_back({input_spec_[i].name, element[i]});
    }
    if (kind_ == spec::ElementSource::SLICES) return MakeFromSlicesDataset(std::move(components));
    return MakeFromTensorsDataset(std::move(components));
  }

  const SpecOwner function_;
  const PipelineSeed seed_;  // the function's pipeline seed (SeedOf)
  const Kind kind_;
  const ElementSpec input_spec_;
  const ElementSpec output_spec_;
  const DatasetFunctionPtr read_files_;
};

// The built-in function that reads the files an element names, for a
// TFRECORD, TEXT_LINE, CSV or FIXED_LENGTH_RECORD element_source; null for
// the other kinds.
Result<DatasetFunctionPtr> ReadFilesFunction(const spec::ElementSource& source) {
  switch (source.kind()) {
    case spec::ElementSource::TFRECORD: {
      SLUICE_ASSIGN_OR_RETURN(TFRecordOptions options, TFRecordOptionsFromSpec(source.tfrecord()));
      return MakeTFRecordFunction(std::move(options));
    }
    case spec::ElementSource::TEXT_LINE: {
      SLUICE_ASSIGN_OR_RETURN(TextLineOptions options, TextLineOptionsFromSpec(source.text_line()));
      return MakeTextLineFunction(std::move(options));
    }
    case spec::ElementSource::CSV: {
      SLUICE_ASSIGN_OR_RETURN(CsvOptions options, CsvOptionsFromSpec(source.csv()));
      return MakeCsvFunction(std::move(options));
    }
    case spec::ElementSource::FIXED_LENGTH_RECORD: {
      SLUICE_ASSIGN_OR_RETURN(FixedLengthRecordOptions options,
                              FixedLengthRecordOptionsFromSpec(source.fixed_length_record()));
      return MakeFixedLengthRecordFunction(std::move(options));
    }
    default: return DatasetFunctionPtr();
  }
}

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

// Appends the pipelines `node` holds (zip's others, interleave's function,
// ...): the fields of type Pipeline in the op's message.
void AppendNestedPipelines(const Node& node, std::vector<const spec::Pipeline*>* out) {
  const google::protobuf::Reflection* node_reflection = node.GetReflection();
  const google::protobuf::FieldDescriptor* op_field =
      node_reflection->GetOneofFieldDescriptor(node, Node::descriptor()->FindOneofByName("op"));
  if (op_field == nullptr || op_field->message_type() == nullptr) return;
  const google::protobuf::Message& op = node_reflection->GetMessage(node, op_field);
  const google::protobuf::Reflection* reflection = op.GetReflection();
  const google::protobuf::Descriptor* descriptor = op.GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = descriptor->field(i);
    if (field->message_type() != spec::Pipeline::descriptor()) continue;
    if (field->is_repeated()) {
      for (int j = 0; j < reflection->FieldSize(op, field); ++j) {
        out->push_back(static_cast<const spec::Pipeline*>(&reflection->GetRepeatedMessage(op, field, j)));
      }
    } else if (reflection->HasField(op, field)) {
      out->push_back(static_cast<const spec::Pipeline*>(&reflection->GetMessage(op, field)));
    }
  }
}

// How deep pipelines nest in `pipeline` (1 when none of its ops holds a
// pipeline), walked on a stack of our own.
int PipelineNesting(const spec::Pipeline& pipeline) {
  int deepest = 0;
  std::vector<std::pair<const spec::Pipeline*, int>> pending = {{&pipeline, 1}};
  std::vector<const spec::Pipeline*> nested;
  while (!pending.empty()) {
    const auto [chain, level] = pending.back();
    pending.pop_back();
    deepest = std::max(deepest, level);
    for (const Node& node : chain->ops()) {
      nested.clear();
      AppendNestedPipelines(node, &nested);
      for (const spec::Pipeline* inner : nested) pending.emplace_back(inner, level + 1);
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
  return InvalidArgumentError("the pipeline spec nests pipelines (as zip's others, interleave's function) ", nesting,
                              " deep, above the limit of ", kMaxGraphDepth, " (kMaxGraphDepth)");
}

Result<DatasetPtr> BuildPipeline(const spec::Pipeline& pipeline, const SpecOwner& owner, PipelineSeed seed) {
  if (pipeline.ops_size() == 0) return InvalidArgumentError("the pipeline spec has no ops");
  return ApplyOps(pipeline, 0, /*dataset=*/nullptr, owner, seed);
}

// MakeSpecDatasetFunction for the interleave of a dataset `input_depth` deep.
Result<DatasetFunctionPtr> BuildFunction(SpecOwner function, const ElementSpec& input_spec, int input_depth,
                                         PipelineSeed seed) {
  seed = SeedOf(*function, seed);
  if (function->ops_size() == 0 || function->ops(0).op_case() != Node::kElementSource) {
    return InvalidArgumentError(
        "interleave's function must start with an element_source, but starts with ",
        function->ops_size() == 0 ? "nothing" : SpecOpName(function->ops(0)));
  }
  const spec::ElementSource& source = function->ops(0).element_source();
  // The file sources' elements come from a built-in function.
  SLUICE_ASSIGN_OR_RETURN(DatasetFunctionPtr read_files,
                          WithContext(ReadFilesFunction(source), "ops[0] (element_source)"));
  SLUICE_ASSIGN_OR_RETURN(
      ElementSpec source_spec,
      WithContext(read_files ? read_files->OutputSpec(input_spec) : SourceSpec(source.kind(), input_spec),
                  "ops[0] (element_source)"));
  SLUICE_ASSIGN_OR_RETURN(
      DatasetPtr unbound,
      WithContext(Dataset::Make<ElementSourceDataset>(source, std::move(source_spec), input_depth),
                  "ops[0] (element_source)"));
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr chain, ApplyOps(*function, 1, std::move(unbound), function, seed));
  ElementSpec output_spec = chain->element_spec();
  return DatasetFunctionPtr(std::make_shared<SpecDatasetFunction>(std::move(function), input_spec,
                                                                  std::move(output_spec), std::move(read_files), seed));
}

}  // namespace

Result<spec::Pipeline> DatasetToSpec(const Dataset& dataset) {
  spec::Pipeline pipeline;
  SLUICE_RETURN_IF_ERROR(dataset.ToSpec(&pipeline));
  return pipeline;
}

Result<DatasetPtr> DatasetFromSpec(const spec::Pipeline& pipeline) {
  SLUICE_RETURN_IF_ERROR(CheckNesting(pipeline));
  return BuildPipeline(pipeline, /*owner=*/nullptr, /*seed=*/std::nullopt);
}

Result<DatasetFunctionPtr> MakeSpecDatasetFunction(spec::Pipeline function,
                                                   const ElementSpec& input_spec) {
  SLUICE_RETURN_IF_ERROR(CheckNesting(function));
  return BuildFunction(std::make_shared<const spec::Pipeline>(std::move(function)), input_spec, /*input_depth=*/1,
                       /*seed=*/std::nullopt);
}

Result<DatasetPtr> MakeUnboundElementSource(spec::ElementSource::Kind kind, const ElementSpec& input_spec) {
  if (kind == spec::ElementSource::TFRECORD) {
    return InvalidArgumentError("an unbound TFRECORD element_source is not made in code; write its spec");
  }
  SLUICE_ASSIGN_OR_RETURN(ElementSpec source_spec, SourceSpec(kind, input_spec));
  spec::ElementSource source;
  source.set_kind(kind);
  return Dataset::Make<ElementSourceDataset>(std::move(source), std::move(source_spec), /*input_depth=*/1);
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
