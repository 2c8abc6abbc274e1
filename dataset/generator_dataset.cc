#include "sluice/dataset/generator_dataset.h"

namespace sluice {
namespace {

constexpr std::string_view kOp = "from_generator";

class GeneratorDataset final : public Dataset {
 public:
  explicit GeneratorDataset(GeneratorOptions options)
      : Dataset(options.element_spec, kUnknownCardinality), start_(std::move(options.start)) {}

  std::string_view op_name() const override { return kOp; }
  std::string DebugParams() const override { return ""; }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  Status ToSpec(spec::Pipeline*) const override {
    return UnimplementedError(kOp, " holds a C++ or Python generator and cannot be written as a pipeline spec");
  }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext&) const override;

  Result<Generator> Start() const { return start_(); }

 private:
  const std::function<Result<Generator>()> start_;
};

class GeneratorIterator final : public Iterator {
 public:
  explicit GeneratorIterator(std::shared_ptr<const GeneratorDataset> dataset) : dataset_(std::move(dataset)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (ended_) return std::nullopt;
    if (!generator_) {
      Result<Generator> started = dataset_->Start();
      if (!started.ok() || !*started) {
        ended_ = true;
        if (!started.ok()) return started.status().WithContext(StrCat(kOp, ": starting the generator"));
        return InvalidArgumentError(kOp, ": the start function returned an empty generator");
      }
      generator_ = std::move(*started);
    }
    Result<std::optional<Element>> next = generator_();
    const int64_t index = calls_++;
    if (!next.ok()) return next;
    if (!next->has_value()) {
      ended_ = true;
      generator_ = nullptr;  // lets go of what it holds now, not when the iterator goes
      return next;
    }
    if (Status status = dataset_->element_spec().Check(**next); !status.ok()) {
      return InvalidArgumentError(kOp, ": element ", index, " does not match the element spec ",
                                  dataset_->element_spec(), ": ", status.message());
    }
    return next;
  }

  Status SaveInternal(IteratorStateWriter&) override {
    return UnimplementedError(kOp, ": a generator's position cannot be saved: its state is inside the callable");
  }
  Status RestoreInternal(IteratorStateReader&) override {
    return UnimplementedError(kOp, ": a generator's position cannot be restored: its state is inside the callable");
  }

 private:
  const std::shared_ptr<const GeneratorDataset> dataset_;
  Generator generator_;  // empty until the first GetNext, and after the end
  int64_t calls_ = 0;    // the generator's results so far, errors included
  bool ended_ = false;
};

std::unique_ptr<Iterator> GeneratorDataset::NewIteratorInternal(const IteratorContext&) const {
  return std::make_unique<GeneratorIterator>(SharedThis<GeneratorDataset>());
}

}  // namespace

Result<DatasetPtr> MakeGeneratorDataset(GeneratorOptions options) {
  if (!options.start) return InvalidArgumentError(kOp, ": the start function is required");
  if (options.element_spec.size() == 0) return InvalidArgumentError(kOp, ": the element spec has no component");
  return DatasetPtr(std::make_shared<GeneratorDataset>(std::move(options)));
}

}  // namespace sluice
