#include "sluice/dataset/from_slices_dataset.h"

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/tensor_proto.h"

namespace sluice {
namespace {

ElementSpec SliceSpec(const std::vector<NamedTensor>& components) {
  std::vector<ComponentSpec> specs;
  for (const NamedTensor& c : components) {
    specs.push_back({c.name, c.tensor.dtype(), c.tensor.shape().WithoutFirstDim()});
  }
  return ElementSpec(std::move(specs));
}

class FromSlicesDataset final : public Dataset {
 public:
  FromSlicesDataset(std::vector<NamedTensor> components, int64_t rows)
      : Dataset(SliceSpec(components), rows), components_(std::move(components)) {}

  std::string_view op_name() const override { return "from_slices"; }
  std::string DebugParams() const override { return StrCat("rows=", cardinality()); }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext&) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    auto* node = pipeline->add_ops()->mutable_from_slices();
    for (const NamedTensor& c : components_) NamedTensorToProto(c, node->add_components());
    return OkStatus();
  }

  const std::vector<NamedTensor>& components() const { return components_; }

 private:
  const std::vector<NamedTensor> components_;
};

class FromSlicesIterator final : public Iterator {
 public:
  explicit FromSlicesIterator(std::shared_ptr<const FromSlicesDataset> dataset)
      : dataset_(std::move(dataset)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (next_ >= dataset_->cardinality()) return std::nullopt;
    Element element;
    element.components.reserve(dataset_->components().size());
    for (const NamedTensor& c : dataset_->components()) element.components.push_back_row(c.tensor, next_);
    ++next_;
    return element;
  }

  // A run is a view of consecutive rows: no copy, O(1) per run.
  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) override {
    if (next_ >= dataset_->cardinality()) return std::nullopt;
    const int64_t end = std::min(next_ + max_rows, dataset_->cardinality());
    Element run;
    run.components.reserve(dataset_->components().size());
    for (const NamedTensor& c : dataset_->components()) run.components.push_back(c.tensor.Slice(next_, end));
    next_ = end;
    return run;
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("next", next_);
    return OkStatus();
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(next_, reader.ReadInt("next", 0, dataset_->cardinality()));
    return OkStatus();
  }

 private:
  const std::shared_ptr<const FromSlicesDataset> dataset_;
  int64_t next_ = 0;
};

std::unique_ptr<Iterator> FromSlicesDataset::NewIteratorInternal(const IteratorContext&) const {
  return std::make_unique<FromSlicesIterator>(SharedThis<FromSlicesDataset>());
}

}  // namespace

Result<DatasetPtr> MakeFromSlicesDataset(std::vector<NamedTensor> components) {
  if (components.empty()) return InvalidArgumentError("from_slices: at least one component is required");
  for (size_t i = 0; i < components.size(); ++i) {
    const Tensor& t = components[i].tensor;
    if (!t.valid()) return InvalidArgumentError("from_slices: component ", i, " is an invalid tensor");
    if (t.rank() < 1) {
      return InvalidArgumentError("from_slices: all components must be at least 1-dimensional; component ",
                                  i, " has shape ", t.shape());
    }
    if (t.dim(0) != components[0].tensor.dim(0)) {
      return InvalidArgumentError("from_slices: all components must have the same size in the 0th "
                                  "dimension; component 0 has ", components[0].tensor.dim(0),
                                  " rows but component ", i, " has ", t.dim(0));
    }
  }
  const int64_t rows = components[0].tensor.dim(0);
  return DatasetPtr(std::make_shared<FromSlicesDataset>(std::move(components), rows));
}

Result<DatasetPtr> FromSlicesDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext&) {
  SLUICE_ASSIGN_OR_RETURN(auto components, NamedTensorsFromProto(node.from_slices().components(), "components"));
  return MakeFromSlicesDataset(std::move(components));
}

}  // namespace sluice
