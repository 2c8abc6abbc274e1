#include "sluice/dataset/sparse_batch_dataset.h"

#include <algorithm>

#include "sluice/dataset/batch_dataset.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/padded_batch_dataset.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

constexpr std::string_view kOp = "sparse_batch";

class SparseBatchDataset final : public Dataset {
 public:
  SparseBatchDataset(DatasetPtr input, SparseBatchOptions options, ElementSpec spec, int64_t cardinality)
      : Dataset(std::move(spec), cardinality),
        input_(std::move(input)),
        options_(std::move(options)),
        row_shape_(std::span<const int64_t>(options_.row_shape)) {}

  std::string_view op_name() const override { return kOp; }
  std::string DebugParams() const override {
    return StrCat("batch_size=", options_.batch_size, ", row_shape=", row_shape_);
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    auto* node = pipeline->add_ops()->mutable_sparse_batch();
    node->set_batch_size(options_.batch_size);
    for (int64_t dim : options_.row_shape) node->add_row_shape(dim);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  int64_t batch_size() const { return options_.batch_size; }

  // The sparse tensor of `rows`, its tensors allocated within `max_bytes`.
  Result<Element> Batch(const std::vector<Element>& rows, int64_t max_bytes) const {
    const int rank = row_shape_.rank();
    std::vector<int64_t> dense(rank + 1);
    dense[0] = static_cast<int64_t>(rows.size());
    for (int j = 0; j < rank; ++j) dense[j + 1] = std::max<int64_t>(row_shape_.dim(j), 0);
    int64_t nnz = 0;
    for (const Element& row : rows) {
      const Tensor& t = row[0];
      if (t.rank() != rank) {
        return InvalidArgumentError(kOp, ": Input element had shape (", t.shape(),
                                    ") that is incompatible with the row shape (", row_shape_, ").");
      }
      for (int j = 0; j < rank; ++j) {
        if (row_shape_.dim(j) == kUnknownDim) {
          dense[j + 1] = std::max(dense[j + 1], t.dim(j));
        } else if (t.dim(j) > row_shape_.dim(j)) {
          return InvalidArgumentError(kOp, ": Input element had shape (", t.shape(),
                                      ") that is larger than the row shape (", row_shape_, ").");
        }
      }
      nnz += t.NumElements();  // no overflow: each row's bytes are in the RAM budget
    }
    const Tensor::AllocateOptions allocation{
        .max_bytes = max_bytes, .limit_name = "the RAM budget", .fill = Buffer::Fill::kUninitialized};
    Result<Tensor> values = Tensor::TryAllocate(rows[0][0].dtype(), Shape{nnz}, allocation);
    if (!values.ok()) return values.status().WithContext(StrCat(kOp, ": values"));
    int64_t index_columns = rank + 1, index_count = 0;
    if (__builtin_mul_overflow(nnz, index_columns, &index_count)) {
      return ResourceExhaustedError(kOp, ": ", nnz, " values' indices overflow int64");
    }
    Result<Tensor> indices = Tensor::TryAllocate(DType::kInt64, Shape{nnz, index_columns}, allocation);
    if (!indices.ok()) return indices.status().WithContext(StrCat(kOp, ": indices"));
    int64_t* index = indices->mutable_data<int64_t>();
    int64_t at = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
      const Tensor& t = rows[r][0];
      const int64_t n = t.NumElements();
      if (n == 0) continue;
      SLUICE_ASSIGN_OR_RETURN(Tensor flat, t.Reshaped(Shape{n}));
      CopyIntoRows(flat, *values, at);
      // The row-major index of each value: an odometer over t's dims.
      std::vector<int64_t> position(rank, 0);
      for (int64_t i = 0; i < n; ++i) {
        *index++ = static_cast<int64_t>(r);
        index = std::copy(position.begin(), position.end(), index);
        for (int j = rank - 1; j >= 0 && ++position[j] == t.dim(j); --j) position[j] = 0;
      }
      at += n;
    }
    return Element{std::move(*values), std::move(*indices), Tensor::FromVector(dense)};
  }

 private:
  const DatasetPtr input_;
  const SparseBatchOptions options_;
  const PartialShape row_shape_;
};

class SparseBatchIterator final : public Iterator {
 public:
  SparseBatchIterator(std::shared_ptr<const SparseBatchDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)),
        input_(dataset_->input()->NewIterator(ctx)),
        max_bytes_(ctx.runtime->ram_budget().limit()) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<Element> rows,
                            GatherRows(kOp, *input_, dataset_->batch_size(), max_bytes_, nullptr));
    if (rows.empty()) return std::nullopt;
    SLUICE_ASSIGN_OR_RETURN(Element batch, dataset_->Batch(rows, max_bytes_));
    return batch;
  }

  Status SaveInternal(IteratorStateWriter& writer) override { return writer.WriteIterator("input", *input_); }
  Status RestoreInternal(IteratorStateReader& reader) override { return reader.ReadIterator("input", *input_); }

 private:
  const std::shared_ptr<const SparseBatchDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  const int64_t max_bytes_;  // the traversal's RAM budget
};

std::unique_ptr<Iterator> SparseBatchDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<SparseBatchIterator>(SharedThis<SparseBatchDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeSparseBatchDataset(DatasetPtr input, SparseBatchOptions options) {
  if (input == nullptr) return InvalidArgumentError(kOp, ": input dataset is null");
  if (options.batch_size <= 0) {
    return InvalidArgumentError(kOp, ": Batch size must be greater than zero (got ", options.batch_size, ").");
  }
  if (options.row_shape.size() >= static_cast<size_t>(kMaxRank)) {
    return InvalidArgumentError(kOp, ": row_shape has ", options.row_shape.size(),
                                " dims; the dense shape needs one more, and a tensor has at most ", kMaxRank);
  }
  const int rank = static_cast<int>(options.row_shape.size());
  for (size_t j = 0; j < options.row_shape.size(); ++j) {
    if (options.row_shape[j] < kUnknownDim) {
      return InvalidArgumentError(kOp, ": row_shape dim ", j, " is ", options.row_shape[j],
                                  "; dims must be >= 0, or -1 for the batch's largest");
    }
  }
  const ElementSpec& in = input->element_spec();
  if (in.size() != 1) {
    return InvalidArgumentError(kOp, ": only supports inputs with a single component; the input has ", in);
  }
  const ComponentSpec& c = in[0];
  if (c.shape.known_rank() && c.shape.rank() != rank) {
    return InvalidArgumentError(kOp, ": the input's elements have rank ", c.shape.rank(), " ", in, " but row_shape ",
                                PartialShape(std::span<const int64_t>(options.row_shape)), " has rank ", rank);
  }
  const std::string name = in.DisplayName(0);
  std::vector<ComponentSpec> components = {
      {c.name, c.dtype, PartialShape{kUnknownDim}},
      {StrCat(name, "/indices"), DType::kInt64, PartialShape{kUnknownDim, rank + 1}},
      {StrCat(name, "/dense_shape"), DType::kInt64, PartialShape{rank + 1}}};
  const int64_t cardinality = BatchedCardinality(input->cardinality(), options.batch_size, false);
  return Dataset::Make<SparseBatchDataset>(std::move(input), std::move(options), ElementSpec(std::move(components)),
                                           cardinality);
}

Result<DatasetPtr> SparseBatchDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::SparseBatch& sparse = node.sparse_batch();
  return MakeSparseBatchDataset(
      context.input(), {.batch_size = sparse.batch_size(),
                        .row_shape = std::vector<int64_t>(sparse.row_shape().begin(), sparse.row_shape().end())});
}

}  // namespace sluice
