#include "dataset/batch_dataset.h"

#include "dataset/iterator_state.h"
#include "dataset/parallel_transform.h"
#include "dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

ElementSpec BatchedSpec(const ElementSpec& input, int64_t leading_dim) {
  std::vector<ComponentSpec> components = input.components();
  for (ComponentSpec& c : components) c.shape = c.shape.Prepended(leading_dim);
  return ElementSpec(std::move(components));
}

// InvalidArgument unless `run`'s rows have the shapes of `batch`'s; `row` is
// the index of the run's first row in the batch.
Status CheckSameShapes(const Element& batch, const Element& run, int64_t row) {
  for (size_t i = 0; i < run.size(); ++i) {
    const auto first = batch[i].shape().dims().subspan(1);
    const auto next = run[i].shape().dims().subspan(1);
    if (!std::equal(first.begin(), first.end(), next.begin(), next.end())) {
      return InvalidArgumentError("batch: Cannot batch tensors with different shapes in component ", i,
                                  ". First element had shape ", batch[i].shape().WithoutFirstDim(),
                                  " and element ", row, " had shape ", run[i].shape().WithoutFirstDim(), ".");
    }
  }
  return OkStatus();
}

// Uninitialized batch tensors of `rows` rows shaped like `run`'s.
Element AllocateBatch(const Element& run, int64_t rows) {
  Element batch;
  for (const Tensor& t : run.components) {
    Shape shape = t.shape();
    shape.set_dim(0, rows);
    batch.components.push_back(Tensor::AllocateUninitialized(t.dtype(), shape));
  }
  return batch;
}

class BatchDataset final : public Dataset, public GroupTransform {
 public:
  BatchDataset(DatasetPtr input, BatchOptions options)
      : Dataset(BatchedSpec(input->element_spec(), options.drop_remainder ? options.batch_size : kUnknownDim),
                BatchedCardinality(input->cardinality(), options.batch_size, options.drop_remainder)),
        input_(std::move(input)),
        options_(options) {}

  std::string_view op_name() const override { return "batch"; }
  std::string DebugParams() const override {
    std::string params = StrCat("batch_size=", options_.batch_size,
                                ", drop_remainder=", options_.drop_remainder ? "true" : "false");
    return params + ParallelParams(options_.num_parallel_calls, options_.deterministic);
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    auto* node = pipeline->add_ops()->mutable_batch();
    node->set_batch_size(options_.batch_size);
    node->set_drop_remainder(options_.drop_remainder);
    if (options_.num_parallel_calls != 0) node->set_num_parallel_calls(options_.num_parallel_calls);
    if (options_.deterministic != Determinism::kDefault) {
      node->set_deterministic(options_.deterministic == Determinism::kDeterministic);
    }
    return OkStatus();
  }

  // GroupTransform, for the parallel iterator: a group is one batch's rows.
  int64_t NextGroupSize(double) const override { return options_.batch_size; }
  void Transform(Input& input, GroupOutputs& outputs) const override {
    if (!input.error.ok()) {  // the rows before it are dropped
      outputs.push_back(std::move(input.error));
      return;
    }
    const int64_t rows = static_cast<int64_t>(input.elements.size());
    if (rows < options_.batch_size && options_.drop_remainder) return;
    outputs.push_back(Stack(input.elements));
  }

  // The batch of `rows` (moved from), or the error of the first row whose
  // shapes differ from the first's.
  Result<Element> Stack(GroupElements& rows) const {
    Element batch;
    for (size_t row = 0; row < rows.size(); ++row) {
      Element element = std::move(rows[row]);
      for (Tensor& t : element.components) t.PrependUnitDim();
      if (row == 0) {
        batch = AllocateBatch(element, static_cast<int64_t>(rows.size()));
      } else {
        SLUICE_RETURN_IF_ERROR(CheckSameShapes(batch, element, static_cast<int64_t>(row)));
      }
      for (size_t i = 0; i < element.size(); ++i) CopyIntoRows(element[i], batch[i], static_cast<int64_t>(row));
    }
    return batch;
  }

  const DatasetPtr& input() const { return input_; }
  const BatchOptions& options() const { return options_; }

 private:
  const DatasetPtr input_;
  const BatchOptions options_;
};

// Pulls runs from the input and copies their rows straight into the batch
// tensors, so a run-capable input (from_slices, row-wise map) costs one copy
// per run rather than per element, and none when one run is the whole batch.
class BatchIterator final : public Iterator {
 public:
  BatchIterator(std::shared_ptr<const BatchDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    const int64_t batch_size = dataset_->options().batch_size;
    Element batch;
    int64_t rows = 0;
    while (rows < batch_size) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> run, input_->GetNextRun(batch_size - rows));
      if (!run) break;
      // A whole batch in one run is already the batch: tensors are
      // immutable, so the view is returned without a copy.
      if (rows == 0 && (*run)[0].dim(0) == batch_size) return run;
      if (rows == 0) {
        batch = AllocateBatch(*run, batch_size);
      } else {
        SLUICE_RETURN_IF_ERROR(CheckSameShapes(batch, *run, rows));
      }
      for (size_t i = 0; i < run->size(); ++i) CopyIntoRows((*run)[i], batch[i], rows);
      rows += (*run)[0].dim(0);
    }
    if (rows == 0 || (rows < batch_size && dataset_->options().drop_remainder)) return std::nullopt;
    if (rows < batch_size) {
      for (Tensor& t : batch.components) t = t.Slice(0, rows);
    }
    return batch;
  }

  Status SaveInternal(IteratorStateWriter& writer) override { return writer.WriteIterator("input", *input_); }
  Status RestoreInternal(IteratorStateReader& reader) override { return reader.ReadIterator("input", *input_); }

 private:
  const std::shared_ptr<const BatchDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
};

std::unique_ptr<Iterator> BatchDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  if (options_.num_parallel_calls == 0) return std::make_unique<BatchIterator>(SharedThis<BatchDataset>(), ctx);
  return std::make_unique<ParallelTransformIterator>(
      ctx, input_->NewIterator(ctx), SharedThis<BatchDataset>(),
      ParallelTransformIterator::Options{.op_name = "batch",
                                         .parallelism = options_.num_parallel_calls,
                                         .deterministic = ctx.runtime->IsDeterministic(options_.deterministic),
                                         .output_spec = &element_spec()});
}

}  // namespace

int64_t BatchedCardinality(int64_t input_cardinality, int64_t batch_size, bool drop_remainder) {
  if (input_cardinality < 0) return input_cardinality;
  return drop_remainder ? input_cardinality / batch_size : (input_cardinality + batch_size - 1) / batch_size;
}

Result<DatasetPtr> MakeBatchDataset(DatasetPtr input, BatchOptions options) {
  if (input == nullptr) return InvalidArgumentError("batch: input dataset is null");
  if (options.batch_size <= 0) {
    return InvalidArgumentError("batch: Batch size must be greater than zero (got ", options.batch_size, ").");
  }
  SLUICE_RETURN_IF_ERROR(CheckNumParallelCalls("batch", options.num_parallel_calls));
  return DatasetPtr(std::make_shared<BatchDataset>(std::move(input), options));
}

}  // namespace sluice
