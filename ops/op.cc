#include "sluice/ops/op.h"

#include <sstream>

namespace sluice {

OpAttrs::OpAttrs(std::initializer_list<std::pair<std::string_view, AttrValue>> values) {
  values_.reserve(values.size());
  for (const auto& [name, value] : values) values_.emplace_back(std::string(name), value);
}

OpAttrs& OpAttrs::Set(std::string_view name, AttrValue value) {
  for (auto& [existing, stored] : values_) {
    if (existing == name) {
      stored = std::move(value);
      return *this;
    }
  }
  values_.emplace_back(std::string(name), std::move(value));
  return *this;
}

const AttrValue* OpAttrs::Find(std::string_view name) const {
  for (const auto& [existing, value] : values_) {
    if (existing == name) return &value;
  }
  return nullptr;
}

const AttrValue& OpAttrs::Get(std::string_view name) const {
  const AttrValue* value = Find(name);
  SLUICE_CHECK(value != nullptr) << "op attr " << name << " is not set";
  return *value;
}

std::string OpAttrs::DebugString() const {
  std::ostringstream out;
  for (size_t i = 0; i < values_.size(); ++i) {
    if (i > 0) out << ", ";
    out << values_[i].first << "=";
    std::visit(
        [&](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            out << "[";
            for (size_t j = 0; j < value.size(); ++j) out << (j > 0 ? ", " : "") << value[j];
            out << "]";
          } else if constexpr (std::is_same_v<T, bool>) {
            out << (value ? "true" : "false");
          } else {
            out << value;
          }
        },
        values_[i].second);
  }
  return out.str();
}

}  // namespace sluice
