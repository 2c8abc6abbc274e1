#include "sluice/dataset/rebatch_dataset.h"

#include <algorithm>

#include "sluice/dataset/batch_dataset.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/unbatch_dataset.h"

namespace sluice {
namespace {

// The leading dim of every batch: known only when they are all full and alike.
int64_t LeadingDim(const RebatchOptions& options) {
  const auto& sizes = options.batch_sizes;
  const bool alike = std::all_of(sizes.begin(), sizes.end(), [&](int64_t s) { return s == sizes[0]; });
  return options.drop_remainder && alike ? sizes[0] : kUnknownDim;
}

ElementSpec RebatchedSpec(const ElementSpec& rows, int64_t leading_dim) {
  std::vector<ComponentSpec> components = rows.components();
  for (ComponentSpec& c : components) c.shape = c.shape.Prepended(leading_dim);
  return ElementSpec(std::move(components));
}

// The number of batches of `rows` rows (or the rows' sentinel), counted
// without a sum that could overflow.
int64_t RebatchedCardinality(int64_t rows, const RebatchOptions& options) {
  if (rows < 0) return rows;
  int64_t cycle_rows = 0;  // the rows of one cycle of sizes, 0 if more than rows
  for (int64_t s : options.batch_sizes) {
    if (cycle_rows > rows - s) {
      cycle_rows = 0;
      break;
    }
    cycle_rows += s;
  }
  const int64_t cycles = cycle_rows == 0 ? 0 : rows / cycle_rows;
  int64_t batches = cycles * static_cast<int64_t>(options.batch_sizes.size());
  int64_t left = rows - cycles * cycle_rows;
  for (int64_t s : options.batch_sizes) {
    if (left < s) break;
    left -= s;
    ++batches;
  }
  return left > 0 && !options.drop_remainder ? batches + 1 : batches;
}

class RebatchDataset final : public Dataset {
 public:
  RebatchDataset(DatasetPtr input, DatasetPtr rows, RebatchOptions options)
      : Dataset(RebatchedSpec(rows->element_spec(), LeadingDim(options)),
                RebatchedCardinality(rows->cardinality(), options)),
        input_(std::move(input)),
        rows_(std::move(rows)),
        options_(std::move(options)) {}

  std::string_view op_name() const override { return "rebatch"; }
  std::string DebugParams() const override {
    std::string sizes;
    for (int64_t s : options_.batch_sizes) sizes += StrCat(sizes.empty() ? "" : ", ", s);
    return StrCat("batch_sizes=[", sizes, "], drop_remainder=", options_.drop_remainder ? "true" : "false");
  }
  std::vector<DatasetPtr> inputs() const override { return {rows_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    auto* node = pipeline->add_ops()->mutable_rebatch();
    for (int64_t s : options_.batch_sizes) node->add_batch_sizes(s);
    node->set_drop_remainder(options_.drop_remainder);
    return OkStatus();
  }

  const DatasetPtr& rows() const { return rows_; }
  const RebatchOptions& options() const { return options_; }

 private:
  const DatasetPtr input_;  // the batches, as the spec writes them
  const DatasetPtr rows_;   // unbatch of input_
  const RebatchOptions options_;
};

class RebatchIterator final : public Iterator {
 public:
  RebatchIterator(std::shared_ptr<const RebatchDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)),
        rows_(dataset_->rows()->NewIterator(ctx)),
        limit_{.max_bytes = ctx.runtime->ram_budget().limit(), .limit_name = "the RAM budget"} {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    const RebatchOptions& options = dataset_->options();
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> batch,
                            GatherBatch("rebatch", *rows_, options.batch_sizes[next_size_], options.drop_remainder,
                                        dataset_->rows()->cardinality(), limit_));
    if (batch) next_size_ = (next_size_ + 1) % options.batch_sizes.size();
    return batch;
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("next_size", static_cast<int64_t>(next_size_));
    return writer.WriteIterator("input", *rows_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    const int64_t sizes = static_cast<int64_t>(dataset_->options().batch_sizes.size());
    SLUICE_ASSIGN_OR_RETURN(const int64_t next_size, reader.ReadInt("next_size", 0, sizes - 1));
    next_size_ = static_cast<size_t>(next_size);
    return reader.ReadIterator("input", *rows_);
  }

 private:
  const std::shared_ptr<const RebatchDataset> dataset_;
  const std::unique_ptr<Iterator> rows_;
  const Tensor::AllocateOptions limit_;  // per batch tensor: the traversal's RAM budget
  size_t next_size_ = 0;                 // index in batch_sizes of the next batch's size
};

std::unique_ptr<Iterator> RebatchDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<RebatchIterator>(SharedThis<RebatchDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeRebatchDataset(DatasetPtr input, RebatchOptions options) {
  if (input == nullptr) return InvalidArgumentError("rebatch: input dataset is null");
  if (options.batch_sizes.empty()) return InvalidArgumentError("rebatch: batch_sizes is empty (give at least one)");
  for (size_t i = 0; i < options.batch_sizes.size(); ++i) {
    if (options.batch_sizes[i] <= 0) {
      return InvalidArgumentError("rebatch: batch_sizes[", i, "] must be greater than zero (got ",
                                  options.batch_sizes[i], ")");
    }
  }
  Result<DatasetPtr> rows = MakeUnbatchDataset(input);
  if (!rows.ok()) return rows.status().WithContext("rebatch");
  return Dataset::Make<RebatchDataset>(std::move(input), *std::move(rows), std::move(options));
}

Result<DatasetPtr> RebatchDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::Rebatch& rebatch = node.rebatch();
  return MakeRebatchDataset(context.input(),
                            {.batch_sizes = {rebatch.batch_sizes().begin(), rebatch.batch_sizes().end()},
                             .drop_remainder = rebatch.drop_remainder()});
}

}  // namespace sluice
