#include "sluice/dataset/from_tensors_dataset.h"

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/tensor_proto.h"

namespace sluice {
namespace {

ElementSpec TensorsSpec(const std::vector<NamedTensor>& components) {
  std::vector<ComponentSpec> specs;
  for (const NamedTensor& c : components) specs.push_back({c.name, c.tensor.dtype(), c.tensor.shape()});
  return ElementSpec(std::move(specs));
}

class FromTensorsDataset final : public Dataset {
 public:
  explicit FromTensorsDataset(std::vector<NamedTensor> components)
      : Dataset(TensorsSpec(components), 1), components_(std::move(components)) {}

  std::string_view op_name() const override { return "from_tensors"; }
  std::string DebugParams() const override { return ""; }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext&) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    auto* node = pipeline->add_ops()->mutable_from_tensors();
    for (const NamedTensor& c : components_) NamedTensorToProto(c, node->add_components());
    return OkStatus();
  }

  Element element() const {
    Element element;
    for (const NamedTensor& c : components_) element.components.push_back(c.tensor);
    return element;
  }

 private:
  const std::vector<NamedTensor> components_;
};

class FromTensorsIterator final : public Iterator {
 public:
  explicit FromTensorsIterator(std::shared_ptr<const FromTensorsDataset> dataset)
      : dataset_(std::move(dataset)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (done_) return std::nullopt;
    done_ = true;
    return dataset_->element();
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteBool("done", done_);
    return OkStatus();
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(done_, reader.ReadBool("done"));
    return OkStatus();
  }

 private:
  const std::shared_ptr<const FromTensorsDataset> dataset_;
  bool done_ = false;
};

std::unique_ptr<Iterator> FromTensorsDataset::NewIteratorInternal(const IteratorContext&) const {
  return std::make_unique<FromTensorsIterator>(SharedThis<FromTensorsDataset>());
}

}  // namespace

Result<DatasetPtr> MakeFromTensorsDataset(std::vector<NamedTensor> components) {
  if (components.empty()) return InvalidArgumentError("from_tensors: at least one component is required");
  for (size_t i = 0; i < components.size(); ++i) {
    if (!components[i].tensor.valid()) {
      return InvalidArgumentError("from_tensors: component ", i, " is an invalid tensor");
    }
  }
  return DatasetPtr(std::make_shared<FromTensorsDataset>(std::move(components)));
}

Result<DatasetPtr> FromTensorsDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext&) {
  SLUICE_ASSIGN_OR_RETURN(auto components, NamedTensorsFromProto(node.from_tensors().components(), "components"));
  return MakeFromTensorsDataset(std::move(components));
}

}  // namespace sluice
