#include "sluice/dataset/builtin_functions.h"

#include <set>

#include "sluice/dataset/auto_augment_functions.h"
#include "sluice/dataset/component_target.h"
#include "sluice/dataset/expression_functions.h"
#include "sluice/dataset/function_registry.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/parse_example.h"
#include "sluice/dataset/parse_sequence_example.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/random_adjust_functions.h"
#include "sluice/dataset/text_functions.h"
#include "sluice/ops/cast.h"
#include "sluice/ops/decode_raw.h"
#include "sluice/ops/one_hot.h"
#include "sluice/ops/scale_shift.h"

namespace sluice {
namespace {

using ApplyFn = std::function<Result<Element>(Element)>;

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

class CastFunction final : public ElementFunction {
 public:
  CastFunction(std::string component, DType dtype)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kEvery),
        dtype_(dtype),
        name_(StrCat("cast(", target_.Prefix(" -> "), dtype, ")")) {}

  std::string name() const override { return name_; }
  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
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
    return BoundElementFunction{
        .output_spec = ElementSpec(std::move(out)),
        .apply = TransformAt(name_, input, indices,
                             [dtype = dtype_](const Tensor& t) {
                               return t.dtype() == dtype ? Result<Tensor>(t) : Cast(t, dtype);
                             }),
        .row_wise = true};
  }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::Cast* cast = out->mutable_cast();
    cast->set_component(target_.component());
    cast->set_dtype(std::string(DTypeName(dtype_)));
    return OkStatus();
  }

 private:
  const ComponentTarget target_;
  const DType dtype_;
  const std::string name_;
};

class ScaleShiftFunction final : public ElementFunction {
 public:
  ScaleShiftFunction(std::string component, double scale, double shift)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kEvery),
        scale_(scale),
        shift_(shift),
        name_(StrCat("scale_shift(", target_.Prefix(", "), "scale=", scale, ", shift=", shift,
                     ")")) {}

  std::string name() const override { return name_; }
  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    std::vector<ComponentSpec> out = input.components();
    for (size_t i : indices) {
      if (out[i].dtype == DType::kString) {
        return InvalidArgumentError(name_, ": component ", input.DisplayName(i),
                                    " has dtype string; scale_shift needs a numeric component");
      }
      out[i].dtype = ScaleShiftOutputDType(out[i].dtype);
    }
    return BoundElementFunction{
        .output_spec = ElementSpec(std::move(out)),
        .apply = TransformAt(name_, input, indices,
                             [scale = scale_, shift = shift_](const Tensor& t) {
                               return ScaleShift(t, scale, shift);
                             }),
        .row_wise = true};
  }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::ScaleShift* scale_shift = out->mutable_scale_shift();
    scale_shift->set_component(target_.component());
    scale_shift->set_scale(scale_);
    scale_shift->set_shift(shift_);
    return OkStatus();
  }

 private:
  const ComponentTarget target_;
  const double scale_;
  const double shift_;
  const std::string name_;
};

class DecodeRawFunction final : public ElementFunction {
 public:
  DecodeRawFunction(std::string component, DecodeRawOptions options)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kOnly),
        options_(options),
        name_(StrCat("decode_raw(", target_.Prefix(" -> "), options.dtype,
                     options.little_endian ? "" : ", big_endian",
                     options.fixed_length > 0 ? StrCat(", fixed_length=", options.fixed_length) : "", ")")) {}

  std::string name() const override { return name_; }
  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    const size_t i = indices.front();
    std::vector<ComponentSpec> out = input.components();
    if (out[i].dtype != DType::kString) {
      return InvalidArgumentError(name_, ": component ", input.DisplayName(i), " has dtype ", out[i].dtype,
                                  "; decode_raw needs strings");
    }
    if (out[i].shape.known_rank()) {
      if (out[i].shape.rank() >= kMaxRank) {
        return InvalidArgumentError(name_, ": component ", input.DisplayName(i), " has rank ", out[i].shape.rank(),
                                    ", the maximum: no dim can be added");
      }
      const int64_t size = static_cast<int64_t>(DTypeSize(options_.dtype));
      std::vector<int64_t> dims(out[i].shape.dims().begin(), out[i].shape.dims().end());
      dims.push_back(options_.fixed_length > 0 ? options_.fixed_length / size : kUnknownDim);
      out[i].shape = PartialShape(dims);
    }
    out[i].dtype = options_.dtype;
    return BoundElementFunction{
        .output_spec = ElementSpec(std::move(out)),
        .apply = TransformAt(name_, input, indices,
                             [options = options_](const Tensor& t) { return DecodeRaw(t, options); }),
        // Without fixed_length the rows of a run would have to share one length.
        .row_wise = options_.fixed_length > 0};
  }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::DecodeRaw* decode = out->mutable_decode_raw();
    decode->set_component(target_.component());
    decode->set_dtype(std::string(DTypeName(options_.dtype)));
    if (!options_.little_endian) decode->set_little_endian(false);
    decode->set_fixed_length(options_.fixed_length);
    return OkStatus();
  }

 private:
  const ComponentTarget target_;
  const DecodeRawOptions options_;
  const std::string name_;
};

// `shape` (at most one -1, checked by the factory) for an input of shape
// `in`, with the -1 filled in.
Result<Shape> ReshapeTarget(const std::vector<int64_t>& shape, const Shape& in) {
  std::vector<int64_t> dims = shape;
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
    return InvalidArgumentError("cannot reshape a tensor of shape ", in, " (", n, " elements) to ",
                                JoinInts(shape));
  }
  if (unknown != dims.end()) *unknown = n / known;
  return Shape(dims);
}

class ReshapeFunction final : public ElementFunction {
 public:
  ReshapeFunction(std::string component, std::vector<int64_t> shape)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kOnly),
        shape_(std::move(shape)),
        name_(StrCat("reshape(", target_.Prefix(" -> "), JoinInts(shape_), ")")) {}

  std::string name() const override { return name_; }
  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    const size_t i = indices.front();
    std::vector<ComponentSpec> out = input.components();
    if (out[i].shape.IsFullyDefined()) {
      Result<Shape> shape = ReshapeTarget(shape_, out[i].shape.ToShape());
      if (!shape.ok()) {
        return shape.status().WithContext(StrCat(name_, ": component ", input.DisplayName(i)));
      }
      out[i].shape = *shape;
    } else {
      out[i].shape = PartialShape(shape_);  // -1 stays unknown
    }
    return BoundElementFunction{
        .output_spec = ElementSpec(std::move(out)),
        .apply = TransformAt(name_, input, indices,
                             [shape = shape_](const Tensor& t) -> Result<Tensor> {
                               SLUICE_ASSIGN_OR_RETURN(const Shape target,
                                                       ReshapeTarget(shape, t.shape()));
                               return t.Reshaped(target);
                             }),
        .row_wise = false};  // it sees one element: a run has another element count
  }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::Reshape* reshape = out->mutable_reshape();
    reshape->set_component(target_.component());
    for (int64_t d : shape_) reshape->add_shape(d);
    return OkStatus();
  }

 private:
  const ComponentTarget target_;
  const std::vector<int64_t> shape_;
  const std::string name_;
};

class OneHotFunction final : public ElementFunction {
 public:
  OneHotFunction(std::string component, int64_t depth, DType dtype)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kOnly),
        depth_(depth),
        dtype_(dtype),
        name_(StrCat("one_hot(", target_.Prefix(", "), "depth=", depth, ", ", dtype, ")")) {}

  std::string name() const override { return name_; }
  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
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
    if (out[i].shape.IsFullyDefined()) {
      Result<int64_t> bytes = CheckedNumBytes(dtype_, out[i].shape.ToShape());
      if (!bytes.ok()) return bytes.status().WithContext(StrCat(name_, ": component ", input.DisplayName(i)));
    }
    return BoundElementFunction{
        .output_spec = ElementSpec(std::move(out)),
        .apply = TransformAt(
            name_, input, indices,
            [depth = depth_, dtype = dtype_](const Tensor& t) { return OneHot(t, depth, dtype); }),
        .row_wise = true};
  }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::OneHot* one_hot = out->mutable_one_hot();
    one_hot->set_component(target_.component());
    one_hot->set_depth(depth_);
    one_hot->set_dtype(std::string(DTypeName(dtype_)));
    return OkStatus();
  }

 private:
  const ComponentTarget target_;
  const int64_t depth_;
  const DType dtype_;
  const std::string name_;
};

class SelectFunction final : public ElementFunction {
 public:
  explicit SelectFunction(std::vector<std::string> components)
      : components_(std::move(components)), name_(StrCat("select(", JoinNames(components_), ")")) {}

  std::string name() const override { return name_; }
  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    std::vector<size_t> indices;
    std::vector<ComponentSpec> out;
    for (const std::string& component : components_) {
      Result<size_t> index = input.IndexOf(component);
      if (!index.ok()) return index.status().WithContext(name_);
      indices.push_back(*index);
      out.push_back(input[*index]);
    }
    ApplyFn apply = [name = name_, arity = input.size(),
                     indices = std::move(indices)](Element element) -> Result<Element> {
      SLUICE_RETURN_IF_ERROR(CheckComponentCount(name, arity, element));
      Element selected;
      selected.components.reserve(indices.size());
      for (size_t i : indices) selected.components.push_back(std::move(element[i]));
      return selected;
    };
    return BoundElementFunction{
        .output_spec = ElementSpec(std::move(out)), .apply = std::move(apply), .row_wise = true};
  }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::Select* select = out->mutable_select();
    for (const std::string& component : components_) select->add_components(component);
    return OkStatus();
  }

 private:
  const std::vector<std::string> components_;
  const std::string name_;
};

class RenameFunction final : public ElementFunction {
 public:
  explicit RenameFunction(std::vector<std::string> names)
      : names_(std::move(names)), name_(StrCat("rename(", JoinNames(names_), ")")) {}

  std::string name() const override { return name_; }
  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    if (input.size() != names_.size()) {
      return InvalidArgumentError(name_, ": got ", names_.size(), " names for ", input.size(),
                                  " components ", input);
    }
    std::vector<ComponentSpec> out = input.components();
    for (size_t i = 0; i < out.size(); ++i) out[i].name = names_[i];
    // Names live in the spec only: the tensors are unchanged.
    return BoundElementFunction{.output_spec = ElementSpec(std::move(out)),
                                .apply = [](Element element) -> Result<Element> { return element; },
                                .row_wise = true};
  }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::Rename* rename = out->mutable_rename();
    for (const std::string& name : names_) rename->add_names(name);
    return OkStatus();
  }

 private:
  const std::vector<std::string> names_;
  const std::string name_;
};

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

Result<ElementFunctionPtr> MakeDecodeRawFunction(std::string component, DecodeRawOptions options) {
  SLUICE_RETURN_IF_ERROR(CheckDecodeRawOptions(options));
  return ElementFunctionPtr(std::make_shared<DecodeRawFunction>(std::move(component), options));
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
    case spec::ElementFunction::kDecodeRaw: {
      SLUICE_ASSIGN_OR_RETURN(DType dtype, ParseDTypeField("decode_raw", fn.decode_raw().dtype()));
      return MakeDecodeRawFunction(fn.decode_raw().component(),
                                   {.dtype = dtype,
                                    .little_endian = !fn.decode_raw().has_little_endian() ||
                                                     fn.decode_raw().little_endian(),
                                    .fixed_length = fn.decode_raw().fixed_length()});
    }
    case spec::ElementFunction::kParseExample: return ParseExampleFunctionFromSpec(fn.parse_example());
    case spec::ElementFunction::kParseSequenceExample:
      return ParseSequenceExampleFunctionFromSpec(fn.parse_sequence_example());
    case spec::ElementFunction::kDecodeJpeg:
    case spec::ElementFunction::kDecodePng:
    case spec::ElementFunction::kDecodeImage: return ImageDecodeFunctionFromSpec(fn);
    case spec::ElementFunction::kResize:
    case spec::ElementFunction::kCenterCrop:
    case spec::ElementFunction::kCropMirrorNormalize: return ImageTransformFunctionFromSpec(fn);
    case spec::ElementFunction::kRandomFlip:
    case spec::ElementFunction::kDecodeJpegRandomCrop:
    case spec::ElementFunction::kColorJitter:
    case spec::ElementFunction::kRandomGrayscale: return ImageRandomFunctionFromSpec(fn);
    case spec::ElementFunction::kRandomCrop:
    case spec::ElementFunction::kGaussianBlur:
    case spec::ElementFunction::kRandomSolarize:
    case spec::ElementFunction::kRandomErasing: return ImageAugmentFunctionFromSpec(fn);
    case spec::ElementFunction::kAutoAugment:
    case spec::ElementFunction::kAugmix:
    case spec::ElementFunction::kRandAugment:
    case spec::ElementFunction::kTrivialAugmentWide: return AutoAugmentFunctionFromSpec(fn);
    case spec::ElementFunction::kRandomPosterize:
    case spec::ElementFunction::kRandomEqualize:
    case spec::ElementFunction::kRandomAutocontrast:
    case spec::ElementFunction::kRandomAdjustSharpness:
    case spec::ElementFunction::kRandomInvert: return RandomAdjustFunctionFromSpec(fn);
    case spec::ElementFunction::kRandomAffine:
    case spec::ElementFunction::kRandomRotation: return RandomAffineFunctionFromSpec(fn);
    case spec::ElementFunction::kMixup: return MixupFunctionFromSpec(fn.mixup());
    case spec::ElementFunction::kToHashBucketFast:
    case spec::ElementFunction::kLookup:
    case spec::ElementFunction::kLower:
    case spec::ElementFunction::kNormalize:
    case spec::ElementFunction::kRegexReplace: return TextElementwiseFunctionFromSpec(fn);
    case spec::ElementFunction::kSplitWhitespace:
    case spec::ElementFunction::kRegexSplit:
    case spec::ElementFunction::kWordpiece: return TextSplitFunctionFromSpec(fn);
    case spec::ElementFunction::kPadOrTruncate: return PadOrTruncateFunctionFromSpec(fn);
    case spec::ElementFunction::kNamed: return NamedFunctionFromSpec(fn.named());
    case spec::ElementFunction::kExpression: return ExpressionFunctionFromSpec(fn.expression());
    case spec::ElementFunction::FN_NOT_SET: break;
  }
  return InvalidArgumentError(
      "element function has no function set (expected one of cast, "
      "scale_shift, reshape, one_hot, select, rename)");
}

}  // namespace sluice
