// pad_or_truncate (text_functions.h).
#include <cmath>
#include <optional>

#include "sluice/dataset/component_target.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/text_functions.h"
#include "sluice/dataset/text_function_shapes.h"
#include "sluice/ops/pad_or_truncate.h"

namespace sluice {
namespace {

// The mask component's suffix, and that of the row lengths that mark a
// batch laid out as values + row lengths.
constexpr std::string_view kMaskSuffix = "/mask";
constexpr std::string_view kRowLengthsSuffix = "/row_lengths";

// OK when `value` converts to `dtype` exactly (integers in range, bool 0 or 1).
Status CheckPadValue(double value, DType dtype) {
  if (dtype == DType::kString) {
    if (value != 0) return InvalidArgumentError("pad_value ", value, " for strings; strings are padded with \"\"");
    return OkStatus();
  }
  if (dtype != DType::kBool && !IsInteger(dtype)) return OkStatus();
  const IntegerBounds bounds = IntegerBoundsOf(dtype);
  if (std::trunc(value) != value || value < static_cast<double>(bounds.min) ||
      value > static_cast<double>(bounds.max)) {
    return InvalidArgumentError("pad_value ", value, " is not a value of ", dtype);
  }
  return OkStatus();
}

class PadOrTruncateFunction final : public ElementFunction {
 public:
  PadOrTruncateFunction(std::string component, int64_t length, double pad_value, bool per_row)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kOnly),
        length_(length),
        pad_value_(pad_value),
        per_row_(per_row),
        name_(StrCat("pad_or_truncate(", TextArgumentsPrefix(target_.component()), length,
                     pad_value == 0 ? "" : StrCat(", pad_value=", pad_value), per_row ? ", per_row" : "", ")")) {}

  std::string name() const override { return name_; }
  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    const size_t i = indices.front();
    const ComponentSpec& in = input[i];
    const std::string context = StrCat(name_, ": component ", input.DisplayName(i));
    if (!in.shape.known_rank() || in.shape.rank() != 1) {
      return InvalidArgumentError(context, " is ", in.dtype, in.shape, "; expected a vector [-1]");
    }
    Status valid = CheckPadValue(pad_value_, in.dtype);
    if (!valid.ok()) return valid.WithContext(context);
    // per_row: the rows of values + row lengths are padded one by one.
    std::optional<size_t> rows;
    if (per_row_) {
      const Result<size_t> row_lengths = input.IndexOf(StrCat(input.DisplayName(i), kRowLengthsSuffix));
      if (!row_lengths.ok()) {
        return InvalidArgumentError(context, " has no row lengths ", input.DisplayName(i), kRowLengthsSuffix,
                                    " to pad per row");
      }
      rows = *row_lengths;
    }
    PartialShape padded_shape{length_};
    if (rows.has_value()) {
      const ComponentSpec& lengths = input[*rows];
      if (lengths.dtype != DType::kInt64 || !lengths.shape.known_rank() || lengths.shape.rank() != 1) {
        return InvalidArgumentError(context, ": its row lengths ", input.DisplayName(*rows), " are ", lengths.dtype,
                                    lengths.shape, "; expected an int64 vector");
      }
      padded_shape = PartialShape{lengths.shape.dim(0), length_};
    }
    std::vector<ComponentSpec> components = input.components();
    components[i].shape = padded_shape;
    components.insert(components.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                      {StrCat(input.DisplayName(i), kMaskSuffix), DType::kInt64, padded_shape});
    ElementSpec output(std::move(components));
    SLUICE_RETURN_IF_ERROR(CheckDistinctNames(name_, output));
    auto apply = [name = name_, arity = input.size(), i, rows, length = length_, pad_value = pad_value_,
                  context](Element element) -> Result<Element> {
      SLUICE_RETURN_IF_ERROR(CheckComponentCount(name, arity, element));
      Result<PaddedValues> padded = rows.has_value()
                                        ? PadOrTruncateRows(element[i], element[*rows], length, pad_value)
                                        : PadOrTruncate(element[i], length, pad_value);
      if (!padded.ok()) return padded.status().WithContext(context);
      Element out;
      out.components.reserve(arity + 1);
      for (size_t c = 0; c < arity; ++c) {
        if (c != i) {
          out.components.push_back(std::move(element[c]));
          continue;
        }
        out.components.push_back(std::move(padded->values));
        out.components.push_back(std::move(padded->mask));
      }
      return out;
    };
    return BoundElementFunction{.output_spec = std::move(output), .apply = std::move(apply), .row_wise = false};
  }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::PadOrTruncate* node = out->mutable_pad_or_truncate();
    node->set_component(target_.component());
    node->set_length(length_);
    node->set_pad_value(pad_value_);
    node->set_per_row(per_row_);
    return OkStatus();
  }

 private:
  const ComponentTarget target_;
  const int64_t length_;
  const double pad_value_;
  const bool per_row_;
  const std::string name_;
};

}  // namespace

Result<ElementFunctionPtr> MakePadOrTruncateFunction(std::string component, int64_t length, double pad_value,
                                                     bool per_row) {
  if (length < 0 || length > kMaxPadLength) {
    return InvalidArgumentError("pad_or_truncate: length must be in [0, ", kMaxPadLength, "], got ", length);
  }
  if (!std::isfinite(pad_value)) return InvalidArgumentError("pad_or_truncate: pad_value must be finite");
  return ElementFunctionPtr(std::make_shared<PadOrTruncateFunction>(std::move(component), length, pad_value, per_row));
}

Result<ElementFunctionPtr> PadOrTruncateFunctionFromSpec(const spec::ElementFunction& fn) {
  const spec::PadOrTruncate& node = fn.pad_or_truncate();
  return MakePadOrTruncateFunction(node.component(), node.length(), node.pad_value(), node.per_row());
}

}  // namespace sluice
