#include "sluice/core/element.h"

#include <algorithm>

#include "sluice/core/json.h"

namespace sluice {

bool Element::Equals(const Element& other) const {
  if (size() != other.size()) return false;
  for (size_t i = 0; i < size(); ++i) {
    if (!components[i].Equals(other.components[i])) return false;
  }
  return true;
}

size_t Element::NumBytes() const {
  size_t bytes = 0;
  for (const Tensor& t : components) bytes += t.NumBytes();
  return bytes;
}

std::string Element::DebugString() const {
  std::string out = "(";
  for (size_t i = 0; i < size(); ++i) {
    if (i > 0) out += ", ";
    out += components[i].DebugString(8);
  }
  return out + ")";
}

ElementSpec ElementSpec::Of(const Element& element) {
  std::vector<ComponentSpec> components;
  for (const Tensor& t : element.components) components.push_back({"", t.dtype(), t.shape()});
  return ElementSpec(std::move(components));
}

std::string ElementSpec::DisplayName(size_t i) const {
  return components_[i].name.empty() ? std::to_string(i) : components_[i].name;
}

Result<size_t> ElementSpec::IndexOf(const std::string& name) const {
  for (size_t i = 0; i < size(); ++i) {
    if (DisplayName(i) == name) return i;
  }
  return InvalidArgumentError("no component named '", name, "' in element spec ", ToString());
}

Status ElementSpec::CheckRoomForLeadingDim(std::string_view op) const {
  for (size_t i = 0; i < components_.size(); ++i) {
    if (components_[i].shape.rank() >= kMaxRank) {
      return InvalidArgumentError(op, ": component ", i, " has shape ", components_[i].shape, " of rank ",
                                  components_[i].shape.rank(), "; batching adds a dimension, and at most ",
                                  kMaxRank - 1, " leaves room for it");
    }
  }
  return OkStatus();
}

bool ElementSpec::AllowsRuns() const {
  return std::all_of(components_.begin(), components_.end(), [](const ComponentSpec& c) {
    return c.shape.known_rank() && c.shape.rank() < kMaxRank;
  });
}

Status ElementSpec::Check(const Element& element, bool is_run) const {
  if (element.size() != size()) {
    return InvalidArgumentError("expected ", size(), " components ", ToString(), " but got ",
                                element.size());
  }
  for (size_t i = 0; i < size(); ++i) {
    const Tensor& t = element[i];
    if (t.dtype() != components_[i].dtype) {
      return InvalidArgumentError("component ", DisplayName(i), " has dtype ", t.dtype(),
                                  " but the spec says ", components_[i].dtype);
    }
    const auto dims = is_run ? t.shape().dims().subspan(1) : t.shape().dims();
    if (!components_[i].shape.IsCompatibleWith(dims)) {
      return InvalidArgumentError("component ", DisplayName(i), " has shape ", Shape(dims),
                                  " but the spec says ", components_[i].shape);
    }
  }
  return OkStatus();
}

bool ElementSpec::IsCompatibleWith(const ElementSpec& other) const {
  if (size() != other.size()) return false;
  for (size_t i = 0; i < size(); ++i) {
    const ComponentSpec& a = components_[i];
    const ComponentSpec& b = other.components_[i];
    if (a.name != b.name || a.dtype != b.dtype || !a.shape.IsCompatibleWith(b.shape)) return false;
  }
  return true;
}

std::string ElementSpec::ToString() const {
  std::string out = "(";
  for (size_t i = 0; i < size(); ++i) {
    if (i > 0) out += ", ";
    if (!components_[i].name.empty()) out += components_[i].name + ": ";
    out += StrCat(DTypeName(components_[i].dtype), components_[i].shape.ToString());
  }
  return out + ")";
}

Element Unpinned(Element element) {
  for (Tensor& t : element.components) t = t.Unpinned();
  return element;
}

std::string ElementToJson(const ElementSpec& spec, const Element& element) {
  std::string out = "{";
  for (size_t i = 0; i < element.size(); ++i) {
    if (i > 0) out += ", ";
    AppendJsonString(out, i < spec.size() ? spec.DisplayName(i) : std::to_string(i));
    out += ": ";
    out += element[i].ToJson();
  }
  return out + "}";
}

std::ostream& operator<<(std::ostream& out, const ElementSpec& spec) { return out << spec.ToString(); }
std::ostream& operator<<(std::ostream& out, const Element& element) {
  return out << element.DebugString();
}

}  // namespace sluice
