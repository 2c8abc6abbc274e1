#include "sluice/dataset/window_dataset.h"

#include <deque>
#include <limits>

#include "sluice/dataset/buffered_bytes.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

constexpr std::string_view kOp = "window";

class WindowDataset final : public Dataset {
 public:
  // `span`: the input elements a full window covers, (size - 1) * stride + 1.
  WindowDataset(DatasetPtr input, WindowOptions options, int64_t span, ElementSpec spec)
      : Dataset(std::move(spec), Cardinality(input->cardinality(), options, span)),
        input_(std::move(input)),
        options_(options),
        span_(span) {}

  std::string_view op_name() const override { return kOp; }
  std::string DebugParams() const override {
    return StrCat("size=", options_.size, ", shift=", shift(), ", stride=", options_.stride,
                  ", drop_remainder=", options_.drop_remainder ? "true" : "false");
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    auto* node = pipeline->add_ops()->mutable_window();
    node->set_size(options_.size);
    node->set_shift(shift());
    node->set_stride(options_.stride);
    node->set_drop_remainder(options_.drop_remainder);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  const WindowOptions& options() const { return options_; }
  int64_t shift() const { return options_.shift.value_or(options_.size); }
  int64_t span() const { return span_; }

 private:
  // tf.data's: with drop_remainder, the shifts that leave a full window
  // after the first; else every shift that starts inside the input.
  static int64_t Cardinality(int64_t n, const WindowOptions& options, int64_t span) {
    if (n < 0) return n;
    const int64_t shift = options.shift.value_or(options.size);
    if (options.drop_remainder) return n < span ? 0 : (n - span) / shift + 1;
    return n / shift + (n % shift == 0 ? 0 : 1);
  }

  const DatasetPtr input_;
  const WindowOptions options_;
  const int64_t span_;
};

// tf.data's window iterator: fill the buffer to a full window's span, emit
// every stride-th buffered element, then drop `shift` elements (reading and
// discarding the input past the buffer when the shift is longer).
class WindowIterator final : public Iterator {
 public:
  WindowIterator(std::shared_ptr<const WindowDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)), runtime_(ctx.runtime) {}

  ~WindowIterator() override { runtime_->ram_budget().Release(charged_); }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    const WindowOptions& o = dataset_->options();
    const size_t span = static_cast<size_t>(dataset_->span());
    while (!end_of_input_ && buffer_.size() < span) {
      Result<std::optional<Element>> next = input_->GetNext();
      if (next.ok() && !next->has_value()) {
        end_of_input_ = true;
        break;
      }
      if (!next.ok() && TraversalCancelled()) return next.status();
      // Over the budget, the window being filled is the error (the buffer
      // stays within the budget, whatever the window's span).
      Status held = next.ok() ? Hold(**std::move(next)) : Hold(next.status());
      if (!held.ok()) {
        Shift();
        return held;
      }
    }
    if (buffer_.empty() || (o.drop_remainder && buffer_.size() < span)) return std::nullopt;
    std::vector<Element> rows;
    Status status;
    for (size_t i = 0; i < buffer_.size(); i += static_cast<size_t>(o.stride)) {
      if (!buffer_[i].result.ok()) {
        status = buffer_[i].result.status();
        break;
      }
      rows.push_back(*buffer_[i].result);
    }
    Shift();
    SLUICE_RETURN_IF_ERROR(status);
    SLUICE_ASSIGN_OR_RETURN(Element window, StackWindow(kOp, rows, runtime_->ram_budget().limit()));
    return window;
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteBool("end_of_input", end_of_input_);
    writer.WriteInt("buffer/size", static_cast<int64_t>(buffer_.size()));
    for (size_t i = 0; i < buffer_.size(); ++i) {
      const Result<Element>& result = buffer_[i].result;
      writer.WriteStatus(StrCat("buffer/", i, "/status"), result.status());
      if (result.ok()) writer.WriteElement(StrCat("buffer/", i, "/element"), *result);
    }
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(end_of_input_, reader.ReadBool("end_of_input"));
    // A full buffer is emitted and shifted before GetNext returns.
    SLUICE_ASSIGN_OR_RETURN(const int64_t size, reader.ReadInt("buffer/size", 0, dataset_->span() - 1));
    for (int64_t i = 0; i < size; ++i) {
      Status status;
      SLUICE_RETURN_IF_ERROR(reader.ReadStatus(StrCat("buffer/", i, "/status"), &status));
      if (status.ok()) {
        SLUICE_ASSIGN_OR_RETURN(Element element, reader.ReadElement(StrCat("buffer/", i, "/element"),
                                                                    dataset_->input()->element_spec()));
        buffer_.push_back({std::move(element)});
      } else {
        buffer_.push_back({std::move(status)});
      }
      // The saved iterator held it within the budget: restored, it is charged even past it.
      buffer_.back().charge = BufferedBytes(buffer_.back().result);
      runtime_->ram_budget().Add(buffer_.back().charge);
      charged_ += buffer_.back().charge;
    }
    return reader.ReadIterator("input", *input_);
  }

 private:
  // A buffered input element, or its error, and what it is charged.
  struct Buffered {
    Result<Element> result;
    int64_t charge = 0;
  };

  // Buffers an input element or error, charged to the RAM budget
  // (dataset/buffered_bytes.h); one that doesn't fit is buffered as a
  // ResourceExhausted error in its place, and that returned.
  Status Hold(Result<Element> result) {
    const int64_t bytes = BufferedBytes(result);
    if (!runtime_->ram_budget().TryAdd(bytes)) {
      Status error = ResourceExhaustedError(kOp, ": holding ", result.ok() ? "an element" : "an input error", " of ",
                                            bytes, " bytes beside the ", charged_,
                                            " bytes of the window would pass the RAM budget of ",
                                            runtime_->ram_budget().limit(), " bytes");
      buffer_.push_back({error});
      return error;
    }
    charged_ += bytes;
    buffer_.push_back({std::move(result), bytes});
    return OkStatus();
  }

  // Drops the first `shift` elements: buffered ones, then, when the shift
  // is longer than the buffer, input elements read and discarded (errors
  // and all, as tf.data).
  void Shift() {
    const int64_t shift = dataset_->shift();
    int64_t dropped = 0;
    while (dropped < shift && !buffer_.empty()) {
      runtime_->ram_budget().Release(buffer_.front().charge);
      charged_ -= buffer_.front().charge;
      buffer_.pop_front();
      ++dropped;
    }
    for (; dropped < shift && !end_of_input_ && !TraversalCancelled(); ++dropped) {
      Result<std::optional<Element>> next = input_->GetNext();
      if (next.ok() && !next->has_value()) end_of_input_ = true;
    }
  }

  const std::shared_ptr<const WindowDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  const std::shared_ptr<Runtime> runtime_;  // whose RAM budget holds the buffer
  std::deque<Buffered> buffer_;             // fewer than span() between calls
  int64_t charged_ = 0;                     // the sum of the buffer's charges
  bool end_of_input_ = false;
};

std::unique_ptr<Iterator> WindowDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<WindowIterator>(SharedThis<WindowDataset>(), ctx);
}

}  // namespace

Result<ElementSpec> WindowSpec(std::string_view op, const ElementSpec& input, int64_t rows) {
  SLUICE_RETURN_IF_ERROR(input.CheckRoomForLeadingDim(op));
  std::vector<ComponentSpec> components = input.components();
  for (ComponentSpec& c : components) c.shape = c.shape.Prepended(rows);
  return ElementSpec(std::move(components));
}

Result<Element> StackWindow(std::string_view op, const std::vector<Element>& rows, int64_t max_bytes) {
  SLUICE_CHECK(!rows.empty()) << "a window has at least one row";
  Element window;
  for (size_t c = 0; c < rows[0].size(); ++c) {
    const Tensor& first = rows[0][c];
    for (size_t r = 1; r < rows.size(); ++r) {
      if (rows[r][c].shape() != first.shape()) {
        return InvalidArgumentError(op, ": Cannot batch tensors with different shapes in component ", c,
                                    ". First element had shape ", first.shape(), " and element ", r,
                                    " had shape ", rows[r][c].shape(), ".");
      }
    }
    Result<Tensor> stacked =
        Tensor::TryAllocate(first.dtype(), first.shape().Prepended(static_cast<int64_t>(rows.size())),
                            {.max_bytes = max_bytes, .limit_name = "the RAM budget", .fill = Buffer::Fill::kUninitialized});
    if (!stacked.ok()) return stacked.status().WithContext(StrCat(op, ": component ", c));
    for (size_t r = 0; r < rows.size(); ++r) CopyIntoRows(rows[r][c], *stacked, static_cast<int64_t>(r));
    window.components.push_back(*std::move(stacked));
  }
  return window;
}

Result<DatasetPtr> MakeWindowDataset(DatasetPtr input, WindowOptions options) {
  if (input == nullptr) return InvalidArgumentError(kOp, ": input dataset is null");
  if (options.size <= 0) {
    return InvalidArgumentError(kOp, ": Window size must be greater than zero, but got ", options.size, ".");
  }
  if (options.shift && *options.shift <= 0) {
    return InvalidArgumentError(kOp, ": Window shift must be greater than zero, but got ", *options.shift, ".");
  }
  if (options.stride <= 0) {
    return InvalidArgumentError(kOp, ": Window stride must be greater than zero, but got ", options.stride, ".");
  }
  // The buffer holds a full window's span of input elements.
  int64_t span = 0;
  if (__builtin_mul_overflow(options.size - 1, options.stride, &span) || span == std::numeric_limits<int64_t>::max()) {
    return InvalidArgumentError(kOp, ": a window of size ", options.size, " and stride ", options.stride,
                                " spans more than 2^63 input elements");
  }
  ++span;
  SLUICE_ASSIGN_OR_RETURN(ElementSpec spec,
                          WindowSpec(kOp, input->element_spec(), options.drop_remainder ? options.size : kUnknownDim));
  return Dataset::Make<WindowDataset>(std::move(input), options, span, std::move(spec));
}

Result<DatasetPtr> WindowDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::Window& window = node.window();
  return MakeWindowDataset(context.input(), {.size = window.size(),
                                             .shift = window.has_shift() ? std::optional(window.shift()) : std::nullopt,
                                             .stride = window.has_stride() ? window.stride() : 1,
                                             .drop_remainder = window.drop_remainder()});
}

}  // namespace sluice
