#include "dataset/range_dataset.h"

#include "dataset/iterator_state.h"
#include "dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

int64_t RangeLength(const RangeOptions& o) {
  if (o.step > 0) return o.stop > o.start ? (o.stop - o.start - 1) / o.step + 1 : 0;
  return o.start > o.stop ? (o.start - o.stop - 1) / -o.step + 1 : 0;
}

class RangeDataset final : public Dataset {
 public:
  explicit RangeDataset(RangeOptions options)
      : Dataset(ElementSpec{{"", options.dtype, Shape{}}}, RangeLength(options)), options_(options) {}

  std::string_view op_name() const override { return "range"; }
  std::string DebugParams() const override {
    return StrCat("start=", options_.start, ", stop=", options_.stop, ", step=", options_.step,
                  ", dtype=", options_.dtype);
  }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext&) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    auto* node = pipeline->add_ops()->mutable_range();
    node->set_start(options_.start);
    node->set_stop(options_.stop);
    node->set_step(options_.step);
    node->set_dtype(std::string(DTypeName(options_.dtype)));
    return OkStatus();
  }

  const RangeOptions& options() const { return options_; }

 private:
  const RangeOptions options_;
};

class RangeIterator final : public Iterator {
 public:
  explicit RangeIterator(std::shared_ptr<const RangeDataset> dataset)
      : dataset_(std::move(dataset)), next_(dataset_->options().start) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (produced_ >= dataset_->cardinality()) return std::nullopt;
    const int64_t value = next_;
    next_ += dataset_->options().step;
    ++produced_;
    Tensor t = Tensor::Allocate(dataset_->options().dtype, Shape{});
    VisitNumericDType(t.dtype(), [&](auto zero) {
      *t.mutable_data<decltype(zero)>() = ConvertValue<decltype(zero)>(value);
    });
    return Element{t};
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("produced", produced_);
    return OkStatus();
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(produced_, reader.ReadInt("produced", 0, dataset_->cardinality()));
    next_ = dataset_->options().start + produced_ * dataset_->options().step;
    return OkStatus();
  }

 private:
  const std::shared_ptr<const RangeDataset> dataset_;
  int64_t next_;
  int64_t produced_ = 0;
};

std::unique_ptr<Iterator> RangeDataset::NewIteratorInternal(const IteratorContext&) const {
  return std::make_unique<RangeIterator>(SharedThis<RangeDataset>());
}

}  // namespace

Result<DatasetPtr> MakeRangeDataset(RangeOptions options) {
  if (options.step == 0) return InvalidArgumentError("range: step must be a non-zero integer.");
  if (options.dtype == DType::kString) return InvalidArgumentError("range: dtype must be numeric, got string");
  return DatasetPtr(std::make_shared<RangeDataset>(options));
}

}  // namespace sluice
