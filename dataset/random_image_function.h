// The shape every random image function shares (image_functions.h):
// MakeRandomImageFunction wraps a kernel, kernel(component, the element's
// uniform stream), into an element function that replaces one component
// and draws from the seed map gives each element, or from (seed, an index
// component) with RandomSource::index_component; plus the helpers their
// names, specs and checks share.
// Thread safety: the functions made are immutable.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/dataset/functions.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/ops/affine_image.h"

namespace sluice {

namespace spec {
class ElementFunction;
}  // namespace spec

// What a random function makes of its component's spec (context added by
// the caller), and of the component, given the element's stream.
using RandomOutputSpecFn = std::function<Result<ComponentSpec>(const ElementSpec& input, size_t i)>;
using RandomKernelFn = std::function<Result<Tensor>(const Tensor&, const UniformStream&)>;
using WriteSpecFn = std::function<void(const std::string& component, spec::ElementFunction*)>;

// A function named `name` that replaces `component` by kernel(component,
// stream of the element). Not row-wise: each element draws its own numbers.
ElementFunctionPtr MakeRandomImageFunction(std::string component, std::string name, RandomSource random,
                                           RandomOutputSpecFn output_spec, RandomKernelFn kernel,
                                           WriteSpecFn write_spec);

// ", seed=S, index=C" for the parts of `random` that are set.
std::string RandomSuffix(const RandomSource& random);

template <typename Node>
RandomSource RandomSourceOf(const Node& node) {
  return RandomSource{.seed = node.has_seed() ? std::optional<uint64_t>(node.seed()) : std::nullopt,
                      .index_component = node.index_component()};
}

template <typename Node>
void WriteRandomSource(const RandomSource& random, Node* node) {
  if (random.seed) node->set_seed(*random.seed);
  node->set_index_component(random.index_component);
}

// The spec of a colour function's image (color_jitter, random_grayscale):
// uint8 or float32, 1 or 3 channels; unchanged.
Result<ComponentSpec> ColorImageSpec(const ElementSpec& input, size_t i);

// ", nearest, fill=[1, 2]": a warping function's interpolation and fill,
// for its name.
std::string WarpSuffix(const WarpOptions& warp);

// A warping function's interpolation and fill, written into its spec node
// and read back (InvalidArgument naming `fn` for an unknown interpolation;
// an empty one is nearest).
template <typename Node>
void WriteWarp(const WarpOptions& warp, Node* node) {
  node->set_interpolation(std::string(WarpInterpolationName(warp.interpolation)));
  for (const float v : warp.fill) node->add_fill(v);
}
template <typename Node>
Result<WarpOptions> WarpOf(std::string_view fn, const Node& node) {
  WarpOptions warp{.fill = std::vector<float>(node.fill().begin(), node.fill().end())};
  if (!node.interpolation().empty()) {
    Result<WarpInterpolation> parsed = ParseWarpInterpolation(node.interpolation());
    if (!parsed.ok()) return parsed.status().WithContext(fn);
    warp.interpolation = *parsed;
  }
  return warp;
}

// The spec of a uint8 or float32 image of any channel count; unchanged.
Result<ComponentSpec> Uint8OrFloatImageSpec(const ElementSpec& input, size_t i);

// The spec of a uint8 image of 1 or 3 channels (the automatic augmentation
// policies', equalize's); unchanged.
Result<ComponentSpec> Uint8ColorImageSpec(const ElementSpec& input, size_t i);

// InvalidArgument naming `fn` unless probability is in [0, 1].
Status CheckProbability(std::string_view fn, double probability);

// InvalidArgument naming `fn` unless max_value is positive and finite and
// probability in [0, 1].
Status CheckMaxValueAndProbability(std::string_view fn, float max_value, double probability);

}  // namespace sluice
