#include "sluice/dataset/range_dataset.h"

#include <algorithm>
#include <utility>

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

// The number of elements, counted in uint64: stop - start may not fit in
// int64 (range(INT64_MIN, INT64_MAX, 2^62) has 4). Above INT64_MAX only for
// a step of magnitude 1 over (nearly) all of int64.
uint64_t RangeLength(const RangeOptions& o) {
  const auto start = static_cast<uint64_t>(o.start);
  const auto stop = static_cast<uint64_t>(o.stop);
  if (o.step > 0) return o.stop > o.start ? (stop - start - 1) / static_cast<uint64_t>(o.step) + 1 : 0;
  // -step as uint64 is exact even for INT64_MIN.
  return o.start > o.stop ? (start - stop - 1) / (0 - static_cast<uint64_t>(o.step)) + 1 : 0;
}

// The i-th value, start + i * step, in wrapping uint64 arithmetic: exact
// whenever the true value is in [start, stop), so it never overflows.
int64_t RangeValue(const RangeOptions& o, int64_t i) {
  return static_cast<int64_t>(static_cast<uint64_t>(o.start) +
                              static_cast<uint64_t>(i) * static_cast<uint64_t>(o.step));
}

class RangeDataset final : public Dataset {
 public:
  explicit RangeDataset(RangeOptions options)
      : Dataset(ElementSpec{{"", options.dtype, Shape{}}}, static_cast<int64_t>(RangeLength(options))),
        options_(options) {}

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

// Values are made kReadAhead at a time into one tensor, whose rows GetNext
// hands out (a view each, no allocation); GetNextRun hands over up to
// kMaxRunRows of them in one tensor, so that a batch or a row-wise map after
// range costs one call per run, not per element.
class RangeIterator final : public Iterator {
 public:
  static constexpr int64_t kReadAhead = 64;
  static constexpr int64_t kMaxRunRows = 4096;  // 32 KiB of int64

  explicit RangeIterator(std::shared_ptr<const RangeDataset> dataset) : dataset_(std::move(dataset)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (next_row_ == read_ahead_rows_) [[unlikely]] {
      SetReadAhead(MakeRun(kReadAhead));
      if (read_ahead_rows_ == 0) return std::nullopt;
    }
    return Element{read_ahead_.Row(next_row_++)};
  }

  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) override {
    if (next_row_ < read_ahead_rows_) {
      const int64_t end = std::min(read_ahead_rows_, next_row_ + max_rows);
      Tensor rows = read_ahead_.Slice(next_row_, end);
      next_row_ = end;
      if (next_row_ == read_ahead_rows_) SetReadAhead(Tensor());
      return Element{std::move(rows)};
    }
    Tensor run = MakeRun(std::min(max_rows, kMaxRunRows));
    if (!run.valid()) return std::nullopt;
    return Element{std::move(run)};
  }

  // The position is the count handed out: values read ahead are made again.
  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("produced", produced_ - (read_ahead_rows_ - next_row_));
    return OkStatus();
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(produced_, reader.ReadInt("produced", 0, dataset_->cardinality()));
    SetReadAhead(Tensor());
    return OkStatus();
  }

 private:
  // The next min(max_rows, what is left) values as a [k] tensor; an invalid
  // tensor at the end.
  Tensor MakeRun(int64_t max_rows) {
    const int64_t rows = std::min(max_rows, dataset_->cardinality() - produced_);
    if (rows <= 0) return Tensor();
    const RangeOptions& options = dataset_->options();
    Tensor run = Tensor::AllocateUninitialized(options.dtype, Shape{rows});
    VisitNumericDType(run.dtype(), [&](auto zero) {
      using T = decltype(zero);
      T* out = run.mutable_data<T>();
      for (int64_t i = 0; i < rows; ++i) out[i] = ConvertValue<T>(RangeValue(options, produced_ + i));
    });
    produced_ += rows;
    return run;
  }
  void SetReadAhead(Tensor run) {
    read_ahead_ = std::move(run);
    read_ahead_rows_ = read_ahead_.valid() ? read_ahead_.dim(0) : 0;
    next_row_ = 0;
  }

  const std::shared_ptr<const RangeDataset> dataset_;
  int64_t produced_ = 0;  // values made, those read ahead included
  Tensor read_ahead_;     // values made by GetNext, handed out from next_row_
  int64_t read_ahead_rows_ = 0;
  int64_t next_row_ = 0;
};

std::unique_ptr<Iterator> RangeDataset::NewIteratorInternal(const IteratorContext&) const {
  return std::make_unique<RangeIterator>(SharedThis<RangeDataset>());
}

}  // namespace

Result<DatasetPtr> MakeRangeDataset(RangeOptions options) {
  if (options.step == 0) return InvalidArgumentError("range: step must be a non-zero integer.");
  if (options.dtype == DType::kString) return InvalidArgumentError("range: dtype must be numeric, got string");
  if (RangeLength(options) > static_cast<uint64_t>(INT64_MAX)) {
    return InvalidArgumentError("range: start=", options.start, ", stop=", options.stop, ", step=", options.step,
                                " gives ", RangeLength(options), " elements; at most ", INT64_MAX,
                                " (int64's maximum) are supported");
  }
  // Values are checked, not truncated: range(300) as uint8 is an error.
  if (RangeLength(options) > 0 && options.dtype != DType::kInt64 && !IsFloating(options.dtype)) {
    const IntegerBounds bounds = IntegerBoundsOf(options.dtype);
    const int64_t last = RangeValue(options, static_cast<int64_t>(RangeLength(options)) - 1);
    if (!bounds.Contains(options.start) || !bounds.Contains(last)) {
      return InvalidArgumentError("range: values from ", options.start, " to ", last, " do not fit ", options.dtype,
                                  " [", bounds.min, ", ", bounds.max, "]");
    }
  }
  return DatasetPtr(std::make_shared<RangeDataset>(options));
}

Result<DatasetPtr> RangeDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext&) {
  const spec::Range& range = node.range();
  RangeOptions options{.start = range.start(), .stop = range.stop()};
  if (range.has_step()) options.step = range.step();
  if (!range.dtype().empty()) {
    SLUICE_ASSIGN_OR_RETURN(options.dtype, WithContext(ParseDType(range.dtype()), "dtype"));
  }
  return MakeRangeDataset(options);
}

}  // namespace sluice
