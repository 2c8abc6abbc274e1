// FunctionArgs: the typed arguments a named function is made with
// (dataset/function_registry.h), as a spec's NamedFunction.args holds them:
// integers, floats, strings, booleans and rank-1 tensors (lists), by name.
// A function's factory reads them with the getters below, which say which
// argument is missing or has the wrong type, and rejects names it doesn't
// know with CheckKnown.
// Thread safety: a plain value; const methods may be called concurrently.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "sluice/core/tensor.h"

namespace sluice {

namespace spec {
class NamedFunction;
}  // namespace spec

class FunctionArgs {
 public:
  using Value = std::variant<int64_t, double, std::string, bool, Tensor>;

  FunctionArgs() = default;
  FunctionArgs(std::initializer_list<std::pair<const std::string, Value>> values) : values_(values) {}

  void Set(std::string name, Value value) { values_[std::move(name)] = std::move(value); }
  bool Has(std::string_view name) const { return values_.find(name) != values_.end(); }
  const std::map<std::string, Value, std::less<>>& values() const { return values_; }

  // The argument's value; InvalidArgument, naming `fn` and the argument, when
  // it is missing (the forms without a fallback) or of another type. Float
  // accepts an integer; a list is a rank-1 tensor.
  Result<int64_t> Int(std::string_view fn, std::string_view name) const;
  Result<int64_t> Int(std::string_view fn, std::string_view name, int64_t fallback) const;
  Result<double> Float(std::string_view fn, std::string_view name) const;
  Result<double> Float(std::string_view fn, std::string_view name, double fallback) const;
  Result<std::string> String(std::string_view fn, std::string_view name) const;
  Result<std::string> String(std::string_view fn, std::string_view name, std::string fallback) const;
  Result<bool> Bool(std::string_view fn, std::string_view name, bool fallback) const;
  Result<Tensor> List(std::string_view fn, std::string_view name) const;

  // InvalidArgument naming the first argument not in `known`, and listing
  // those that are.
  Status CheckKnown(std::string_view fn, const std::vector<std::string_view>& known) const;

  // For people: "lo=0, hi=1.5, mode='fast'", in name order.
  std::string DebugString() const;

  // Into and out of a spec's NamedFunction.args. FromSpec is InvalidArgument
  // when an argument has no value or an invalid list.
  void ToSpec(spec::NamedFunction* out) const;
  static Result<FunctionArgs> FromSpec(const spec::NamedFunction& named);

 private:
  std::map<std::string, Value, std::less<>> values_;
};

}  // namespace sluice
