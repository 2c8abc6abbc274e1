#include "sluice/dataset/ragged_batch_dataset.h"

#include <algorithm>

#include "sluice/dataset/batch_dataset.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/padded_batch_dataset.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/tfrecord/example_schema.h"

namespace sluice {
namespace {

constexpr std::string_view kOp = "ragged_batch";

// How each input component is batched.
struct ComponentPlan {
  bool ragged = false;  // values + row lengths; otherwise stacked
  std::string name;     // for messages
};

class RaggedBatchDataset final : public Dataset {
 public:
  RaggedBatchDataset(DatasetPtr input, RaggedBatchOptions options, std::vector<ComponentPlan> plan, ElementSpec spec,
                     int64_t cardinality)
      : Dataset(std::move(spec), cardinality), input_(std::move(input)), options_(options), plan_(std::move(plan)) {}

  std::string_view op_name() const override { return kOp; }
  std::string DebugParams() const override {
    return StrCat("batch_size=", options_.batch_size, ", drop_remainder=", options_.drop_remainder ? "true" : "false");
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    auto* node = pipeline->add_ops()->mutable_ragged_batch();
    node->set_batch_size(options_.batch_size);
    node->set_drop_remainder(options_.drop_remainder);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  const RaggedBatchOptions& options() const { return options_; }

  // The batch of `rows`, its tensors allocated within `max_bytes`.
  Result<Element> Batch(const std::vector<Element>& rows, int64_t max_bytes) const {
    Element batch;
    for (size_t c = 0; c < plan_.size(); ++c) {
      if (plan_[c].ragged) {
        SLUICE_ASSIGN_OR_RETURN(Tensor values, JoinRows(rows, c, max_bytes));
        Tensor lengths = Tensor::AllocateUninitialized(DType::kInt64, Shape{static_cast<int64_t>(rows.size())});
        int64_t* out = lengths.mutable_data<int64_t>();
        for (size_t r = 0; r < rows.size(); ++r) out[r] = rows[r][c].dim(0);
        batch.components.push_back(std::move(values));
        batch.components.push_back(std::move(lengths));
      } else {
        SLUICE_ASSIGN_OR_RETURN(Tensor stacked, StackRows(rows, c, max_bytes));
        batch.components.push_back(std::move(stacked));
      }
    }
    return batch;
  }

 private:
  // Component `c` of `rows` end to end along dim 0. Its other dims must be
  // those of the first row.
  Result<Tensor> JoinRows(const std::vector<Element>& rows, size_t c, int64_t max_bytes) const {
    const Tensor& first = rows[0][c];
    const auto first_dims = first.shape().dims();
    int64_t total = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
      const Tensor& t = rows[r][c];
      const auto dims = t.shape().dims();
      if (t.rank() == 0 || t.rank() != first.rank() ||
          !std::equal(dims.begin() + 1, dims.end(), first_dims.begin() + 1, first_dims.end())) {
        return InvalidArgumentError(kOp, ": component ", plan_[c].name, ": row ", r, " has shape ", t.shape(),
                                    " and row 0 ", first.shape(),
                                    "; the rows of a ragged component may differ only in their first dim");
      }
      if (__builtin_add_overflow(total, t.dim(0), &total)) {
        return InvalidArgumentError(kOp, ": component ", plan_[c].name, ": the rows' lengths overflow int64");
      }
    }
    Shape shape = first.shape();
    shape.set_dim(0, total);
    Result<Tensor> values = Tensor::TryAllocate(
        first.dtype(), shape,
        {.max_bytes = max_bytes, .limit_name = "the RAM budget", .fill = Buffer::Fill::kUninitialized});
    if (!values.ok()) return values.status().WithContext(StrCat(kOp, ": component ", plan_[c].name));
    int64_t at = 0;
    for (const Element& row : rows) {
      if (row[c].dim(0) == 0) continue;
      CopyIntoRows(row[c], *values, at);
      at += row[c].dim(0);
    }
    return values;
  }

  // Component `c` of `rows` stacked along a new dim 0, as batch does.
  Result<Tensor> StackRows(const std::vector<Element>& rows, size_t c, int64_t max_bytes) const {
    const Tensor& first = rows[0][c];
    for (size_t r = 1; r < rows.size(); ++r) {
      if (!(rows[r][c].shape() == first.shape())) {
        return InvalidArgumentError(kOp, ": Cannot batch tensors with different shapes in component ", plan_[c].name,
                                    ". First element had shape ", first.shape(), " and element ", r, " had shape ",
                                    rows[r][c].shape(), ".");
      }
    }
    Result<Tensor> stacked = Tensor::TryAllocate(
        first.dtype(), first.shape().Prepended(static_cast<int64_t>(rows.size())),
        {.max_bytes = max_bytes, .limit_name = "the RAM budget", .fill = Buffer::Fill::kUninitialized});
    if (!stacked.ok()) return stacked.status().WithContext(StrCat(kOp, ": component ", plan_[c].name));
    for (size_t r = 0; r < rows.size(); ++r) CopyIntoRows(rows[r][c], *stacked, static_cast<int64_t>(r));
    return stacked;
  }

  const DatasetPtr input_;
  const RaggedBatchOptions options_;
  const std::vector<ComponentPlan> plan_;  // one per input component
};

class RaggedBatchIterator final : public Iterator {
 public:
  RaggedBatchIterator(std::shared_ptr<const RaggedBatchDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)),
        input_(dataset_->input()->NewIterator(ctx)),
        max_bytes_(ctx.runtime->ram_budget().limit()) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    const RaggedBatchOptions& o = dataset_->options();
    SLUICE_ASSIGN_OR_RETURN(std::vector<Element> rows, GatherRows(kOp, *input_, o.batch_size, max_bytes_, nullptr));
    if (rows.empty() || (static_cast<int64_t>(rows.size()) < o.batch_size && o.drop_remainder)) {
      return std::nullopt;
    }
    SLUICE_ASSIGN_OR_RETURN(Element batch, dataset_->Batch(rows, max_bytes_));
    return batch;
  }

  Status SaveInternal(IteratorStateWriter& writer) override { return writer.WriteIterator("input", *input_); }
  Status RestoreInternal(IteratorStateReader& reader) override { return reader.ReadIterator("input", *input_); }

 private:
  const std::shared_ptr<const RaggedBatchDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  const int64_t max_bytes_;  // the traversal's RAM budget
};

std::unique_ptr<Iterator> RaggedBatchDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<RaggedBatchIterator>(SharedThis<RaggedBatchDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeRaggedBatchDataset(DatasetPtr input, RaggedBatchOptions options) {
  if (input == nullptr) return InvalidArgumentError(kOp, ": input dataset is null");
  if (options.batch_size <= 0) {
    return InvalidArgumentError(kOp, ": Batch size must be greater than zero (got ", options.batch_size, ").");
  }
  const ElementSpec& in = input->element_spec();
  SLUICE_RETURN_IF_ERROR(in.CheckRoomForLeadingDim(kOp));
  const int64_t leading = options.drop_remainder ? options.batch_size : kUnknownDim;
  std::vector<ComponentPlan> plan;
  std::vector<ComponentSpec> components;
  for (size_t i = 0; i < in.size(); ++i) {
    const ComponentSpec& c = in[i];
    const std::string name = in.DisplayName(i);
    if (!c.shape.known_rank()) {
      return InvalidArgumentError(kOp, ": component ", name, " has unknown rank ", in,
                                  "; ragged_batch needs each component's rank");
    }
    const bool ragged = c.shape.rank() >= 1 && c.shape.dim(0) == kUnknownDim;
    plan.push_back({ragged, name});
    if (!ragged) {
      components.push_back({c.name, c.dtype, c.shape.Prepended(leading)});
      continue;
    }
    const std::string lengths_name = StrCat(name, kRowLengthsSuffix);
    if (in.IndexOf(lengths_name).ok()) {
      return InvalidArgumentError(kOp, ": component ", name, "'s row lengths would be named '", lengths_name,
                                  "', a name the input already has ", in);
    }
    components.push_back(c);
    components.push_back({lengths_name, DType::kInt64, PartialShape{leading}});
  }
  const int64_t cardinality = BatchedCardinality(input->cardinality(), options.batch_size, options.drop_remainder);
  return Dataset::Make<RaggedBatchDataset>(std::move(input), options, std::move(plan),
                                           ElementSpec(std::move(components)), cardinality);
}

Result<DatasetPtr> RaggedBatchDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::RaggedBatch& ragged = node.ragged_batch();
  return MakeRaggedBatchDataset(context.input(),
                                {.batch_size = ragged.batch_size(), .drop_remainder = ragged.drop_remainder()});
}

}  // namespace sluice
