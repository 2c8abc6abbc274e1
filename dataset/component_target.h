// How the built-in functions and predicates (builtin_functions.h,
// compare_predicate.h, image_functions.h) address the components they change
// or read: by name, through ElementSpec::IndexOf, resolved to positions once
// in Bind; and TransformAt, the apply of a function that replaces components.
// Internal to their .cc files.
// Thread safety: immutable.
#pragma once

#include <functional>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/core/element.h"
#include "sluice/core/tensor.h"

namespace sluice {

// The components a function targets: the one named `component`, or with an
// empty name every component (kEvery) or the only one (kOnly).
class ComponentTarget {
 public:
  enum class WhenEmpty { kEvery, kOnly };

  ComponentTarget(std::string component, WhenEmpty when_empty)
      : component_(std::move(component)), when_empty_(when_empty) {}

  const std::string& component() const { return component_; }
  // "x -> " for a named component, "" otherwise: the start of a function's name.
  std::string Prefix(std::string_view arrow) const {
    return component_.empty() ? "" : StrCat(component_, arrow);
  }

  // Positions of the targeted components in `input`; errors start with `fn_name`.
  Result<std::vector<size_t>> Resolve(std::string_view fn_name, const ElementSpec& input) const {
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
    return std::vector<size_t>{*index};
  }

 private:
  const std::string component_;
  const WhenEmpty when_empty_;
};

// The position in `input` of the records `target` names for a parser: a
// string scalar (one record) or vector (a batch) of serialized `what`
// ("Examples"); errors start with `fn_name`.
inline Result<size_t> ResolveRecords(const ComponentTarget& target, std::string_view fn_name,
                                     const ElementSpec& input, std::string_view what) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target.Resolve(fn_name, input));
  const ComponentSpec& records = input[indices[0]];
  if (records.dtype != DType::kString || !records.shape.known_rank() || records.shape.rank() > 1) {
    return InvalidArgumentError(fn_name, ": component ", input.DisplayName(indices[0]), " must hold serialized ", what,
                                ", a string scalar or vector, but is ", records.dtype, records.shape);
  }
  return indices[0];
}

// A bound function is only given elements of the spec it was bound to; this
// guards the positions it resolved against an element of another arity.
inline Status CheckComponentCount(std::string_view fn_name, size_t expected,
                                  const Element& element) {
  if (element.size() == expected) return OkStatus();
  return InvalidArgumentError(fn_name, ": got an element of ", element.size(),
                              " components, but was bound to a spec of ", expected);
}

// An apply for elements of `input` that replaces the component at each of
// `indices` by kernel(component). `kernel` is copied into the closure, so it
// must capture by value. An error names the function and the component.
template <typename Kernel>
std::function<Result<Element>(Element)> TransformAt(std::string_view fn_name,
                                                   const ElementSpec& input,
                                                   const std::vector<size_t>& indices,
                                                   Kernel kernel) {
  struct Target {
    size_t index;
    std::string context;  // "cast(x -> float32): component x"
  };
  std::vector<Target> targets;
  for (size_t i : indices) {
    targets.push_back({i, StrCat(fn_name, ": component ", input.DisplayName(i))});
  }
  return [fn_name = std::string(fn_name), arity = input.size(), targets = std::move(targets),
          kernel = std::move(kernel)](Element element) -> Result<Element> {
    SLUICE_RETURN_IF_ERROR(CheckComponentCount(fn_name, arity, element));
    for (const Target& target : targets) {
      Result<Tensor> out = kernel(element[target.index]);
      if (!out.ok()) return out.status().WithContext(target.context);
      element[target.index] = *std::move(out);
    }
    return element;
  };
}

}  // namespace sluice
