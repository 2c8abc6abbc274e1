#include "dataset/builtin_functions.h"

#include <atomic>
#include <mutex>
#include <numeric>
#include <set>

#include "dataset/pipeline_spec.pb.h"
#include "ops/cast.h"
#include "ops/one_hot.h"
#include "ops/scale_shift.h"

namespace sluice {
namespace {

std::string JoinInts(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += StrCat(i > 0 ? ", " : "", values[i]);
  return out + "]";
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i > 0 ? ", " : "") + names[i];
  return out;
}

// The component indices a function's names resolved to, kept for Apply (see
// "Binding" in the header). Written once under mu_, then read without a lock.
class Binding {
 public:
  Status Bind(const std::string& fn_name, std::vector<size_t> indices) {
    std::lock_guard<std::mutex> lock(mu_);
    if (bound_.load(std::memory_order_relaxed)) {
      if (indices == indices_) return OkStatus();
      return FailedPreconditionError(
          fn_name, ": this function object was first used where its components are at positions ",
          Positions(indices_), " and is now used where they are at ", Positions(indices),
          "; make a separate function for each use");
    }
    indices_ = std::move(indices);
    bound_.store(true, std::memory_order_release);
    return OkStatus();
  }

  Result<const std::vector<size_t>*> Get(const std::string& fn_name) const {
    if (!bound_.load(std::memory_order_acquire)) {
      return FailedPreconditionError(fn_name,
                                     ": Apply called before OutputSpec resolved the "
                                     "component names (build the map or filter first)");
    }
    return &indices_;
  }

 private:
  static std::string Positions(const std::vector<size_t>& indices) {
    return JoinInts(std::vector<int64_t>(indices.begin(), indices.end()));
  }

  std::mutex mu_;
  std::vector<size_t> indices_;
  std::atomic<bool> bound_{false};
};

// The components a function changes or reads: the one named `component`, or
// with an empty name every component (kEvery) or the only one (kOnly).
class Target {
 public:
  enum class WhenEmpty { kEvery, kOnly };

  Target(std::string component, WhenEmpty when_empty)
      : component_(std::move(component)), when_empty_(when_empty) {}

  const std::string& component() const { return component_; }
  // "x -> " for a named component, "" otherwise: the start of a function's name.
  std::string Prefix(std::string_view arrow) const {
    return component_.empty() ? "" : StrCat(component_, arrow);
  }

  // Indices of the targeted components of `input`; binds a name's index.
  Result<std::vector<size_t>> Resolve(const std::string& fn_name, const ElementSpec& input) const {
    if (component_.empty()) {
      if (when_empty_ == WhenEmpty::kOnly && input.size() != 1) {
        return InvalidArgumentError(fn_name, ": no component named and the element has ",
                                    input.size(), " components ", input,
                                    "; name the component to use");
      }
      std::vector<size_t> all(input.size());
      std::iota(all.begin(), all.end(), size_t{0});
      return all;
    }
    Result<size_t> index = input.IndexOf(component_);
    if (!index.ok()) return index.status().WithContext(fn_name);
    SLUICE_RETURN_IF_ERROR(binding_.Bind(fn_name, {*index}));
    return std::vector<size_t>{*index};
  }

  // Calls visit(i) for each targeted component i of `element`.
  template <typename Visit>
  Status ForEach(const std::string& fn_name, const Element& element, Visit&& visit) const {
    if (component_.empty()) {
      if (when_empty_ == WhenEmpty::kOnly && element.size() != 1) {
        return InvalidArgumentError(fn_name, ": expected an element of one component, got ",
                                    element.size());
      }
      for (size_t i = 0; i < element.size(); ++i) SLUICE_RETURN_IF_ERROR(visit(i));
      return OkStatus();
    }
    SLUICE_ASSIGN_OR_RETURN(const std::vector<size_t>* indices, binding_.Get(fn_name));
    const size_t index = indices->front();
    if (index >= element.size()) {
      return InvalidArgumentError(fn_name, ": component '", component_, "' is at position ", index,
                                  " but the element has ", element.size(), " components");
    }
    return visit(index);
  }

  // Replaces each targeted component t of `element` by kernel(t).
  template <typename Kernel>
  Status Transform(const std::string& fn_name, Element& element, Kernel&& kernel) const {
    return ForEach(fn_name, element, [&](size_t i) -> Status {
      Result<Tensor> out = kernel(element[i]);
      if (!out.ok()) return out.status().WithContext(StrCat(fn_name, ": component ", i));
      element[i] = *std::move(out);
      return OkStatus();
    });
  }

 private:
  const std::string component_;
  const WhenEmpty when_empty_;
  mutable Binding binding_;
};

class CastFunction final : public ElementFunction {
 public:
  CastFunction(std::string component, DType dtype)
      : target_(std::move(component), Target::WhenEmpty::kEvery),
        dtype_(dtype),
        name_(StrCat("cast(", target_.Prefix(" -> "), dtype, ")")) {}

  std::string name() const override { return name_; }
  Result<ElementSpec> OutputSpec(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    std::vector<ComponentSpec> out = input.components();
    for (size_t i : indices) {
      if ((out[i].dtype == DType::kString) != (dtype_ == DType::kString)) {
        return InvalidArgumentError(name_, ": component ", input.DisplayName(i), " has dtype ",
                                    out[i].dtype, ", which cannot be cast to ", dtype_,
                                    " (strings cast only to string)");
      }
      out[i].dtype = dtype_;
    }
    return ElementSpec(std::move(out));
  }
  Result<Element> Apply(Element element) const override {
    SLUICE_RETURN_IF_ERROR(target_.Transform(name_, element, [&](const Tensor& t) {
      return t.dtype() == dtype_ ? Result<Tensor>(t) : Cast(t, dtype_);
    }));
    return element;
  }
  bool row_wise() const override { return true; }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::Cast* cast = out->mutable_cast();
    cast->set_component(target_.component());
    cast->set_dtype(std::string(DTypeName(dtype_)));
    return OkStatus();
  }

 private:
  const Target target_;
  const DType dtype_;
  const std::string name_;
};

class ScaleShiftFunction final : public ElementFunction {
 public:
  ScaleShiftFunction(std::string component, double scale, double shift)
      : target_(std::move(component), Target::WhenEmpty::kEvery),
        scale_(scale),
        shift_(shift),
        name_(StrCat("scale_shift(", target_.Prefix(", "), "scale=", scale, ", shift=", shift,
                     ")")) {}

  std::string name() const override { return name_; }
  Result<ElementSpec> OutputSpec(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    std::vector<ComponentSpec> out = input.components();
    for (size_t i : indices) {
      if (out[i].dtype == DType::kString) {
        return InvalidArgumentError(name_, ": component ", input.DisplayName(i),
                                    " has dtype string; scale_shift needs a numeric component");
      }
      out[i].dtype = ScaleShiftOutputDType(out[i].dtype);
    }
    return ElementSpec(std::move(out));
  }
  Result<Element> Apply(Element element) const override {
    SLUICE_RETURN_IF_ERROR(target_.Transform(
        name_, element, [&](const Tensor& t) { return ScaleShift(t, scale_, shift_); }));
    return element;
  }
  bool row_wise() const override { return true; }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::ScaleShift* scale_shift = out->mutable_scale_shift();
    scale_shift->set_component(target_.component());
    scale_shift->set_scale(scale_);
    scale_shift->set_shift(shift_);
    return OkStatus();
  }

 private:
  const Target target_;
  const double scale_;
  const double shift_;
  const std::string name_;
};

class ReshapeFunction final : public ElementFunction {
 public:
  ReshapeFunction(std::string component, std::vector<int64_t> shape)
      : target_(std::move(component), Target::WhenEmpty::kOnly),
        shape_(std::move(shape)),
        name_(StrCat("reshape(", target_.Prefix(" -> "), JoinInts(shape_), ")")) {}

  std::string name() const override { return name_; }
  Result<ElementSpec> OutputSpec(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    const size_t i = indices.front();
    std::vector<ComponentSpec> out = input.components();
    if (out[i].shape.IsFullyDefined()) {
      Result<Shape> shape = TargetShape(out[i].shape.ToShape());
      if (!shape.ok()) {
        return shape.status().WithContext(StrCat(name_, ": component ", input.DisplayName(i)));
      }
      out[i].shape = *shape;
    } else {
      out[i].shape = PartialShape(shape_);  // -1 stays unknown
    }
    return ElementSpec(std::move(out));
  }
  Result<Element> Apply(Element element) const override {
    SLUICE_RETURN_IF_ERROR(
        target_.Transform(name_, element, [&](const Tensor& t) -> Result<Tensor> {
          SLUICE_ASSIGN_OR_RETURN(const Shape shape, TargetShape(t.shape()));
          return t.Reshaped(shape);
        }));
    return element;
  }
  bool row_wise() const override { return false; }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::Reshape* reshape = out->mutable_reshape();
    reshape->set_component(target_.component());
    for (int64_t d : shape_) reshape->add_shape(d);
    return OkStatus();
  }

 private:
  // The target shape for an input of shape `in`, with the -1 filled in.
  Result<Shape> TargetShape(const Shape& in) const {
    std::vector<int64_t> dims = shape_;
    int64_t known = 1;  // cannot overflow: the factory checked the product
    auto unknown = dims.end();
    for (auto d = dims.begin(); d != dims.end(); ++d) {
      if (*d == -1) {
        unknown = d;
      } else {
        known *= *d;
      }
    }
    const int64_t n = in.NumElements();
    const bool fits = unknown == dims.end() ? known == n : known != 0 && n % known == 0;
    if (!fits) {
      return InvalidArgumentError("cannot reshape a tensor of shape ", in, " (", n,
                                  " elements) to ", JoinInts(shape_));
    }
    if (unknown != dims.end()) *unknown = n / known;
    return Shape(dims);
  }

  const Target target_;
  const std::vector<int64_t> shape_;
  const std::string name_;
};

class OneHotFunction final : public ElementFunction {
 public:
  OneHotFunction(std::string component, int64_t depth, DType dtype)
      : target_(std::move(component), Target::WhenEmpty::kOnly),
        depth_(depth),
        dtype_(dtype),
        name_(StrCat("one_hot(", target_.Prefix(", "), "depth=", depth, ", ", dtype, ")")) {}

  std::string name() const override { return name_; }
  Result<ElementSpec> OutputSpec(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    const size_t i = indices.front();
    std::vector<ComponentSpec> out = input.components();
    if (!IsInteger(out[i].dtype)) {
      return InvalidArgumentError(name_, ": component ", input.DisplayName(i), " has dtype ",
                                  out[i].dtype, "; one_hot needs uint8, int32 or int64 indices");
    }
    if (out[i].shape.rank() >= kMaxRank) {
      return InvalidArgumentError(name_, ": component ", input.DisplayName(i), " has shape ",
                                  out[i].shape, "; one_hot would exceed the maximum rank ",
                                  kMaxRank);
    }
    out[i].dtype = dtype_;
    if (out[i].shape.known_rank()) {
      std::vector<int64_t> dims(out[i].shape.dims().begin(), out[i].shape.dims().end());
      dims.push_back(depth_);
      out[i].shape = PartialShape(dims);
    }
    return ElementSpec(std::move(out));
  }
  Result<Element> Apply(Element element) const override {
    SLUICE_RETURN_IF_ERROR(target_.Transform(
        name_, element, [&](const Tensor& t) { return OneHot(t, depth_, dtype_); }));
    return element;
  }
  bool row_wise() const override { return true; }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::OneHot* one_hot = out->mutable_one_hot();
    one_hot->set_component(target_.component());
    one_hot->set_depth(depth_);
    one_hot->set_dtype(std::string(DTypeName(dtype_)));
    return OkStatus();
  }

 private:
  const Target target_;
  const int64_t depth_;
  const DType dtype_;
  const std::string name_;
};

class SelectFunction final : public ElementFunction {
 public:
  explicit SelectFunction(std::vector<std::string> components)
      : components_(std::move(components)), name_(StrCat("select(", JoinNames(components_), ")")) {}

  std::string name() const override { return name_; }
  Result<ElementSpec> OutputSpec(const ElementSpec& input) const override {
    std::vector<size_t> indices;
    std::vector<ComponentSpec> out;
    for (const std::string& component : components_) {
      Result<size_t> index = input.IndexOf(component);
      if (!index.ok()) return index.status().WithContext(name_);
      indices.push_back(*index);
      out.push_back(input[*index]);
    }
    SLUICE_RETURN_IF_ERROR(binding_.Bind(name_, std::move(indices)));
    return ElementSpec(std::move(out));
  }
  Result<Element> Apply(Element element) const override {
    SLUICE_ASSIGN_OR_RETURN(const std::vector<size_t>* indices, binding_.Get(name_));
    Element out;
    out.components.reserve(indices->size());
    for (size_t i : *indices) {
      if (i >= element.size()) {
        return InvalidArgumentError(name_, ": needs component position ", i,
                                    " but the element has ", element.size(), " components");
      }
      out.components.push_back(std::move(element[i]));
    }
    return out;
  }
  bool row_wise() const override { return true; }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::Select* select = out->mutable_select();
    for (const std::string& component : components_) select->add_components(component);
    return OkStatus();
  }

 private:
  const std::vector<std::string> components_;
  const std::string name_;
  mutable Binding binding_;
};

class RenameFunction final : public ElementFunction {
 public:
  explicit RenameFunction(std::vector<std::string> names)
      : names_(std::move(names)), name_(StrCat("rename(", JoinNames(names_), ")")) {}

  std::string name() const override { return name_; }
  Result<ElementSpec> OutputSpec(const ElementSpec& input) const override {
    if (input.size() != names_.size()) {
      return InvalidArgumentError(name_, ": got ", names_.size(), " names for ", input.size(),
                                  " components ", input);
    }
    std::vector<ComponentSpec> out = input.components();
    for (size_t i = 0; i < out.size(); ++i) out[i].name = names_[i];
    return ElementSpec(std::move(out));
  }
  // Names live in the spec only: the tensors are unchanged.
  Result<Element> Apply(Element element) const override { return element; }
  bool row_wise() const override { return true; }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::Rename* rename = out->mutable_rename();
    for (const std::string& name : names_) rename->add_names(name);
    return OkStatus();
  }

 private:
  const std::vector<std::string> names_;
  const std::string name_;
};

std::string_view ComparisonSymbol(Comparison comparison) {
  switch (comparison) {
    case Comparison::kEqual: return "==";
    case Comparison::kNotEqual: return "!=";
    case Comparison::kLess: return "<";
    case Comparison::kLessEqual: return "<=";
    case Comparison::kGreater: return ">";
    case Comparison::kGreaterEqual: return ">=";
  }
  return "?";
}

class ComparePredicate final : public Predicate {
 public:
  ComparePredicate(std::string component, Comparison comparison, double value)
      : target_(std::move(component), Target::WhenEmpty::kOnly),
        comparison_(comparison),
        value_(value),
        name_(StrCat("compare(", target_.Prefix(" "), ComparisonSymbol(comparison), " ", value,
                     ")")) {}

  std::string name() const override { return name_; }
  Status CheckSpec(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    const size_t i = indices.front();
    if (input[i].dtype == DType::kString) {
      return InvalidArgumentError(name_, ": component ", input.DisplayName(i),
                                  " has dtype string; compare needs a numeric scalar");
    }
    if (input[i].shape.rank() != 0) {
      return InvalidArgumentError(name_, ": component ", input.DisplayName(i), " has shape ",
                                  input[i].shape, "; compare needs a scalar");
    }
    return OkStatus();
  }
  Result<bool> Apply(const Element& element) const override {
    bool result = false;
    SLUICE_RETURN_IF_ERROR(target_.ForEach(name_, element, [&](size_t i) -> Status {
      const Tensor& t = element[i];
      if (t.dtype() == DType::kString || t.rank() != 0) {
        return InvalidArgumentError(name_, ": component ", i, " is ", t.dtype(), t.shape(),
                                    ", not a numeric scalar");
      }
      const double x = VisitNumericDType(
          t.dtype(), [&](auto zero) { return ConvertValue<double>(t.scalar<decltype(zero)>()); });
      result = Compare(x);
      return OkStatus();
    }));
    return result;
  }
  Status ToSpec(spec::Predicate* out) const override {
    out->set_component(target_.component());
    out->set_comparison(static_cast<spec::Predicate::Comparison>(comparison_));
    out->set_value(value_);
    return OkStatus();
  }

 private:
  bool Compare(double x) const {
    switch (comparison_) {
      case Comparison::kEqual: return x == value_;
      case Comparison::kNotEqual: return x != value_;
      case Comparison::kLess: return x < value_;
      case Comparison::kLessEqual: return x <= value_;
      case Comparison::kGreater: return x > value_;
      case Comparison::kGreaterEqual: return x >= value_;
    }
    return false;
  }

  const Target target_;
  const Comparison comparison_;
  const double value_;
  const std::string name_;
};

// The spec enum and Comparison list the same comparisons in the same order.
static_assert(static_cast<int>(Comparison::kEqual) == spec::Predicate::EQUAL &&
              static_cast<int>(Comparison::kGreaterEqual) == spec::Predicate::GREATER_EQUAL);

// Checks a list of component names: non-empty, each non-empty, no repeats.
Status CheckNames(std::string_view fn, const std::vector<std::string>& names) {
  if (names.empty()) return InvalidArgumentError(fn, ": at least one component name is required");
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (name.empty()) return InvalidArgumentError(fn, ": component names must not be empty");
    if (!seen.insert(name).second) {
      return InvalidArgumentError(fn, ": component '", name, "' is listed twice");
    }
  }
  return OkStatus();
}

Result<DType> ParseDTypeField(std::string_view fn, const std::string& dtype) {
  Result<DType> parsed = ParseDType(dtype);
  if (!parsed.ok()) return parsed.status().WithContext(StrCat(fn, ": dtype"));
  return parsed;
}

}  // namespace

Result<ElementFunctionPtr> MakeCastFunction(std::string component, DType dtype) {
  return ElementFunctionPtr(std::make_shared<CastFunction>(std::move(component), dtype));
}

Result<ElementFunctionPtr> MakeScaleShiftFunction(std::string component, double scale,
                                                  double shift) {
  return ElementFunctionPtr(
      std::make_shared<ScaleShiftFunction>(std::move(component), scale, shift));
}

Result<ElementFunctionPtr> MakeReshapeFunction(std::string component, std::vector<int64_t> shape) {
  if (shape.size() > static_cast<size_t>(kMaxRank)) {
    return InvalidArgumentError("reshape: shape ", JoinInts(shape), " has rank ", shape.size(),
                                ", above the maximum rank ", kMaxRank);
  }
  int unknown = 0;
  int64_t known = 1;
  for (int64_t d : shape) {
    if (d == -1) {
      ++unknown;
    } else if (d < 0) {
      return InvalidArgumentError("reshape: shape ", JoinInts(shape),
                                  " has a negative dimension other than -1");
    } else if (__builtin_mul_overflow(known, d, &known)) {
      return InvalidArgumentError("reshape: shape ", JoinInts(shape), " has too many elements");
    }
  }
  if (unknown > 1) {
    return InvalidArgumentError("reshape: shape ", JoinInts(shape),
                                " has more than one -1 dimension");
  }
  return ElementFunctionPtr(
      std::make_shared<ReshapeFunction>(std::move(component), std::move(shape)));
}

Result<ElementFunctionPtr> MakeOneHotFunction(std::string component, int64_t depth, DType dtype) {
  if (depth <= 0) return InvalidArgumentError("one_hot: depth must be > 0, got ", depth);
  if (dtype == DType::kString) {
    return InvalidArgumentError("one_hot: dtype must be numeric, got string");
  }
  return ElementFunctionPtr(std::make_shared<OneHotFunction>(std::move(component), depth, dtype));
}

Result<ElementFunctionPtr> MakeSelectFunction(std::vector<std::string> components) {
  SLUICE_RETURN_IF_ERROR(CheckNames("select", components));
  return ElementFunctionPtr(std::make_shared<SelectFunction>(std::move(components)));
}

Result<ElementFunctionPtr> MakeRenameFunction(std::vector<std::string> new_names) {
  SLUICE_RETURN_IF_ERROR(CheckNames("rename", new_names));
  return ElementFunctionPtr(std::make_shared<RenameFunction>(std::move(new_names)));
}

Result<PredicatePtr> MakeComparePredicate(std::string component, Comparison comparison,
                                          double value) {
  if (comparison < Comparison::kEqual || comparison > Comparison::kGreaterEqual) {
    return InvalidArgumentError("compare: unknown comparison ", static_cast<int>(comparison));
  }
  return PredicatePtr(std::make_shared<ComparePredicate>(std::move(component), comparison, value));
}

Result<ElementFunctionPtr> ElementFunctionFromSpec(const spec::ElementFunction& fn) {
  switch (fn.fn_case()) {
    case spec::ElementFunction::kCast: {
      SLUICE_ASSIGN_OR_RETURN(DType dtype, ParseDTypeField("cast", fn.cast().dtype()));
      return MakeCastFunction(fn.cast().component(), dtype);
    }
    case spec::ElementFunction::kScaleShift:
      return MakeScaleShiftFunction(fn.scale_shift().component(), fn.scale_shift().scale(),
                                    fn.scale_shift().shift());
    case spec::ElementFunction::kReshape:
      return MakeReshapeFunction(
          fn.reshape().component(),
          std::vector<int64_t>(fn.reshape().shape().begin(), fn.reshape().shape().end()));
    case spec::ElementFunction::kOneHot: {
      const std::string& name = fn.one_hot().dtype();
      SLUICE_ASSIGN_OR_RETURN(DType dtype,
                              ParseDTypeField("one_hot", name.empty() ? "float32" : name));
      return MakeOneHotFunction(fn.one_hot().component(), fn.one_hot().depth(), dtype);
    }
    case spec::ElementFunction::kSelect:
      return MakeSelectFunction(std::vector<std::string>(fn.select().components().begin(),
                                                         fn.select().components().end()));
    case spec::ElementFunction::kRename:
      return MakeRenameFunction(
          std::vector<std::string>(fn.rename().names().begin(), fn.rename().names().end()));
    case spec::ElementFunction::FN_NOT_SET: break;
  }
  return InvalidArgumentError(
      "element function has no function set (expected one of cast, "
      "scale_shift, reshape, one_hot, select, rename)");
}

Result<PredicatePtr> PredicateFromSpec(const spec::Predicate& predicate) {
  return MakeComparePredicate(predicate.component(),
                              static_cast<Comparison>(predicate.comparison()), predicate.value());
}

}  // namespace sluice
