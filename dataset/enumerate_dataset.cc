#include "sluice/dataset/enumerate_dataset.h"

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

ElementSpec EnumeratedSpec(const ElementSpec& input) {
  std::vector<ComponentSpec> components = {{"index", DType::kInt64, Shape{}}};
  components.insert(components.end(), input.components().begin(), input.components().end());
  return ElementSpec(std::move(components));
}

class EnumerateDataset final : public Dataset {
 public:
  EnumerateDataset(DatasetPtr input, EnumerateOptions options)
      : Dataset(EnumeratedSpec(input->element_spec()), input->cardinality()),
        input_(std::move(input)),
        options_(options) {}

  std::string_view op_name() const override { return "enumerate"; }
  std::string DebugParams() const override { return StrCat("start=", options_.start); }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    pipeline->add_ops()->mutable_enumerate()->set_start(options_.start);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  int64_t start() const { return options_.start; }

 private:
  const DatasetPtr input_;
  const EnumerateOptions options_;
};

// Like tf.data's zip(range(start, ...), input): an index is used up by every
// input position, errors included.
class EnumerateIterator final : public Iterator {
 public:
  EnumerateIterator(std::shared_ptr<const EnumerateDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)), next_(dataset_->start()) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    const int64_t index = next_;
    const bool overflowed = past_max_;
    past_max_ = past_max_ || __builtin_add_overflow(next_, 1, &next_);
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
    if (!element) return std::nullopt;
    if (overflowed) {
      return OutOfRangeError("enumerate: the index of this element would pass INT64_MAX (start=",
                             dataset_->start(), "); indices do not wrap");
    }
    element->components.insert(element->components.begin(), Tensor::Scalar<int64_t>(index));
    return element;
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("next", next_);
    writer.WriteBool("past_max", past_max_);
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(next_, reader.ReadInt("next"));
    SLUICE_ASSIGN_OR_RETURN(const int64_t past_max, reader.ReadInt("past_max", 0, 1));
    past_max_ = past_max == 1;
    return reader.ReadIterator("input", *input_);
  }

 private:
  const std::shared_ptr<const EnumerateDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  int64_t next_;
  bool past_max_ = false;  // next_ is past INT64_MAX (and holds a wrapped value)
};

std::unique_ptr<Iterator> EnumerateDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<EnumerateIterator>(SharedThis<EnumerateDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeEnumerateDataset(DatasetPtr input, EnumerateOptions options) {
  if (input == nullptr) return InvalidArgumentError("enumerate: input dataset is null");
  for (const ComponentSpec& c : input->element_spec().components()) {
    if (c.name == "index") {
      return InvalidArgumentError("enumerate: the input already has a component named 'index' ",
                                  input->element_spec(), "; rename it first");
    }
  }
  return Dataset::Make<EnumerateDataset>(std::move(input), options);
}

Result<DatasetPtr> EnumerateDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  return MakeEnumerateDataset(context.input(), {.start = node.enumerate().start()});
}

}  // namespace sluice
