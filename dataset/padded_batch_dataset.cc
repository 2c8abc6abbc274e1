#include "sluice/dataset/padded_batch_dataset.h"

#include "sluice/dataset/batch_dataset.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/tensor_proto.h"

namespace sluice {
namespace {

// Copies `src` into the leading corner of `dst` (same rank, src dims <= dst dims).
template <typename T>
void CopyPadded(const T* src, std::span<const int64_t> src_dims, T* dst, std::span<const int64_t> dst_dims) {
  if (src_dims.empty()) {
    *dst = *src;
    return;
  }
  if (src_dims.size() == 1) {
    std::copy(src, src + src_dims[0], dst);
    return;
  }
  int64_t src_stride = 1, dst_stride = 1;
  for (size_t i = 1; i < src_dims.size(); ++i) {
    src_stride *= src_dims[i];
    dst_stride *= dst_dims[i];
  }
  for (int64_t i = 0; i < src_dims[0]; ++i) {
    CopyPadded(src + i * src_stride, src_dims.subspan(1), dst + i * dst_stride, dst_dims.subspan(1));
  }
}

class PaddedBatchDataset final : public Dataset {
 public:
  PaddedBatchDataset(DatasetPtr input, PaddedBatchOptions options, ElementSpec spec, int64_t cardinality)
      : Dataset(std::move(spec), cardinality), input_(std::move(input)), options_(std::move(options)) {}

  std::string_view op_name() const override { return "padded_batch"; }
  std::string DebugParams() const override {
    std::string shapes;
    for (const PartialShape& s : options_.padded_shapes) shapes += (shapes.empty() ? "" : ", ") + s.ToString();
    return StrCat("batch_size=", options_.batch_size, ", padded_shapes=(", shapes,
                  "), drop_remainder=", options_.drop_remainder ? "true" : "false");
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    auto* node = pipeline->add_ops()->mutable_padded_batch();
    node->set_batch_size(options_.batch_size);
    for (const PartialShape& s : options_.padded_shapes) {
      auto* shape = node->add_padded_shapes();
      for (int64_t d : s.dims()) shape->add_dims(d);
    }
    for (const Tensor& v : options_.padding_values) TensorToProto(v, node->add_padding_values());
    node->set_drop_remainder(options_.drop_remainder);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  const PaddedBatchOptions& options() const { return options_; }

 private:
  const DatasetPtr input_;
  const PaddedBatchOptions options_;  // padded_shapes and padding_values filled per component
};

// Rows are gathered before the batch is padded (GatherRows), so a batch
// that can't fit is ResourceExhausted, not an ever-growing buffer. A batch
// that the input will fill (it is infinite, or holds more elements than
// batch_size) is checked after its first row against the smallest size it
// can have.
class PaddedBatchIterator final : public Iterator {
 public:
  PaddedBatchIterator(std::shared_ptr<const PaddedBatchDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)),
        input_(dataset_->input()->NewIterator(ctx)),
        max_bytes_(ctx.runtime->ram_budget().limit()) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    const PaddedBatchOptions& o = dataset_->options();
    SLUICE_ASSIGN_OR_RETURN(
        std::vector<Element> rows,
        GatherRows("padded_batch", *input_, o.batch_size, max_bytes_,
                   [this](const Element& first_row) { return CheckFullBatchFits(first_row); }));
    if (rows.empty() || (static_cast<int64_t>(rows.size()) < o.batch_size && o.drop_remainder)) {
      return std::nullopt;
    }
    SLUICE_ASSIGN_OR_RETURN(Element batch, PadBatch("padded_batch", rows, o.padded_shapes, o.padding_values, max_bytes_));
    return batch;
  }

  Status SaveInternal(IteratorStateWriter& writer) override { return writer.WriteIterator("input", *input_); }
  Status RestoreInternal(IteratorStateReader& reader) override { return reader.ReadIterator("input", *input_); }

 private:
  // When the input will fill this batch: InvalidArgument when the smallest
  // size its padded shapes allow given its first row (unknown dims at least
  // that row's) overflows, ResourceExhausted when it is above the RAM budget.
  Status CheckFullBatchFits(const Element& first_row) const {
    const PaddedBatchOptions& o = dataset_->options();
    const int64_t cardinality = dataset_->input()->cardinality();
    if (cardinality != kInfiniteCardinality && cardinality < o.batch_size) return OkStatus();
    for (size_t c = 0; c < o.padded_shapes.size(); ++c) {
      const PartialShape& padded = o.padded_shapes[c];
      if (first_row[c].rank() != padded.rank()) continue;  // PadComponent says why
      Shape smallest(padded.dims());
      for (int i = 0; i < smallest.rank(); ++i) {
        if (padded.dim(i) == kUnknownDim) smallest.set_dim(i, first_row[c].dim(i));
      }
      const Shape batch_shape = smallest.Prepended(o.batch_size);
      const std::string context = StrCat("padded_batch: component ", c, ": a batch of ", o.batch_size,
                                         " elements padded to ", o.padded_shapes[c]);
      Result<int64_t> bytes = CheckedNumBytes(o.padding_values[c].dtype(), batch_shape);
      if (!bytes.ok()) return bytes.status().WithContext(context);
      if (*bytes > max_bytes_) {
        return ResourceExhaustedError(context, " takes at least ", *bytes, " bytes, above the RAM budget (",
                                      max_bytes_, " bytes)");
      }
    }
    return OkStatus();
  }

  const std::shared_ptr<const PaddedBatchDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  const int64_t max_bytes_;  // the traversal's RAM budget
};

std::unique_ptr<Iterator> PaddedBatchDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<PaddedBatchIterator>(SharedThis<PaddedBatchDataset>(), ctx);
}

// InvalidArgument unless `padded`'s dims are >= 0 or -1 and the rows they
// fix (unknown dims at 1) have a byte size that fits.
Status CheckPaddedShape(std::string_view op, const PartialShape& padded, DType dtype, const std::string& component) {
  Shape fixed(padded.dims());
  for (int d = 0; d < fixed.rank(); ++d) {
    if (padded.dim(d) < kUnknownDim) {
      return InvalidArgumentError(op, ": padded shape ", padded, " for component ", component,
                                  " has dimension ", d, " = ", padded.dim(d),
                                  "; dims are >= 0, or -1 for the batch maximum");
    }
    if (padded.dim(d) == kUnknownDim) fixed.set_dim(d, 1);
  }
  Result<int64_t> bytes = CheckedNumBytes(dtype, fixed);
  if (!bytes.ok()) {
    return bytes.status().WithContext(StrCat(op, ": padded shape ", padded, " for component ", component));
  }
  return OkStatus();
}

// Component `c` of `rows`, each padded to `padded` (unknown dims: the rows'
// largest) with `padding`, stacked along a new leading dim.
Result<Tensor> PadComponent(std::string_view op, const std::vector<Element>& rows, size_t c,
                            const PartialShape& padded, const Tensor& padding, int64_t max_bytes) {
  Shape resolved(padded.dims());
  for (int i = 0; i < resolved.rank(); ++i) {
    if (resolved.dim(i) < 0) resolved.set_dim(i, 0);
  }
  for (const Element& row : rows) {
    const Tensor& t = row[c];
    if (t.rank() != padded.rank()) {
      return InvalidArgumentError(op, ": All elements in a batch must have the same rank as the "
                                  "padded shape for component", c, ": expected rank ", padded.rank(),
                                  " but got element with rank ", t.rank());
    }
    for (int i = 0; i < t.rank(); ++i) {
      if (padded.dim(i) >= 0 && t.dim(i) > padded.dim(i)) {
        return DataLossError(op, ": Attempted to pad to a smaller size than the input element. "
                             "Component ", c, " has shape ", t.shape(), " but the padded shape is ", padded);
      }
      if (padded.dim(i) < 0) resolved.set_dim(i, std::max(resolved.dim(i), t.dim(i)));
    }
  }
  Result<Tensor> allocated = Tensor::TryAllocate(
      padding.dtype(), resolved.Prepended(static_cast<int64_t>(rows.size())),
      {.max_bytes = max_bytes, .limit_name = "the RAM budget", .fill = Buffer::Fill::kUninitialized});
  if (!allocated.ok()) return allocated.status().WithContext(StrCat(op, ": component ", c));
  Tensor& out = *allocated;
  const int64_t row_elements = resolved.NumElements();
  VisitDType(padding.dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* dst = out.mutable_data<T>();
    std::fill(dst, dst + out.NumElements(), padding.scalar<T>());
    for (size_t r = 0; r < rows.size(); ++r) {
      const Tensor& t = rows[r][c];
      CopyPadded(t.data<T>(), t.shape().dims(), dst + r * row_elements, resolved.dims());
    }
  });
  return allocated;
}

// The memory a gathered row holds beyond its payload, per component (its
// Tensor and its Buffer's header and allocation).
constexpr int64_t kTensorOverheadBytes = sizeof(Tensor) + sizeof(Buffer) + 64;

}  // namespace

Result<std::vector<Element>> GatherRows(std::string_view op, Iterator& input, int64_t batch_size, int64_t max_bytes,
                                        const std::function<Status(const Element&)>& check_first) {
  std::vector<Element> rows;
  int64_t held = 0;  // bytes of the rows gathered, bookkeeping included
  while (static_cast<int64_t>(rows.size()) < batch_size) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input.GetNext());
    if (!element) break;
    held += static_cast<int64_t>(element->NumBytes() + sizeof(Element) + element->size() * kTensorOverheadBytes);
    rows.push_back(std::move(*element));
    if (rows.size() == 1 && check_first != nullptr) SLUICE_RETURN_IF_ERROR(check_first(rows[0]));
    if (held > max_bytes) {
      return ResourceExhaustedError(op, ": the ", rows.size(), " elements gathered for a batch of ", batch_size,
                                    " hold ", held, " bytes, above the RAM budget (", max_bytes, " bytes)");
    }
  }
  return rows;
}

Result<Element> PadBatch(std::string_view op, const std::vector<Element>& rows,
                         const std::vector<PartialShape>& padded_shapes, const std::vector<Tensor>& padding_values,
                         int64_t max_bytes) {
  Element batch;
  for (size_t c = 0; c < padded_shapes.size(); ++c) {
    SLUICE_ASSIGN_OR_RETURN(Tensor t, PadComponent(op, rows, c, padded_shapes[c], padding_values[c], max_bytes));
    batch.components.push_back(std::move(t));
  }
  return batch;
}

Status ResolvePadding(std::string_view op, const ElementSpec& spec, std::vector<PartialShape>& padded_shapes,
                      std::vector<Tensor>& padding_values) {
  if (padded_shapes.empty()) {
    for (size_t i = 0; i < spec.size(); ++i) {
      if (!spec[i].shape.known_rank()) {
        return InvalidArgumentError(op, ": padded_shapes must be set when component ", spec.DisplayName(i),
                                    " has unknown rank ", spec);
      }
      padded_shapes.push_back(PartialShape(std::vector<int64_t>(spec[i].shape.rank(), kUnknownDim)));
    }
  }
  if (padded_shapes.size() != spec.size()) {
    return InvalidArgumentError(op, ": Number of padded shapes (", padded_shapes.size(),
                                ") must match the number of components in the input dataset's elements (",
                                spec.size(), ")");
  }
  for (size_t i = 0; i < spec.size(); ++i) {
    const PartialShape& padded = padded_shapes[i];
    if (!padded.known_rank()) {
      return InvalidArgumentError(op, ": padded shape ", i, " must have a known rank");
    }
    SLUICE_RETURN_IF_ERROR(CheckPaddedShape(op, padded, spec[i].dtype, spec.DisplayName(i)));
    if (!spec[i].shape.known_rank()) continue;
    if (spec[i].shape.rank() != padded.rank()) {
      return InvalidArgumentError(op, ": padded shape ", padded, " for component ", spec.DisplayName(i),
                                  " does not have the component's rank (", spec[i].shape, ")");
    }
    for (int d = 0; d < padded.rank(); ++d) {
      if (padded.dim(d) >= 0 && spec[i].shape.dim(d) > padded.dim(d)) {
        return InvalidArgumentError(op, ": padded shape ", padded, " is smaller than component ",
                                    spec.DisplayName(i), "'s shape ", spec[i].shape);
      }
    }
  }
  if (padding_values.size() == 1 && spec.size() > 1) {
    padding_values.assign(spec.size(), padding_values[0]);
  }
  if (padding_values.empty()) {
    for (size_t i = 0; i < spec.size(); ++i) padding_values.push_back(Tensor::Allocate(spec[i].dtype, Shape{}));
  }
  if (padding_values.size() != spec.size()) {
    return InvalidArgumentError(op, ": expected one padding value per component (", spec.size(),
                                ") or a single one, got ", padding_values.size());
  }
  for (size_t i = 0; i < spec.size(); ++i) {
    const Tensor& v = padding_values[i];
    if (!v.valid() || v.rank() != 0) {
      return InvalidArgumentError(op, ": All padding values must be scalars; padding value ", i,
                                  " has shape ", v.valid() ? v.shape().ToString() : "<invalid>");
    }
    if (v.dtype() != spec[i].dtype) {
      return InvalidArgumentError(op, ": Mismatched type between padding value ", i,
                                  " and input dataset's component ", i, ": ", v.dtype(), " vs. ", spec[i].dtype);
    }
  }
  return OkStatus();
}

Result<DatasetPtr> MakePaddedBatchDataset(DatasetPtr input, PaddedBatchOptions options) {
  if (input == nullptr) return InvalidArgumentError("padded_batch: input dataset is null");
  if (options.batch_size <= 0) {
    return InvalidArgumentError("padded_batch: Batch size must be greater than zero (got ", options.batch_size, ").");
  }
  const ElementSpec& in = input->element_spec();
  SLUICE_RETURN_IF_ERROR(ResolvePadding("padded_batch", in, options.padded_shapes, options.padding_values));
  std::vector<ComponentSpec> components = in.components();
  for (size_t i = 0; i < components.size(); ++i) components[i].shape = options.padded_shapes[i];
  SLUICE_RETURN_IF_ERROR(ElementSpec(components).CheckRoomForLeadingDim("padded_batch"));
  const int64_t leading = options.drop_remainder ? options.batch_size : kUnknownDim;
  for (ComponentSpec& c : components) c.shape = c.shape.Prepended(leading);
  const int64_t cardinality = BatchedCardinality(input->cardinality(), options.batch_size, options.drop_remainder);
  return Dataset::Make<PaddedBatchDataset>(std::move(input), std::move(options), ElementSpec(std::move(components)),
                                           cardinality);
}

Status PaddingFromSpec(const google::protobuf::RepeatedPtrField<spec::PaddedShape>& shapes,
                       const google::protobuf::RepeatedPtrField<spec::TensorProto>& values,
                       std::vector<PartialShape>& padded_shapes, std::vector<Tensor>& padding_values) {
  for (int i = 0; i < shapes.size(); ++i) {
    const auto& dims = shapes[i].dims();
    if (dims.size() > kMaxRank) {
      return InvalidArgumentError("padded_shapes[", i, "] has rank ", dims.size(), ", above the maximum rank ",
                                  kMaxRank);
    }
    for (int64_t d : dims) {
      if (d < -1) {
        return InvalidArgumentError("padded_shapes[", i, "] has dimension ", d,
                                    " (expected >= 0, or -1 for the batch maximum)");
      }
    }
    padded_shapes.emplace_back(std::span<const int64_t>(dims.data(), dims.size()));
  }
  for (int i = 0; i < values.size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(Tensor value,
                            WithContext(TensorFromProto(values[i]), StrCat("padding_values[", i, "]")));
    padding_values.push_back(std::move(value));
  }
  return OkStatus();
}

Result<DatasetPtr> PaddedBatchDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::PaddedBatch& padded = node.padded_batch();
  PaddedBatchOptions options;
  options.batch_size = padded.batch_size();
  options.drop_remainder = padded.drop_remainder();
  SLUICE_RETURN_IF_ERROR(
      PaddingFromSpec(padded.padded_shapes(), padded.padding_values(), options.padded_shapes, options.padding_values));
  return MakePaddedBatchDataset(context.input(), std::move(options));
}

}  // namespace sluice
