#include "sluice/dataset/counter_dataset.h"

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

// The values every dtype a counter may have can take, as checked before
// conversion: floating dtypes take all of int64.
IntegerBounds CounterBounds(DType dtype) {
  return IsFloating(dtype) ? IntegerBoundsOf(DType::kInt64) : IntegerBoundsOf(dtype);
}

class CounterDataset final : public Dataset {
 public:
  explicit CounterDataset(CounterOptions options)
      : Dataset(ElementSpec{{"", options.dtype, Shape{}}}, kInfiniteCardinality), options_(options) {}

  std::string_view op_name() const override { return "counter"; }
  std::string DebugParams() const override {
    return StrCat("start=", options_.start, ", step=", options_.step, ", dtype=", options_.dtype);
  }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext&) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    auto* node = pipeline->add_ops()->mutable_counter();
    node->set_start(options_.start);
    node->set_step(options_.step);
    node->set_dtype(std::string(DTypeName(options_.dtype)));
    return OkStatus();
  }

  const CounterOptions& options() const { return options_; }

 private:
  const CounterOptions options_;
};

class CounterIterator final : public Iterator {
 public:
  explicit CounterIterator(std::shared_ptr<const CounterDataset> dataset) : dataset_(std::move(dataset)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    const CounterOptions& o = dataset_->options();
    const int64_t index = produced_;
    if (produced_ < INT64_MAX) ++produced_;
    // start + index * step, exactly: |index * step| < 2^126.
    const __int128 value = static_cast<__int128>(o.start) + static_cast<__int128>(index) * o.step;
    const IntegerBounds bounds = CounterBounds(o.dtype);
    if (value < bounds.min || value > bounds.max) {
      return OutOfRangeError("counter: element ", index, " (start ", o.start, " + ", index, " * step ", o.step,
                             ") does not fit ", o.dtype, " [", bounds.min, ", ", bounds.max, "]");
    }
    Tensor t = Tensor::Allocate(o.dtype, Shape{});
    VisitNumericDType(o.dtype, [&](auto zero) {
      *t.mutable_data<decltype(zero)>() = ConvertValue<decltype(zero)>(static_cast<int64_t>(value));
    });
    return Element{std::move(t)};
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("produced", produced_);
    return OkStatus();
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(produced_, reader.ReadInt("produced", 0, INT64_MAX));
    return OkStatus();
  }

 private:
  const std::shared_ptr<const CounterDataset> dataset_;
  int64_t produced_ = 0;  // elements (and errors) returned
};

std::unique_ptr<Iterator> CounterDataset::NewIteratorInternal(const IteratorContext&) const {
  return std::make_unique<CounterIterator>(SharedThis<CounterDataset>());
}

}  // namespace

Result<DatasetPtr> MakeCounterDataset(CounterOptions options) {
  if (!IsInteger(options.dtype) && !IsFloating(options.dtype)) {
    return InvalidArgumentError("counter: dtype must be an integer or floating dtype, got ", options.dtype);
  }
  const IntegerBounds bounds = CounterBounds(options.dtype);
  if (!bounds.Contains(options.start)) {
    return InvalidArgumentError("counter: start ", options.start, " does not fit ", options.dtype, " [", bounds.min,
                                ", ", bounds.max, "]");
  }
  return DatasetPtr(std::make_shared<CounterDataset>(options));
}

Result<DatasetPtr> CounterDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext&) {
  const spec::Counter& counter = node.counter();
  CounterOptions options{.start = counter.start()};
  if (counter.has_step()) options.step = counter.step();
  if (!counter.dtype().empty()) {
    SLUICE_ASSIGN_OR_RETURN(options.dtype, WithContext(ParseDType(counter.dtype()), "dtype"));
  }
  return MakeCounterDataset(options);
}

}  // namespace sluice
