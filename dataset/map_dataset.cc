#include "dataset/map_dataset.h"

#include "dataset/iterator_state.h"
#include "dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

class MapDataset final : public Dataset {
 public:
  MapDataset(DatasetPtr input, ElementFunctionPtr fn, BoundElementFunction bound)
      : Dataset(bound.output_spec, input->cardinality()),
        input_(std::move(input)),
        fn_(std::move(fn)),
        bound_(std::move(bound)) {}

  std::string_view op_name() const override { return "map"; }
  std::string DebugParams() const override { return StrCat("fn=", fn_->name()); }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    return fn_->ToSpec(pipeline->add_ops()->mutable_map()->mutable_fn());
  }

  // Applies the function to one element or run, checking the output against
  // the bound output spec: a lambda's is only declared, not inferred.
  Result<Element> Apply(Element element, bool is_run) const {
    Result<Element> out = bound_.apply(std::move(element));
    if (!out.ok()) {
      if (out.status().code() == StatusCode::kOutOfRange) {
        return InvalidArgumentError("map: Function invocation produced OutOfRangeError: ",
                                    out.status().message());
      }
      return out.status().WithContext("map");
    }
    Status status = element_spec().Check(*out, is_run);
    if (!status.ok()) {
      return status.WithContext(StrCat("map: the function's output does not match its declared spec ",
                                       element_spec()));
    }
    return out;
  }

  const DatasetPtr& input() const { return input_; }
  bool row_wise() const { return bound_.row_wise; }

 private:
  const DatasetPtr input_;
  const ElementFunctionPtr fn_;       // for name() and ToSpec
  const BoundElementFunction bound_;  // fn_ bound to input_'s element spec
};

class MapIterator final : public Iterator {
 public:
  MapIterator(std::shared_ptr<const MapDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    Element element;
    if (pending_rows_ > 0) {
      element = TakePendingRow();
    } else {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> next, input_->GetNext());
      if (!next) return std::nullopt;
      element = std::move(*next);
    }
    SLUICE_ASSIGN_OR_RETURN(Element out, dataset_->Apply(std::move(element), /*is_run=*/false));
    return out;
  }

  // A row-wise function maps whole runs. If it fails on a run, the run is
  // kept and mapped row by row, so the error lands on its own element.
  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) override {
    if (!dataset_->row_wise() || pending_rows_ > 0) return Iterator::GetNextRunInternal(max_rows);
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> run, input_->GetNextRun(max_rows));
    if (!run) return std::nullopt;
    Result<Element> out = dataset_->Apply(*run, /*is_run=*/true);
    if (out.ok()) return std::move(out).value();
    pending_ = std::move(*run);
    pending_rows_ = pending_[0].dim(0);
    pending_next_ = 0;
    return Iterator::GetNextRunInternal(max_rows);
  }

  // The function is not saved: it is assumed stateless (a lambda included).
  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteRows("pending", pending_, pending_next_, pending_next_ + pending_rows_);
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(pending_, reader.ReadRows("pending", dataset_->input()->element_spec(), &pending_rows_));
    pending_next_ = 0;
    return reader.ReadIterator("input", *input_);
  }

 private:
  Element TakePendingRow() {
    Element row;
    for (const Tensor& t : pending_.components) row.components.push_back(t.Row(pending_next_));
    ++pending_next_;
    if (--pending_rows_ == 0) pending_ = Element();
    return row;
  }

  const std::shared_ptr<const MapDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  Element pending_;  // a run whose rows are being mapped one by one
  int64_t pending_rows_ = 0;
  int64_t pending_next_ = 0;
};

std::unique_ptr<Iterator> MapDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<MapIterator>(SharedThis<MapDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeMapDataset(DatasetPtr input, ElementFunctionPtr fn) {
  if (input == nullptr) return InvalidArgumentError("map: input dataset is null");
  if (fn == nullptr) return InvalidArgumentError("map: function is null");
  // The function's own errors name it, so the context is just "map".
  Result<BoundElementFunction> bound = fn->Bind(input->element_spec());
  if (!bound.ok()) return bound.status().WithContext("map");
  return DatasetPtr(
      std::make_shared<MapDataset>(std::move(input), std::move(fn), *std::move(bound)));
}

}  // namespace sluice
