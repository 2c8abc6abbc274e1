#include "sluice/tfrecord/sequence_example_parser.h"

#include <algorithm>
#include <vector>

#include "sluice/tfrecord/feature_outputs.h"
#include "sluice/tfrecord/record_reader.h"

namespace sluice {
namespace {

// SequenceExample: `Features context = 1; FeatureLists feature_lists = 2;`.
constexpr uint32_t kContextTag = WireTag(1, WireType::kLengthDelimited);
constexpr uint32_t kFeatureListsTag = WireTag(2, WireType::kLengthDelimited);
// FeatureList: `repeated Feature feature = 1;`, one per step.
constexpr uint32_t kStepTag = WireTag(1, WireType::kLengthDelimited);

template <typename Config>
std::vector<std::string> KeysOf(const std::vector<Config>& features) {
  std::vector<std::string> keys;
  for (const Config& feature : features) keys.push_back(feature.key);
  return keys;
}

std::string FeatureList(const SequenceFeatureConfig& config, int64_t record) {
  return StrCat("Feature list '", config.key, "'", InRecord(record));
}
std::string FeatureListStep(const SequenceFeatureConfig& config, int64_t record, int64_t step) {
  return StrCat(FeatureList(config, record), ", step ", step);
}

// Resolves each step of one record's feature list and appends it to *steps.
Status ResolveSteps(const SequenceFeatureConfig& config, const FeatureSlice& slice, int64_t record,
                    std::vector<FeatureValues>* steps) {
  const FeatureKind expected = FeatureKindOf(config.dtype);
  if (!slice.present) {
    if (!config.required) return OkStatus();
    return InvalidArgumentError("Feature list '", config.key, "' (", FeatureKindName(expected),
                                ") is required but missing", InRecord(record));
  }
  int64_t step = 0;
  return ForEachValuePayload(slice, [&](std::string_view feature_list) -> Status {
    WireReader reader(feature_list);
    while (!reader.AtEnd()) {
      uint32_t tag;
      std::string_view feature;
      if (!reader.ReadTag(&tag)) {
        return MalformedError("FeatureList", reader).WithContext(FeatureList(config, record));
      }
      if (tag != kStepTag) {
        if (reader.SkipField(tag)) continue;
        return MalformedError("FeatureList", reader).WithContext(FeatureList(config, record));
      }
      if (!reader.ReadLengthDelimited(&feature)) {
        return MalformedError("FeatureList", reader).WithContext(FeatureList(config, record));
      }
      FeatureValues values;
      if (Status status = ResolveFeature({.bytes = feature, .present = true}, &values);
          !status.ok()) {
        return status.WithContext(FeatureListStep(config, record, step));
      }
      if (values.kind != FeatureKind::kNone && values.kind != expected) {
        return InvalidArgumentError(FeatureListStep(config, record, step), ": expected ",
                                    FeatureKindName(expected), ", found ",
                                    FeatureKindName(values.kind));
      }
      if (config.layout == StepLayout::kFixedLen && values.count != config.shape.NumElements()) {
        return InvalidArgumentError(FeatureListStep(config, record, step), ": expected ",
                                    config.shape.NumElements(), " ", FeatureKindName(expected),
                                    " values per step (shape ", config.shape, "), found ",
                                    values.count);
      }
      steps->push_back(values);
      ++step;
    }
    return OkStatus();
  });
}

// The resolved steps of one sequence feature across the records of a batch.
class StepColumn {
 public:
  StepColumn(const std::vector<FeatureValues>& steps, const std::vector<size_t>& step_begin,
             size_t num_features, size_t feature)
      : steps_(steps), step_begin_(step_begin), stride_(num_features), feature_(feature) {}
  std::span<const FeatureValues> StepsOf(int64_t record) const {
    const size_t k = static_cast<size_t>(record) * stride_ + feature_;
    return std::span(steps_).subspan(step_begin_[k], step_begin_[k + 1] - step_begin_[k]);
  }

 private:
  const std::vector<FeatureValues>& steps_;
  const std::vector<size_t>& step_begin_;  // steps of (record, feature) k: [begin[k], begin[k + 1])
  size_t stride_;
  size_t feature_;
};

// Decodes the values of each step of `record` to out, one after the other,
// `stride` values apart (0: packed end to end). Returns past the last.
template <typename T>
Result<T*> CopySteps(const SequenceFeatureConfig& config, std::span<const FeatureValues> steps,
                     int64_t record, int64_t stride, T* out) {
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].count == 0) continue;
    if (Status status = CopyValues(steps[i], out); !status.ok()) {
      return status.WithContext(FeatureListStep(config, record, static_cast<int64_t>(i)));
    }
    out += stride != 0 ? stride : steps[i].count;
  }
  return out;
}

template <typename T>
Status WriteSequenceFeature(const SequenceFeatureConfig& config, const StepColumn& column,
                            int64_t num_records, bool batched, Element* out) {
  std::vector<int64_t> lengths(num_records);
  int64_t total_steps = 0;
  int64_t total_values = 0;
  for (int64_t r = 0; r < num_records; ++r) {
    lengths[r] = static_cast<int64_t>(column.StepsOf(r).size());
    total_steps += lengths[r];
    for (const FeatureValues& step : column.StepsOf(r)) total_values += step.count;
  }
  if (config.layout == StepLayout::kFixedLen) {
    const int64_t per_step = config.shape.NumElements();
    const int64_t max_steps =
        num_records == 0 ? 0 : *std::max_element(lengths.begin(), lengths.end());
    SLUICE_ASSIGN_OR_RETURN(
        Tensor values,
        AllocateFeatureOutput(config.key, config.dtype,
                              batched ? config.shape.Prepended(max_steps).Prepended(num_records)
                                      : config.shape.Prepended(total_steps)));
    T* pos = values.mutable_data<T>();
    for (int64_t r = 0; r < num_records; ++r) {
      const int64_t record = batched ? r : kSingleRecord;
      SLUICE_ASSIGN_OR_RETURN(pos, CopySteps(config, column.StepsOf(r), record, per_step, pos));
      if (batched) pos = std::fill_n(pos, (max_steps - lengths[r]) * per_step, T{});
    }
    out->components.push_back(std::move(values));
  } else {
    Tensor values = Tensor::AllocateUninitialized(config.dtype, Shape{total_values});
    Tensor row_lengths = Tensor::AllocateUninitialized(DType::kInt64, Shape{total_steps});
    T* pos = values.mutable_data<T>();
    int64_t* row_length = row_lengths.mutable_data<int64_t>();
    for (int64_t r = 0; r < num_records; ++r) {
      const int64_t record = batched ? r : kSingleRecord;
      SLUICE_ASSIGN_OR_RETURN(pos, CopySteps(config, column.StepsOf(r), record, 0, pos));
      for (const FeatureValues& step : column.StepsOf(r)) *row_length++ = step.count;
    }
    out->components.push_back(std::move(values));
    out->components.push_back(std::move(row_lengths));
  }
  if (batched) out->components.push_back(Tensor::FromVector(lengths));
  return OkStatus();
}

}  // namespace

SequenceExampleParser::SequenceExampleParser(SequenceExampleSchema schema)
    : schema_(std::move(schema)),
      context_index_(KeysOf(schema_.context().features())),
      sequence_index_(KeysOf(schema_.sequence_features())) {}

Result<Element> SequenceExampleParser::ParseSingle(std::string_view record) const {
  return Parse({&record, 1}, /*batched=*/false, /*owner=*/nullptr);
}

Result<Element> SequenceExampleParser::ParseBatch(std::span<const std::string_view> records) const {
  return Parse(records, /*batched=*/true, /*owner=*/nullptr);
}

Result<Element> SequenceExampleParser::Parse(const Tensor& records) const {
  SLUICE_CHECK(records.dtype() == DType::kString && records.rank() <= 1)
      << "SequenceExampleParser::Parse of " << records.dtype() << records.shape();
  const TString* strings = records.data<TString>();
  const std::vector<std::string_view> views(strings, strings + records.NumElements());
  return Parse(views, /*batched=*/records.rank() == 1, &records);
}

Result<Element> SequenceExampleParser::Parse(std::span<const std::string_view> records, bool batched,
                                             const Tensor* owner) const {
  const std::vector<FeatureConfig>& context = schema_.context().features();
  const std::vector<SequenceFeatureConfig>& sequence = schema_.sequence_features();
  const size_t num_context = context.size();
  const size_t num_sequence = sequence.size();
  std::vector<FeatureSlice> context_slices(num_context);
  std::vector<FeatureSlice> list_slices(num_sequence);
  std::vector<FeatureValues> context_values(records.size() * num_context);
  std::vector<FeatureValues> steps;
  std::vector<size_t> step_begin(records.size() * num_sequence + 1, 0);
  for (size_t r = 0; r < records.size(); ++r) {
    const int64_t record = batched ? static_cast<int64_t>(r) : kSingleRecord;
    std::fill(context_slices.begin(), context_slices.end(), FeatureSlice{});
    std::fill(list_slices.begin(), list_slices.end(), FeatureSlice{});
    Status status = Locate(records[r], context_slices.data(), list_slices.data());
    if (!status.ok()) {
      status = status.WithContext(StrCat("Invalid SequenceExample", InRecord(record)));
    } else {
      status = ResolveFeatures(context, context_slices.data(), record, context_values.data() + r * num_context);
    }
    for (size_t s = 0; s < num_sequence && status.ok(); ++s) {
      status = ResolveSteps(sequence[s], list_slices[s], record, &steps);
      step_begin[r * num_sequence + s + 1] = steps.size();
    }
    if (!status.ok()) return owner != nullptr ? WithRecordOrigin(status, *owner, records[r]) : status;
  }

  Element out;
  out.components.reserve(schema_.batched_element_spec().size());
  const auto num_records = static_cast<int64_t>(records.size());
  SLUICE_RETURN_IF_ERROR(WriteFeatures(context, context_values, num_records, batched, &out));
  for (size_t s = 0; s < num_sequence; ++s) {
    const StepColumn column(steps, step_begin, num_sequence, s);
    SLUICE_RETURN_IF_ERROR(VisitFeatureDType(sequence[s].dtype, [&](auto zero) {
      return WriteSequenceFeature<decltype(zero)>(sequence[s], column, num_records, batched, &out);
    }));
  }
  return out;
}

Status SequenceExampleParser::Locate(std::string_view record, FeatureSlice* context,
                                     FeatureSlice* lists) const {
  WireReader reader(record);
  while (!reader.AtEnd()) {
    uint32_t tag;
    std::string_view map;
    if (!reader.ReadTag(&tag)) return MalformedError("SequenceExample", reader);
    if (tag != kContextTag && tag != kFeatureListsTag) {
      if (!reader.SkipField(tag)) return MalformedError("SequenceExample", reader);
      continue;
    }
    if (!reader.ReadLengthDelimited(&map)) return MalformedError("SequenceExample", reader);
    // Concatenated records repeat these fields; protobuf merges their maps.
    SLUICE_RETURN_IF_ERROR(tag == kContextTag
                               ? ReadFeatureMap(map, "Features", context_index_, context)
                               : ReadFeatureMap(map, "FeatureLists", sequence_index_, lists));
  }
  return OkStatus();
}

}  // namespace sluice
