#include "sluice/dataset/zip_dataset.h"

#include <set>

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

ElementSpec ZippedSpec(const std::vector<DatasetPtr>& inputs) {
  std::vector<ComponentSpec> components;
  for (const DatasetPtr& input : inputs) {
    const auto& c = input->element_spec().components();
    components.insert(components.end(), c.begin(), c.end());
  }
  return ElementSpec(std::move(components));
}

int64_t ZippedCardinality(const std::vector<DatasetPtr>& inputs) {
  int64_t result = kInfiniteCardinality;
  for (const DatasetPtr& input : inputs) {
    const int64_t n = input->cardinality();
    if (n == kUnknownCardinality) return kUnknownCardinality;
    if (n != kInfiniteCardinality) result = result == kInfiniteCardinality ? n : std::min(result, n);
  }
  return result;
}

class ZipDataset final : public Dataset {
 public:
  explicit ZipDataset(std::vector<DatasetPtr> inputs)
      : Dataset(ZippedSpec(inputs), ZippedCardinality(inputs)), inputs_(std::move(inputs)) {}

  std::string_view op_name() const override { return "zip"; }
  std::string DebugParams() const override { return StrCat("inputs=", inputs_.size()); }
  std::vector<DatasetPtr> inputs() const override { return inputs_; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(inputs_[0]->ToSpec(pipeline));
    spec::Zip zip;
    for (size_t i = 1; i < inputs_.size(); ++i) SLUICE_RETURN_IF_ERROR(inputs_[i]->ToSpec(zip.add_others()));
    *pipeline->add_ops()->mutable_zip() = std::move(zip);
    return OkStatus();
  }

 private:
  const std::vector<DatasetPtr> inputs_;
};

// Asks the inputs in order for each position; once one ends, zip ends (the
// elements already pulled from earlier inputs for that position are dropped).
class ZipIterator final : public Iterator {
 public:
  ZipIterator(const std::vector<DatasetPtr>& inputs, const IteratorContext& ctx) {
    for (const DatasetPtr& input : inputs) inputs_.push_back(input->NewIterator(ctx));
  }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (done_) return std::nullopt;
    Element out;
    for (const auto& input : inputs_) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input->GetNext());
      if (!element) {
        done_ = true;
        return std::nullopt;
      }
      for (Tensor& t : element->components) out.components.push_back(std::move(t));
    }
    return out;
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteBool("done", done_);
    for (size_t i = 0; i < inputs_.size(); ++i) {
      SLUICE_RETURN_IF_ERROR(writer.WriteIterator(StrCat("input_", i), *inputs_[i]));
    }
    return OkStatus();
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(done_, reader.ReadBool("done"));
    for (size_t i = 0; i < inputs_.size(); ++i) {
      SLUICE_RETURN_IF_ERROR(reader.ReadIterator(StrCat("input_", i), *inputs_[i]));
    }
    return OkStatus();
  }

 private:
  std::vector<std::unique_ptr<Iterator>> inputs_;
  bool done_ = false;
};

std::unique_ptr<Iterator> ZipDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<ZipIterator>(inputs_, ctx);
}

}  // namespace

Result<DatasetPtr> MakeZipDataset(std::vector<DatasetPtr> inputs) {
  if (inputs.size() < 2) return InvalidArgumentError("zip: needs at least two datasets, got ", inputs.size());
  std::set<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] == nullptr) return InvalidArgumentError("zip: input ", i, " is null");
    for (const ComponentSpec& c : inputs[i]->element_spec().components()) {
      if (!c.name.empty() && !names.insert(c.name).second) {
        return InvalidArgumentError("zip: component name '", c.name, "' appears in more than one input (input ",
                                    i, " ", inputs[i]->element_spec(), "); rename one first");
      }
    }
  }
  return Dataset::Make<ZipDataset>(std::move(inputs));
}

Result<DatasetPtr> ZipDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  std::vector<DatasetPtr> inputs = {context.input()};
  for (int i = 0; i < node.zip().others_size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr other, WithContext(context.BuildPipeline(node.zip().others(i)),
                                                          StrCat("others[", i, "]")));
    inputs.push_back(std::move(other));
  }
  return MakeZipDataset(std::move(inputs));
}

}  // namespace sluice
