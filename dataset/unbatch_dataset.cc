#include "sluice/dataset/unbatch_dataset.h"

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

ElementSpec UnbatchedSpec(const ElementSpec& input) {
  std::vector<ComponentSpec> components = input.components();
  for (ComponentSpec& c : components) c.shape = c.shape.WithoutFirstDim();
  return ElementSpec(std::move(components));
}

// Known only when the input's count and every component's leading dim are.
int64_t UnbatchedCardinality(const Dataset& input) {
  const int64_t n = input.cardinality();
  if (n == kInfiniteCardinality) return n;
  int64_t rows = kUnknownDim;
  for (const ComponentSpec& c : input.element_spec().components()) {
    if (!c.shape.known_rank() || c.shape.dim(0) < 0) return kUnknownCardinality;
    if (rows != kUnknownDim && rows != c.shape.dim(0)) return kUnknownCardinality;
    rows = c.shape.dim(0);
  }
  return n < 0 ? n : n * rows;
}

class UnbatchDataset final : public Dataset {
 public:
  explicit UnbatchDataset(DatasetPtr input)
      : Dataset(UnbatchedSpec(input->element_spec()), UnbatchedCardinality(*input)), input_(std::move(input)) {}

  std::string_view op_name() const override { return "unbatch"; }
  std::string DebugParams() const override { return ""; }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    pipeline->add_ops()->mutable_unbatch();
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }

 private:
  const DatasetPtr input_;
};

// Hands out rows of the current input element as views; runs are slices.
class UnbatchIterator final : public Iterator {
 public:
  UnbatchIterator(std::shared_ptr<const UnbatchDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    SLUICE_ASSIGN_OR_RETURN(bool more, EnsureRows());
    if (!more) return std::nullopt;
    Element row;
    row.components.reserve(current_.size());
    for (const Tensor& t : current_.components) row.components.push_back_row(t, next_row_);
    ++next_row_;
    return row;
  }

  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) override {
    SLUICE_ASSIGN_OR_RETURN(bool more, EnsureRows());
    if (!more) return std::nullopt;
    const int64_t end = std::min(next_row_ + max_rows, rows_);
    Element run;
    run.components.reserve(current_.size());
    for (const Tensor& t : current_.components) run.components.push_back(t.Slice(next_row_, end));
    next_row_ = end;
    return run;
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteRows("current", current_, next_row_, rows_);
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(current_, reader.ReadRows("current", dataset_->element_spec(), &rows_));
    next_row_ = 0;
    return reader.ReadIterator("input", *input_);
  }

 private:
  // Pulls input elements until one has rows left; false at end of input.
  Result<bool> EnsureRows() {
    while (next_row_ >= rows_) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
      if (!element) return false;
      SLUICE_RETURN_IF_ERROR(CheckBatch(*element));
      current_ = std::move(*element);
      rows_ = current_[0].dim(0);
      next_row_ = 0;
    }
    return true;
  }

  static Status CheckBatch(const Element& element) {
    for (size_t i = 0; i < element.size(); ++i) {
      if (element[i].rank() == 0) {
        return InvalidArgumentError("unbatch: Input element must have a non-scalar value in each component.");
      }
      if (element[i].dim(0) != element[0].dim(0)) {
        return InvalidArgumentError("unbatch: Input element must have the same batch size in each component. "
                                    "Component 0 had size ", element[0].dim(0), " but component ", i,
                                    " had size, ", element[i].dim(0), ".");
      }
    }
    return OkStatus();
  }

  const std::shared_ptr<const UnbatchDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  Element current_;
  int64_t rows_ = 0;
  int64_t next_row_ = 0;
};

std::unique_ptr<Iterator> UnbatchDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<UnbatchIterator>(SharedThis<UnbatchDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeUnbatchDataset(DatasetPtr input) {
  if (input == nullptr) return InvalidArgumentError("unbatch: input dataset is null");
  const ElementSpec& spec = input->element_spec();
  for (size_t i = 0; i < spec.size(); ++i) {
    if (spec[i].shape.rank() == 0) {
      return InvalidArgumentError("unbatch: Input element must have a non-scalar value in each component; "
                                  "component ", spec.DisplayName(i), " is a scalar ", spec);
    }
  }
  return Dataset::Make<UnbatchDataset>(std::move(input));
}

Result<DatasetPtr> UnbatchDatasetFromSpec(const spec::DatasetNode&, const OpSpecContext& context) {
  return MakeUnbatchDataset(context.input());
}

}  // namespace sluice
