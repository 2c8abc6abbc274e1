#include "sluice/dataset/random_image_function.h"

#include <cmath>
#include <utility>

#include "sluice/dataset/component_target.h"
#include "sluice/dataset/image_spec.h"

namespace sluice {
namespace {

// MakeRandomImageFunction's function: binds to the seed map's draws, or to
// an index component's.
class RandomImageFunction final : public ElementFunction {
 public:
  RandomImageFunction(std::string component, std::string name, RandomSource random,
                      RandomOutputSpecFn output_spec, RandomKernelFn kernel, WriteSpecFn write_spec)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kOnly),
        name_(std::move(name)),
        random_(std::move(random)),
        output_spec_(std::move(output_spec)),
        kernel_(std::move(kernel)),
        write_spec_(std::move(write_spec)) {}

  std::string name() const override { return name_; }
  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    if (random_.index_component.empty()) return BindSeeded(input);
    Result<size_t> index = input.IndexOf(random_.index_component);
    if (!index.ok()) return index.status().WithContext(StrCat(name_, ": the element index"));
    const ComponentSpec& index_spec = input[*index];
    if (index_spec.dtype != DType::kInt64 || !index_spec.shape.IsCompatibleWith(Shape{})) {
      return InvalidArgumentError(name_, ": the element index ", input.DisplayName(*index), " is ",
                                  index_spec.dtype, index_spec.shape, "; expected an int64 scalar");
    }
    SLUICE_ASSIGN_OR_RETURN(const size_t i, ResolveTarget(input, *index));
    SLUICE_ASSIGN_OR_RETURN(ElementSpec output_spec, OutputSpec(input, i));
    auto apply = [name = name_, arity = input.size(), i, index = *index, context = Context(input, i),
                  seed = random_.seed.value_or(0), kernel = kernel_](Element element) -> Result<Element> {
      SLUICE_RETURN_IF_ERROR(CheckComponentCount(name, arity, element));
      const Tensor& position = element[index];
      if (position.dtype() != DType::kInt64 || position.NumElements() != 1) {
        return InvalidArgumentError(name, ": the element index is ", position.dtype(), position.shape(),
                                    "; expected an int64 scalar");
      }
      Result<Tensor> out = kernel(element[i], ElementStream(seed, position.scalar<int64_t>()));
      if (!out.ok()) {
        return NameFailedElement(out.status().WithContext(context), element[i], position.scalar<int64_t>());
      }
      element[i] = *std::move(out);
      return element;
    };
    return BoundElementFunction{.output_spec = std::move(output_spec), .apply = std::move(apply), .row_wise = false};
  }
  Status ToSpec(spec::ElementFunction* out) const override {
    write_spec_(target_.component(), out);
    return OkStatus();
  }

 private:
  // Without an index component: draws from the seed map gives each element.
  Result<BoundElementFunction> BindSeeded(const ElementSpec& input) const {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    const size_t i = indices.front();
    SLUICE_ASSIGN_OR_RETURN(ElementSpec output_spec, OutputSpec(input, i));
    auto apply_seeded = [name = name_, arity = input.size(), i, index = ElementIndexPosition(input),
                         context = Context(input, i),
                         kernel = kernel_](Element element, uint64_t element_seed) -> Result<Element> {
      SLUICE_RETURN_IF_ERROR(CheckComponentCount(name, arity, element));
      Result<Tensor> out = kernel(element[i], SeededStream(element_seed));
      if (!out.ok()) {
        return NameFailedElement(out.status().WithContext(context), element[i], ElementIndex(element, index));
      }
      element[i] = *std::move(out);
      return element;
    };
    auto apply = [name = name_](Element) -> Result<Element> {
      return FailedPreconditionError(name, ": draws from the seed map gives each element; outside map, set "
                                           "index_component");
    };
    return BoundElementFunction{.output_spec = std::move(output_spec),
                                .apply = std::move(apply),
                                .row_wise = false,
                                .apply_seeded = std::move(apply_seeded),
                                .seed = random_.seed};
  }
  std::string Context(const ElementSpec& input, size_t i) const {
    return StrCat(name_, ": component ", input.DisplayName(i));
  }
  // The input spec with component i replaced by the function's output.
  Result<ElementSpec> OutputSpec(const ElementSpec& input, size_t i) const {
    Result<ComponentSpec> out = output_spec_(input, i);
    if (!out.ok()) return InvalidArgumentError(Context(input, i), " ", out.status().message());
    std::vector<ComponentSpec> components = input.components();
    components[i] = *std::move(out);
    return ElementSpec(std::move(components));
  }
  // The targeted component: the named one, or with no name the only one
  // other than the index.
  Result<size_t> ResolveTarget(const ElementSpec& input, size_t index) const {
    if (!target_.component().empty()) {
      SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
      return indices.front();
    }
    if (input.size() != 2) {
      return InvalidArgumentError(name_, ": no component named and the element has ", input.size(),
                                  " components ", input, "; name the image component");
    }
    return index == 0 ? 1 : 0;
  }

  const ComponentTarget target_;
  const std::string name_;
  const RandomSource random_;
  const RandomOutputSpecFn output_spec_;
  const RandomKernelFn kernel_;
  const WriteSpecFn write_spec_;
};

}  // namespace

ElementFunctionPtr MakeRandomImageFunction(std::string component, std::string name, RandomSource random,
                                           RandomOutputSpecFn output_spec, RandomKernelFn kernel,
                                           WriteSpecFn write_spec) {
  return std::make_shared<RandomImageFunction>(std::move(component), std::move(name), std::move(random),
                                               std::move(output_spec), std::move(kernel), std::move(write_spec));
}

std::string RandomSuffix(const RandomSource& random) {
  return StrCat(random.seed ? StrCat(", seed=", *random.seed) : std::string(),
                random.index_component.empty() ? "" : StrCat(", index=", random.index_component));
}

std::string WarpSuffix(const WarpOptions& warp) {
  std::string fill;
  for (const float v : warp.fill) fill += StrCat(fill.empty() ? "" : ", ", v);
  return StrCat(", ", WarpInterpolationName(warp.interpolation),
                warp.fill.empty() ? "" : StrCat(", fill=[", fill, "]"));
}

Result<ComponentSpec> ColorImageSpec(const ElementSpec& input, size_t i) {
  SLUICE_ASSIGN_OR_RETURN(const ImageSpec image, ImageSpecOf(input[i]));
  const int64_t channels = image.dims[image.h + 2];
  if ((input[i].dtype != DType::kUInt8 && input[i].dtype != DType::kFloat32) ||
      (channels != -1 && channels != 1 && channels != 3)) {
    return InvalidArgumentError("is ", input[i].dtype, input[i].shape,
                                "; expected a uint8 or float32 image of 1 or 3 channels");
  }
  return input[i];
}

Result<ComponentSpec> Uint8OrFloatImageSpec(const ElementSpec& input, size_t i) {
  SLUICE_RETURN_IF_ERROR(ImageSpecOf(input[i]).status());
  if (input[i].dtype != DType::kUInt8 && input[i].dtype != DType::kFloat32) {
    return InvalidArgumentError("is ", input[i].dtype, input[i].shape, "; expected a uint8 or float32 image");
  }
  return input[i];
}

Result<ComponentSpec> Uint8ColorImageSpec(const ElementSpec& input, size_t i) {
  SLUICE_ASSIGN_OR_RETURN(const ImageSpec image, ImageSpecOf(input[i]));
  const int64_t channels = image.dims[image.h + 2];
  if (input[i].dtype != DType::kUInt8 || (channels != -1 && channels != 1 && channels != 3)) {
    return InvalidArgumentError("is ", input[i].dtype, input[i].shape, "; expected a uint8 image of 1 or 3 channels");
  }
  return input[i];
}

Status CheckProbability(std::string_view fn, double probability) {
  if (!(probability >= 0 && probability <= 1)) {
    return InvalidArgumentError(fn, ": probability must be in [0, 1], got ", probability);
  }
  return OkStatus();
}

Status CheckMaxValueAndProbability(std::string_view fn, float max_value, double probability) {
  if (!(max_value > 0) || !std::isfinite(max_value)) {
    return InvalidArgumentError(fn, ": max_value must be positive and finite, got ", max_value);
  }
  return CheckProbability(fn, probability);
}

}  // namespace sluice
