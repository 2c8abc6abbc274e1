#include "sluice/dataset/batch_dataset.h"

#include <algorithm>

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/parallel_transform.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

ElementSpec BatchedSpec(const ElementSpec& input, int64_t leading_dim) {
  std::vector<ComponentSpec> components = input.components();
  for (ComponentSpec& c : components) c.shape = c.shape.Prepended(leading_dim);
  return ElementSpec(std::move(components));
}

// InvalidArgument unless `run`'s rows have the shapes of `batch`'s; `row` is
// the index of the run's first row in the batch. `op` names the batching op.
Status CheckSameShapes(std::string_view op, const Element& batch, const Element& run, int64_t row) {
  for (size_t i = 0; i < run.size(); ++i) {
    const auto first = batch[i].shape().dims().subspan(1);
    const auto next = run[i].shape().dims().subspan(1);
    if (!std::equal(first.begin(), first.end(), next.begin(), next.end())) {
      return InvalidArgumentError(op, ": Cannot batch tensors with different shapes in component ", i,
                                  ". First element had shape ", batch[i].shape().WithoutFirstDim(),
                                  " and element ", row, " had shape ", run[i].shape().WithoutFirstDim(), ".");
    }
  }
  return OkStatus();
}

// Uninitialized batch tensors of `rows` rows shaped like `run`'s, each
// within `limit` (Tensor::TryAllocate: InvalidArgument when a tensor's size
// overflows, ResourceExhausted when it is above the limit or the host is
// out of memory), naming the op and the component.
Result<Element> AllocateBatch(std::string_view op, const Element& run, int64_t rows, Tensor::AllocateOptions limit) {
  limit.fill = Buffer::Fill::kUninitialized;
  Element batch;
  for (size_t i = 0; i < run.size(); ++i) {
    const Tensor& t = run[i];
    Shape shape = t.shape();
    shape.set_dim(0, rows);
    Result<Tensor> tensor = Tensor::TryAllocate(t.dtype(), shape, limit);
    if (!tensor.ok()) {
      return tensor.status().WithContext(StrCat(op, ": component ", i, " of a batch of ", rows, " rows"));
    }
    batch.components.push_back(std::move(*tensor));
  }
  return batch;
}

// Batch tensors of `rows` rows holding the first `filled` rows of `batch`.
Result<Element> Grown(std::string_view op, const Element& batch, int64_t filled, int64_t rows,
                      const Tensor::AllocateOptions& limit) {
  SLUICE_ASSIGN_OR_RETURN(Element grown, AllocateBatch(op, batch, rows, limit));
  for (size_t i = 0; i < batch.size(); ++i) CopyIntoRows(batch[i].Slice(0, filled), grown[i], 0);
  return grown;
}

// The rows a batch's tensors are first allocated with: the whole batch when
// the input will fill it (it is infinite), or as many rows as a finite
// input holds when that is fewer. With unknown cardinality, kInitialRows
// at most, and the tensors grow by doubling as rows arrive. So a batch size
// far above what the input holds allocates only for the rows that come.
constexpr int64_t kInitialRows = 4096;
int64_t InitialRows(int64_t batch_size, int64_t input_cardinality, int64_t first_run_rows) {
  if (input_cardinality == kInfiniteCardinality) return batch_size;
  const int64_t bound = input_cardinality >= 0 ? input_cardinality : kInitialRows;
  return std::min(batch_size, std::max(bound, first_run_rows));
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
        // The parallel runner charges the group to the RAM budget.
        SLUICE_ASSIGN_OR_RETURN(batch, AllocateBatch("batch", element, static_cast<int64_t>(rows.size()), {}));
      } else {
        SLUICE_RETURN_IF_ERROR(CheckSameShapes("batch", batch, element, static_cast<int64_t>(row)));
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

class BatchIterator final : public Iterator {
 public:
  BatchIterator(std::shared_ptr<const BatchDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)),
        input_(dataset_->input()->NewIterator(ctx)),
        limit_{.max_bytes = ctx.runtime->ram_budget().limit(), .limit_name = "the RAM budget"} {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    const BatchOptions& options = dataset_->options();
    return GatherBatch("batch", *input_, options.batch_size, options.drop_remainder,
                       dataset_->input()->cardinality(), limit_);
  }

  Status SaveInternal(IteratorStateWriter& writer) override { return writer.WriteIterator("input", *input_); }
  Status RestoreInternal(IteratorStateReader& reader) override { return reader.ReadIterator("input", *input_); }

 private:
  const std::shared_ptr<const BatchDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  const Tensor::AllocateOptions limit_;  // per batch tensor: the traversal's RAM budget
};

std::unique_ptr<Iterator> BatchDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  if (options_.num_parallel_calls == 0 || options_.batch_size > BatchOptions::kMaxParallelBatchSize) {
    return std::make_unique<BatchIterator>(SharedThis<BatchDataset>(), ctx);
  }
  return std::make_unique<ParallelTransformIterator>(
      ctx, input_->NewIterator(ctx), SharedThis<BatchDataset>(),
      ParallelTransformIterator::Options{.op_name = "batch",
                                         .parallelism = options_.num_parallel_calls,
                                         .deterministic = ctx.runtime->IsDeterministic(options_.deterministic),
                                         .output_spec = &element_spec()});
}

}  // namespace

// Pulls runs from the input and copies their rows straight into the batch
// tensors, so a run-capable input (from_slices, row-wise map, unbatch) costs
// one copy per run rather than per element, and none when one run is the
// whole batch.
Result<std::optional<Element>> GatherBatch(std::string_view op, Iterator& input, int64_t batch_size,
                                           bool drop_remainder, int64_t input_cardinality,
                                           const Tensor::AllocateOptions& limit) {
  Element batch;
  int64_t rows = 0;
  int64_t capacity = 0;  // rows allocated in batch
  while (rows < batch_size) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> run, input.GetNextRun(batch_size - rows));
    if (!run) break;
    const int64_t run_rows = (*run)[0].dim(0);
    // A whole batch in one run is already the batch: tensors are
    // immutable, so the view is returned without a copy.
    if (rows == 0 && run_rows == batch_size) return run;
    if (rows == 0) {
      capacity = InitialRows(batch_size, input_cardinality, run_rows);
      SLUICE_ASSIGN_OR_RETURN(batch, AllocateBatch(op, *run, capacity, limit));
    } else {
      SLUICE_RETURN_IF_ERROR(CheckSameShapes(op, batch, *run, rows));
      if (rows + run_rows > capacity) {
        capacity = std::max(rows + run_rows, capacity <= batch_size / 2 ? 2 * capacity : batch_size);
        SLUICE_ASSIGN_OR_RETURN(batch, Grown(op, batch, rows, capacity, limit));
      }
    }
    for (size_t i = 0; i < run->size(); ++i) CopyIntoRows((*run)[i], batch[i], rows);
    rows += run_rows;
  }
  if (rows == 0 || (rows < batch_size && drop_remainder)) return std::nullopt;
  if (rows < capacity) {
    for (Tensor& t : batch.components) t = t.Slice(0, rows);
  }
  return batch;
}

int64_t BatchedCardinality(int64_t input_cardinality, int64_t batch_size, bool drop_remainder) {
  if (input_cardinality < 0) return input_cardinality;
  const int64_t full = input_cardinality / batch_size;  // no sum that could overflow
  return drop_remainder || input_cardinality % batch_size == 0 ? full : full + 1;
}

Result<DatasetPtr> MakeBatchDataset(DatasetPtr input, BatchOptions options) {
  if (input == nullptr) return InvalidArgumentError("batch: input dataset is null");
  if (options.batch_size <= 0) {
    return InvalidArgumentError("batch: Batch size must be greater than zero (got ", options.batch_size, ").");
  }
  SLUICE_RETURN_IF_ERROR(CheckNumParallelCalls("batch", options.num_parallel_calls));
  SLUICE_RETURN_IF_ERROR(input->element_spec().CheckRoomForLeadingDim("batch"));
  return Dataset::Make<BatchDataset>(std::move(input), options);
}

Result<DatasetPtr> BatchDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::Batch& batch = node.batch();
  return MakeBatchDataset(context.input(),
                          {.batch_size = batch.batch_size(),
                           .drop_remainder = batch.drop_remainder(),
                           .num_parallel_calls = batch.num_parallel_calls(),
                           .deterministic = DeterminismFromSpec(batch.has_deterministic(), batch.deterministic())});
}

}  // namespace sluice
