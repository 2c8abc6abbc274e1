#include "sluice/tfrecord/feature_outputs.h"

#include <algorithm>

namespace sluice {
namespace {

// One feature's resolved values across the records of a batch.
class Column {
 public:
  Column(std::span<const FeatureValues> values, size_t num_features, size_t feature)
      : values_(values), stride_(num_features), feature_(feature) {}
  const FeatureValues& operator[](int64_t record) const {
    return values_[static_cast<size_t>(record) * stride_ + feature_];
  }

 private:
  std::span<const FeatureValues> values_;
  size_t stride_;
  size_t feature_;
};

// Decodes one record's values to `out` (bytes as views of the record),
// naming the feature and record if the bytes turn out malformed.
template <typename T>
Status CopyRecordValues(const FeatureConfig& config, const FeatureValues& values, int64_t record,
                        T* out) {
  if (values.count == 0) return OkStatus();
  Status status;
  if constexpr (std::is_same_v<T, TString>) {
    status = ViewValues(values, out);
  } else {
    status = CopyValues(values, out);
  }
  return status.ok() ? status
                     : status.WithContext(StrCat("Feature '", config.key, "'", InRecord(record)));
}

// A bytes output's values view the records: it keeps `records` alive, or
// without them gets its strings copied into one block of its own (one
// allocation for the tensor rather than one per string).
void SettleBytes(const Tensor* records, Tensor& output) {
  if (output.dtype() != DType::kString) return;
  if (records != nullptr) {
    output.AddBacking(*records);
  } else {
    output = output.Compacted();
  }
}

template <typename T>
Status WriteFixedLen(const FeatureConfig& config, const Column& column, int64_t num_records,
                     bool batched, const Tensor* records, Element* out) {
  const int64_t row_size = config.shape.NumElements();
  SLUICE_ASSIGN_OR_RETURN(Tensor tensor,
                          AllocateFeatureOutput(config.key, config.dtype, batched ? config.shape.Prepended(num_records) : config.shape));
  T* data = tensor.mutable_data<T>();
  for (int64_t r = 0; r < num_records; ++r) {
    T* row = data + r * row_size;
    const int64_t record = batched ? r : kSingleRecord;
    if (column[r].kind == FeatureKind::kNone) {
      std::copy_n(config.default_value.data<T>(), row_size, row);
    } else {
      SLUICE_RETURN_IF_ERROR(CopyRecordValues(config, column[r], record, row));
    }
  }
  SettleBytes(records, tensor);
  out->components.push_back(std::move(tensor));
  return OkStatus();
}

// kVarLen and kVarLenPadded.
template <typename T>
Status WriteVarLen(const FeatureConfig& config, const Column& column, int64_t num_records,
                   bool batched, const Tensor* records, Element* out) {
  int64_t total = 0;
  int64_t longest = 0;
  for (int64_t r = 0; r < num_records; ++r) {
    total += column[r].count;
    longest = std::max(longest, column[r].count);
  }
  const bool padded = batched && config.layout == FeatureLayout::kVarLenPadded;
  SLUICE_ASSIGN_OR_RETURN(Tensor tensor, AllocateFeatureOutput(config.key, config.dtype, padded ? Shape{num_records, longest} : Shape{total}));
  const T padding = padded ? config.default_value.scalar<T>() : T{};
  T* pos = tensor.mutable_data<T>();
  for (int64_t r = 0; r < num_records; ++r) {
    const int64_t count = column[r].count;
    SLUICE_RETURN_IF_ERROR(
        CopyRecordValues(config, column[r], batched ? r : kSingleRecord, pos));
    pos += count;
    if (padded) pos = std::fill_n(pos, longest - count, padding);
  }
  SettleBytes(records, tensor);
  out->components.push_back(std::move(tensor));
  if (batched && config.layout == FeatureLayout::kVarLen) {
    Tensor row_lengths = Tensor::AllocateUninitialized(DType::kInt64, Shape{num_records});
    int64_t* lengths = row_lengths.mutable_data<int64_t>();
    for (int64_t r = 0; r < num_records; ++r) lengths[r] = column[r].count;
    out->components.push_back(std::move(row_lengths));
  }
  return OkStatus();
}

}  // namespace

Result<Tensor> AllocateFeatureOutput(std::string_view key, DType dtype, const Shape& shape) {
  Result<Tensor> tensor = Tensor::TryAllocate(dtype, shape, {.fill = Buffer::Fill::kUninitialized});
  if (!tensor.ok()) return tensor.status().WithContext(StrCat("Feature '", key, "'"));
  return tensor;
}

std::string InRecord(int64_t record) {
  return record == kSingleRecord ? std::string() : StrCat(" in record ", record);
}

Status ResolveFeatures(std::span<const FeatureConfig> features, const FeatureSlice* slices,
                       int64_t record, FeatureValues* values) {
  for (size_t f = 0; f < features.size(); ++f) {
    const FeatureConfig& config = features[f];
    FeatureValues& value = values[f];
    if (Status status = ResolveFeature(slices[f], &value); !status.ok()) {
      return status.WithContext(StrCat("Feature '", config.key, "'", InRecord(record)));
    }
    const FeatureKind expected = FeatureKindOf(config.dtype);
    if (value.kind == FeatureKind::kNone) {
      if (config.layout != FeatureLayout::kFixedLen || config.default_value.valid()) continue;
      return InvalidArgumentError("Feature '", config.key, "' (", FeatureKindName(expected),
                                  ") is required but missing", InRecord(record));
    }
    if (value.kind != expected) {
      return InvalidArgumentError("Feature '", config.key, "'", InRecord(record), ": expected ",
                                  FeatureKindName(expected), ", found ",
                                  FeatureKindName(value.kind));
    }
    if (config.layout == FeatureLayout::kFixedLen && value.count != config.shape.NumElements()) {
      return InvalidArgumentError("Feature '", config.key, "'", InRecord(record), ": expected ",
                                  config.shape.NumElements(), " ", FeatureKindName(expected),
                                  " values (shape ", config.shape, "), found ", value.count);
    }
  }
  return OkStatus();
}

Status WriteFeatures(std::span<const FeatureConfig> features, std::span<const FeatureValues> values,
                     int64_t num_records, bool batched, Element* out, const Tensor* records) {
  for (size_t f = 0; f < features.size(); ++f) {
    const FeatureConfig& config = features[f];
    const Column column(values, features.size(), f);
    SLUICE_RETURN_IF_ERROR(VisitFeatureDType(config.dtype, [&](auto zero) {
      using T = decltype(zero);
      return config.layout == FeatureLayout::kFixedLen
                 ? WriteFixedLen<T>(config, column, num_records, batched, records, out)
                 : WriteVarLen<T>(config, column, num_records, batched, records, out);
    }));
  }
  return OkStatus();
}

}  // namespace sluice
