#include "sluice/dataset/bucket_by_sequence_length_dataset.h"

#include <algorithm>
#include <limits>

#include "sluice/dataset/expression_functions.h"
#include "sluice/dataset/buffered_bytes.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/padded_batch_dataset.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/tensor_proto.h"

namespace sluice {
namespace {

constexpr std::string_view kOp = "bucket_by_sequence_length";
constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

using LengthFn = std::function<Result<int64_t>(const Element&)>;

std::string JoinInts(const std::vector<int64_t>& values) {
  std::string out;
  for (int64_t v : values) out += StrCat(out.empty() ? "" : ", ", v);
  return StrCat("[", out, "]");
}

class BucketBySequenceLengthDataset final : public Dataset {
 public:
  BucketBySequenceLengthDataset(DatasetPtr input, BucketBySequenceLengthOptions options, LengthFn length,
                                std::vector<std::vector<PartialShape>> bucket_shapes, ElementSpec spec)
      : Dataset(std::move(spec), kUnknownCardinality),
        input_(std::move(input)),
        options_(std::move(options)),
        length_(std::move(length)),
        bucket_shapes_(std::move(bucket_shapes)) {}

  std::string_view op_name() const override { return kOp; }
  std::string DebugParams() const override {
    std::string shapes;
    for (const PartialShape& s : options_.padded_shapes) shapes += (shapes.empty() ? "" : ", ") + s.ToString();
    return StrCat("length=", options_.length_fn ? "lambda" : options_.length_expression ? options_.length_expression->ToString() : StrCat("len(", options_.length_component.empty() ? "0" : options_.length_component, ")"),
                  ", bucket_boundaries=", JoinInts(options_.bucket_boundaries),
                  ", bucket_batch_sizes=", JoinInts(options_.bucket_batch_sizes), ", padded_shapes=(", shapes,
                  "), pad_to_bucket_boundary=", options_.pad_to_bucket_boundary ? "true" : "false",
                  ", no_padding=", options_.no_padding ? "true" : "false",
                  ", drop_remainder=", options_.drop_remainder ? "true" : "false");
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    if (options_.length_fn) {
      return UnimplementedError(kOp, "'s length_fn is a C++ callable and cannot be written as a pipeline spec; "
                                "use length_component to make the graph serializable");
    }
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    auto* node = pipeline->add_ops()->mutable_bucket_by_sequence_length();
    node->set_length_component(options_.length_component);
    if (options_.length_expression) *node->mutable_length_expression() = options_.length_expression->proto();
    for (int64_t b : options_.bucket_boundaries) node->add_bucket_boundaries(b);
    for (int64_t s : options_.bucket_batch_sizes) node->add_bucket_batch_sizes(s);
    if (!options_.no_padding) {
      for (const PartialShape& s : options_.padded_shapes) {
        auto* shape = node->add_padded_shapes();
        for (int64_t d : s.dims()) shape->add_dims(d);
      }
      for (const Tensor& v : options_.padding_values) TensorToProto(v, node->add_padding_values());
    }
    node->set_pad_to_bucket_boundary(options_.pad_to_bucket_boundary);
    node->set_no_padding(options_.no_padding);
    node->set_drop_remainder(options_.drop_remainder);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  const BucketBySequenceLengthOptions& options() const { return options_; }
  const LengthFn& length() const { return length_; }
  // Bucket b's padded shapes (padded_shapes, or with unknown dims at its boundary - 1).
  const std::vector<PartialShape>& bucket_shapes(size_t b) const { return bucket_shapes_[b]; }

 private:
  const DatasetPtr input_;
  const BucketBySequenceLengthOptions options_;  // padded_shapes and padding_values filled per component
  const LengthFn length_;                        // bound to input_'s element spec
  const std::vector<std::vector<PartialShape>> bucket_shapes_;
};

class BucketBySequenceLengthIterator final : public Iterator {
 public:
  BucketBySequenceLengthIterator(std::shared_ptr<const BucketBySequenceLengthDataset> dataset,
                                 const IteratorContext& ctx)
      : dataset_(std::move(dataset)),
        input_(dataset_->input()->NewIterator(ctx)),
        runtime_(ctx.runtime),
        buckets_(dataset_->options().bucket_batch_sizes.size()),
        bucket_bytes_(buckets_.size(), 0) {}

  ~BucketBySequenceLengthIterator() override { runtime_->ram_budget().Release(charged_); }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    const BucketBySequenceLengthOptions& o = dataset_->options();
    while (!end_of_input_) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
      if (!element) {
        end_of_input_ = true;
        break;
      }
      SLUICE_ASSIGN_OR_RETURN(const size_t b, BucketOf(*element));
      SLUICE_RETURN_IF_ERROR(Hold(b, *std::move(element)));
      if (static_cast<int64_t>(buckets_[b].size()) == o.bucket_batch_sizes[b]) return Batch(b);
    }
    for (size_t b = 0; b < buckets_.size(); ++b) {
      if (buckets_[b].empty()) continue;
      if (!o.drop_remainder) return Batch(b);
      Release(b);
    }
    return std::nullopt;
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteBool("end_of_input", end_of_input_);
    for (size_t b = 0; b < buckets_.size(); ++b) {
      writer.WriteInt(StrCat("buckets/", b, "/size"), static_cast<int64_t>(buckets_[b].size()));
      for (size_t i = 0; i < buckets_[b].size(); ++i) writer.WriteElement(StrCat("buckets/", b, "/", i), buckets_[b][i]);
    }
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(end_of_input_, reader.ReadBool("end_of_input"));
    const ElementSpec& spec = dataset_->input()->element_spec();
    for (size_t b = 0; b < buckets_.size(); ++b) {
      // A bucket holds fewer elements than its batch: a full one is emitted at once.
      SLUICE_ASSIGN_OR_RETURN(const int64_t size, reader.ReadInt(StrCat("buckets/", b, "/size"), 0,
                                                                 dataset_->options().bucket_batch_sizes[b] - 1));
      for (int64_t i = 0; i < size; ++i) {
        SLUICE_ASSIGN_OR_RETURN(Element element, reader.ReadElement(StrCat("buckets/", b, "/", i), spec));
        SLUICE_RETURN_IF_ERROR(Hold(b, std::move(element)));
      }
    }
    return reader.ReadIterator("input", *input_);
  }

 private:
  // The bucket of `element`'s length; InvalidArgument outside the buckets.
  Result<size_t> BucketOf(const Element& element) const {
    const BucketBySequenceLengthOptions& o = dataset_->options();
    Result<int64_t> length = dataset_->length()(element);
    if (!length.ok()) return length.status().WithContext(StrCat(kOp, ": length_fn"));
    if (*length < kInt32Min || *length >= kInt32Max) {
      return InvalidArgumentError(kOp, ": element length ", *length, " is outside the buckets [", kInt32Min, ", ",
                                  kInt32Max, ")");
    }
    const auto& boundaries = o.bucket_boundaries;
    const size_t b = std::upper_bound(boundaries.begin(), boundaries.end(), *length) - boundaries.begin();
    if (o.pad_to_bucket_boundary && b == boundaries.size()) {
      return InvalidArgumentError(kOp, ": When pad_to_bucket_boundary=True, elements must have length < "
                                  "max(bucket_boundaries). (got an element of length ", *length,
                                  ", max(bucket_boundaries) = ", boundaries.empty() ? kInt32Min : boundaries.back(),
                                  ")");
    }
    return b;
  }

  // Adds `element` to bucket b, charging it to the RAM budget.
  Status Hold(size_t b, Element element) {
    const int64_t bytes = BufferedBytes(element);
    if (!runtime_->ram_budget().TryAdd(bytes)) {
      return ResourceExhaustedError(kOp, ": holding an element of ", bytes, " bytes beside the ", charged_,
                                    " bytes in the buckets would pass the RAM budget of ",
                                    runtime_->ram_budget().limit(), " bytes");
    }
    charged_ += bytes;
    bucket_bytes_[b] += bytes;
    buckets_[b].push_back(std::move(element));
    return OkStatus();
  }

  // Empties bucket b, releasing its charge.
  std::vector<Element> Release(size_t b) {
    runtime_->ram_budget().Release(bucket_bytes_[b]);
    charged_ -= bucket_bytes_[b];
    bucket_bytes_[b] = 0;
    return std::exchange(buckets_[b], {});
  }

  Result<std::optional<Element>> Batch(size_t b) {
    SLUICE_ASSIGN_OR_RETURN(Element batch, Emit(b));
    return batch;
  }

  // Bucket b's elements as one batch; the bucket is emptied either way.
  Result<Element> Emit(size_t b) {
    const std::vector<Element> rows = Release(b);
    const BucketBySequenceLengthOptions& o = dataset_->options();
    const int64_t max_bytes = runtime_->ram_budget().limit();
    if (!o.no_padding) return PadBatch(kOp, rows, dataset_->bucket_shapes(b), o.padding_values, max_bytes);
    std::vector<PartialShape> shapes;
    for (size_t c = 0; c < rows[0].size(); ++c) {
      for (size_t r = 1; r < rows.size(); ++r) {
        if (rows[r][c].shape() != rows[0][c].shape()) {
          return InvalidArgumentError(kOp, ": Cannot batch tensors with different shapes in component ", c,
                                      ". First element had shape ", rows[0][c].shape(), " and element ", r,
                                      " had shape ", rows[r][c].shape(), ".");
        }
      }
      shapes.emplace_back(rows[0][c].shape());
    }
    return PadBatch(kOp, rows, shapes, o.padding_values, max_bytes);
  }

  const std::shared_ptr<const BucketBySequenceLengthDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  const std::shared_ptr<Runtime> runtime_;  // whose RAM budget holds the buckets
  std::vector<std::vector<Element>> buckets_;
  std::vector<int64_t> bucket_bytes_;  // per bucket, charged to the RAM budget
  int64_t charged_ = 0;                // the sum of bucket_bytes_
  bool end_of_input_ = false;
};

std::unique_ptr<Iterator> BucketBySequenceLengthDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<BucketBySequenceLengthIterator>(SharedThis<BucketBySequenceLengthDataset>(), ctx);
}

Status CheckBuckets(const BucketBySequenceLengthOptions& o) {
  const auto& boundaries = o.bucket_boundaries;
  const auto& sizes = o.bucket_batch_sizes;
  if (sizes.size() != boundaries.size() + 1) {
    return InvalidArgumentError(kOp, ": `len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                                "`len(bucket_batch_sizes)=", sizes.size(), "` and `len(bucket_boundaries)=",
                                boundaries.size(), "`.");
  }
  for (size_t i = 0; i < boundaries.size(); ++i) {
    if (boundaries[i] < kInt32Min || boundaries[i] > kInt32Max) {
      return InvalidArgumentError(kOp, ": bucket_boundaries[", i, "] = ", boundaries[i], " is outside int32");
    }
    if (i > 0 && boundaries[i] <= boundaries[i - 1]) {
      return InvalidArgumentError(kOp, ": bucket_boundaries must be strictly increasing, but got ",
                                  JoinInts(boundaries));
    }
  }
  if (o.pad_to_bucket_boundary && !boundaries.empty() && boundaries[0] < 1) {
    return InvalidArgumentError(kOp, ": with pad_to_bucket_boundary, bucket_boundaries must be >= 1 (got ",
                                JoinInts(boundaries), ")");
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] <= 0) {
      return InvalidArgumentError(kOp, ": bucket_batch_sizes[", i, "]: Window size must be greater than zero, "
                                  "but got ", sizes[i], ".");
    }
  }
  return OkStatus();
}

// The length function bound to `spec`: length_fn, length_expression, or
// the size along axis 0 of length_component.
Result<LengthFn> BindLength(const BucketBySequenceLengthOptions& o, const ElementSpec& spec) {
  if (static_cast<int>(!o.length_component.empty()) + static_cast<int>(o.length_expression.has_value()) +
          static_cast<int>(static_cast<bool>(o.length_fn)) > 1) {
    return InvalidArgumentError(kOp, ": set one of length_component, length_expression and length_fn");
  }
  if (o.length_fn) return o.length_fn;
  if (o.length_expression) {
    Result<LengthFn> length = BindLengthExpression(*o.length_expression, spec);
    if (!length.ok()) return length.status().WithContext(kOp);
    return length;
  }
  size_t index = 0;
  if (o.length_component.empty()) {
    if (spec.size() != 1) {
      return InvalidArgumentError(kOp, ": no length_component named and the element has ", spec.size(),
                                  " components ", spec, "; name the component whose length to use");
    }
  } else {
    Result<size_t> found = spec.IndexOf(o.length_component);
    if (!found.ok()) return found.status().WithContext(StrCat(kOp, ": length_component"));
    index = *found;
  }
  if (spec[index].shape.rank() == 0) {
    return InvalidArgumentError(kOp, ": length_component ", spec.DisplayName(index),
                                " is a scalar; its length is its size along axis 0");
  }
  return LengthFn([index](const Element& element) -> Result<int64_t> {
    const Tensor& t = element[index];
    if (t.rank() == 0) return InvalidArgumentError("component ", index, " is a scalar; it has no axis 0");
    return t.dim(0);
  });
}

}  // namespace

Result<DatasetPtr> MakeBucketBySequenceLengthDataset(DatasetPtr input, BucketBySequenceLengthOptions options) {
  if (input == nullptr) return InvalidArgumentError(kOp, ": input dataset is null");
  SLUICE_RETURN_IF_ERROR(CheckBuckets(options));
  const ElementSpec& in = input->element_spec();
  SLUICE_ASSIGN_OR_RETURN(LengthFn length, BindLength(options, in));
  std::vector<ComponentSpec> components = in.components();
  const size_t num_buckets = options.bucket_batch_sizes.size();
  std::vector<std::vector<PartialShape>> bucket_shapes;
  if (options.no_padding) {
    if (!options.padded_shapes.empty() || !options.padding_values.empty() || options.pad_to_bucket_boundary) {
      return InvalidArgumentError(kOp, ": no_padding batches without padding; padded_shapes, padding_values and "
                                  "pad_to_bucket_boundary must be unset");
    }
    // Unpadded rows are stacked by PadBatch with their own shapes, which reads each component's dtype here.
    for (const ComponentSpec& c : components) options.padding_values.push_back(Tensor::Allocate(c.dtype, Shape{}));
  } else {
    if (options.padded_shapes.empty()) {
      for (const ComponentSpec& c : components) options.padded_shapes.push_back(c.shape);
    }
    SLUICE_RETURN_IF_ERROR(ResolvePadding(kOp, in, options.padded_shapes, options.padding_values));
    for (size_t b = 0; b < num_buckets; ++b) {
      std::vector<PartialShape> shapes = options.padded_shapes;
      const bool fill = options.pad_to_bucket_boundary && b + 1 < num_buckets;
      for (PartialShape& shape : shapes) {
        std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
        for (int64_t& d : dims) {
          if (d == kUnknownDim && fill) d = options.bucket_boundaries[b] - 1;
        }
        shape = PartialShape(std::span<const int64_t>(dims));
      }
      if (fill) SLUICE_RETURN_IF_ERROR(ResolvePadding(kOp, in, shapes, options.padding_values));
      bucket_shapes.push_back(std::move(shapes));
    }
    for (size_t i = 0; i < components.size(); ++i) components[i].shape = options.padded_shapes[i];
  }
  SLUICE_RETURN_IF_ERROR(ElementSpec(components).CheckRoomForLeadingDim(kOp));
  for (ComponentSpec& c : components) c.shape = c.shape.Prepended(kUnknownDim);
  return Dataset::Make<BucketBySequenceLengthDataset>(std::move(input), std::move(options), std::move(length),
                                                      std::move(bucket_shapes), ElementSpec(std::move(components)));
}

Result<DatasetPtr> BucketBySequenceLengthDatasetFromSpec(const spec::DatasetNode& node,
                                                         const OpSpecContext& context) {
  const spec::BucketBySequenceLength& bucket = node.bucket_by_sequence_length();
  BucketBySequenceLengthOptions options{
      .length_component = bucket.length_component(),
      .bucket_boundaries = {bucket.bucket_boundaries().begin(), bucket.bucket_boundaries().end()},
      .bucket_batch_sizes = {bucket.bucket_batch_sizes().begin(), bucket.bucket_batch_sizes().end()},
      .pad_to_bucket_boundary = bucket.pad_to_bucket_boundary(),
      .no_padding = bucket.no_padding(),
      .drop_remainder = bucket.drop_remainder()};
  SLUICE_RETURN_IF_ERROR(
      PaddingFromSpec(bucket.padded_shapes(), bucket.padding_values(), options.padded_shapes, options.padding_values));
  if (bucket.has_length_expression()) {
    Result<Expr> length = ExpressionFromSpec(bucket.length_expression());
    if (!length.ok()) return length.status().WithContext(StrCat(kOp, ": length_expression"));
    options.length_expression = *std::move(length);
  }
  return MakeBucketBySequenceLengthDataset(context.input(), std::move(options));
}

}  // namespace sluice
