#include "sluice/dataset/concatenate_dataset.h"

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

int64_t ConcatenatedCardinality(int64_t a, int64_t b) {
  if (a == kInfiniteCardinality || b == kInfiniteCardinality) return kInfiniteCardinality;
  if (a == kUnknownCardinality || b == kUnknownCardinality) return kUnknownCardinality;
  return a + b;
}

class ConcatenateDataset final : public Dataset {
 public:
  ConcatenateDataset(DatasetPtr first, DatasetPtr second)
      : Dataset(CommonElementSpec(first->element_spec(), second->element_spec()),
                ConcatenatedCardinality(first->cardinality(), second->cardinality())),
        first_(std::move(first)),
        second_(std::move(second)) {}

  std::string_view op_name() const override { return "concatenate"; }
  std::string DebugParams() const override { return ""; }
  std::vector<DatasetPtr> inputs() const override { return {first_, second_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(first_->ToSpec(pipeline));
    spec::Concatenate concatenate;
    SLUICE_RETURN_IF_ERROR(second_->ToSpec(concatenate.mutable_other()));
    *pipeline->add_ops()->mutable_concatenate() = std::move(concatenate);
    return OkStatus();
  }

  const DatasetPtr& second() const { return second_; }
  const DatasetPtr& first() const { return first_; }

 private:
  const DatasetPtr first_;
  const DatasetPtr second_;
};

class ConcatenateIterator final : public Iterator {
 public:
  ConcatenateIterator(std::shared_ptr<const ConcatenateDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), ctx_(ctx), input_(dataset_->first()->NewIterator(ctx)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    while (input_ != nullptr) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
      if (element) return element;
      NextInput();
    }
    return std::nullopt;
  }

  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) override {
    while (input_ != nullptr) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> run, input_->GetNextRun(max_rows));
      if (run) return run;
      NextInput();
    }
    return std::nullopt;
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteBool("on_first", on_first_);
    writer.WriteBool("done", input_ == nullptr);
    return input_ == nullptr ? OkStatus() : writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(on_first_, reader.ReadBool("on_first"));
    SLUICE_ASSIGN_OR_RETURN(bool done, reader.ReadBool("done"));
    input_.reset();
    if (done) return OkStatus();
    input_ = (on_first_ ? dataset_->first() : dataset_->second())->NewIterator(ctx_);
    return reader.ReadIterator("input", *input_);
  }

 private:
  void NextInput() {
    input_.reset();
    if (on_first_) input_ = dataset_->second()->NewIterator(ctx_);
    on_first_ = false;
  }

  const std::shared_ptr<const ConcatenateDataset> dataset_;
  const IteratorContext ctx_;
  std::unique_ptr<Iterator> input_;  // null when both are done
  bool on_first_ = true;
};

std::unique_ptr<Iterator> ConcatenateDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<ConcatenateIterator>(SharedThis<ConcatenateDataset>(), ctx);
}

}  // namespace

bool SameNamesAndDTypes(const ElementSpec& a, const ElementSpec& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].dtype != b[i].dtype) return false;
  }
  return true;
}

ElementSpec CommonElementSpec(const ElementSpec& a, const ElementSpec& b) {
  std::vector<ComponentSpec> components = a.components();
  for (size_t i = 0; i < components.size(); ++i) {
    components[i].shape = components[i].shape.MostSpecificCommon(b[i].shape);
  }
  return ElementSpec(std::move(components));
}

Result<DatasetPtr> MakeConcatenateDataset(DatasetPtr first, DatasetPtr second) {
  if (first == nullptr || second == nullptr) return InvalidArgumentError("concatenate: input dataset is null");
  const ElementSpec& a = first->element_spec();
  const ElementSpec& b = second->element_spec();
  if (!SameNamesAndDTypes(a, b)) {
    return InvalidArgumentError("concatenate: Two datasets to concatenate have different types: ", a,
                                " and ", b);
  }
  return Dataset::Make<ConcatenateDataset>(std::move(first), std::move(second));
}

Result<DatasetPtr> ConcatenateDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  if (!node.concatenate().has_other()) return InvalidArgumentError("concatenate has no other");
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr other, WithContext(context.BuildPipeline(node.concatenate().other()), "other"));
  return MakeConcatenateDataset(context.input(), std::move(other));
}

}  // namespace sluice
