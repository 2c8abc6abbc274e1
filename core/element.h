// Element: one dataset element, a small vector of Tensors (its components).
// ElementSpec: per component an optional name ("features", "labels"), a dtype
// and a PartialShape; known when a graph is built, so most type and shape
// errors surface before the first element flows.
// Thread safety: plain values.
#pragma once

#include <string>
#include <vector>

#include "sluice/core/component_vector.h"
#include "sluice/core/tensor.h"

namespace sluice {

struct Element {
  // Held inline up to two, relocated when moved (core/component_vector.h).
  using Components = ComponentVector;
  Components components;

  // User-provided, so that a value-initialized element (Element(), or one
  // made in place in an optional or a Result) is not zero-filled first: its
  // 248 bytes of inline slots need no zeros.
  Element() noexcept {}
  Element(std::initializer_list<Tensor> tensors) : components(tensors) {}
  explicit Element(const std::vector<Tensor>& tensors) : components(tensors.begin(), tensors.end()) {}

  size_t size() const { return components.size(); }
  Tensor& operator[](size_t i) { return components[i]; }
  const Tensor& operator[](size_t i) const { return components[i]; }
  bool Equals(const Element& other) const;
  // Bytes held by the components (a string counts as its slot, not its text).
  size_t NumBytes() const;
  std::string DebugString() const;  // "(int64[] 3, float32[2] [1, 2])"
};

struct ComponentSpec {
  std::string name;  // empty for a positional component
  DType dtype = DType::kFloat32;
  PartialShape shape;

  friend bool operator==(const ComponentSpec&, const ComponentSpec&) = default;
};

class ElementSpec {
 public:
  ElementSpec() = default;
  ElementSpec(std::initializer_list<ComponentSpec> components) : components_(components) {}
  explicit ElementSpec(std::vector<ComponentSpec> components) : components_(std::move(components)) {}
  // The exact spec of a concrete element (positional names).
  static ElementSpec Of(const Element& element);

  size_t size() const { return components_.size(); }
  const ComponentSpec& operator[](size_t i) const { return components_[i]; }
  const std::vector<ComponentSpec>& components() const { return components_; }
  // The name to show for component i: its name, or its index.
  std::string DisplayName(size_t i) const;
  // Index of the component called `name` (or "0", "1", ... for positions).
  Result<size_t> IndexOf(const std::string& name) const;

  // OK when `element` has this many components with these dtypes and
  // compatible shapes; otherwise InvalidArgument naming the component.
  // With is_run, each component has an extra leading dimension (a run of
  // elements) that the check skips.
  Status Check(const Element& element, bool is_run = false) const;
  // InvalidArgument naming `op` and the component when a component of known
  // rank has kMaxRank dims, so that no leading (batch) dim fits.
  Status CheckRoomForLeadingDim(std::string_view op) const;
  // Whether every component has a known rank below kMaxRank: its elements
  // can be passed as runs (a leading dim of rows added).
  bool AllowsRuns() const;
  // True when every component could match (same names, dtypes, compatible shapes).
  bool IsCompatibleWith(const ElementSpec& other) const;

  // "(x: float32[?, 32], y: int64[])"
  std::string ToString() const;
  friend bool operator==(const ElementSpec&, const ElementSpec&) = default;

 private:
  std::vector<ComponentSpec> components_;
};

// The element with each component passed through Tensor::Unpinned: what
// ops that hold elements for long (shuffle's buffer, cache) keep, so that a
// held record doesn't keep a whole read chunk alive.
Element Unpinned(Element element);

// One JSON object per element, components by name: {"x": [1, 2], "y": 3};
// names, strings and non-finite floats as core/json.h writes them.
std::string ElementToJson(const ElementSpec& spec, const Element& element);

std::ostream& operator<<(std::ostream& out, const ElementSpec& spec);
std::ostream& operator<<(std::ostream& out, const Element& element);

}  // namespace sluice
