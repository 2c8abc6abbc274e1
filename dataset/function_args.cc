#include "sluice/dataset/function_args.h"

#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/tensor_proto.h"

namespace sluice {
namespace {

std::string_view KindName(const FunctionArgs::Value& value) {
  switch (value.index()) {
    case 0: return "an integer";
    case 1: return "a float";
    case 2: return "a string";
    case 3: return "a boolean";
    default: return "a list";
  }
}

template <typename T>
Result<T> Get(const FunctionArgs& args, std::string_view fn, std::string_view name, std::string_view wanted) {
  auto it = args.values().find(name);
  if (it == args.values().end()) {
    return InvalidArgumentError(fn, ": argument '", name, "' is required (", wanted, ")");
  }
  if constexpr (std::is_same_v<T, double>) {
    if (const int64_t* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  }
  if (const T* value = std::get_if<T>(&it->second)) return *value;
  return InvalidArgumentError(fn, ": argument '", name, "' must be ", wanted, ", got ", KindName(it->second));
}

template <typename T>
Result<T> GetOr(const FunctionArgs& args, std::string_view fn, std::string_view name, std::string_view wanted,
                T fallback) {
  if (!args.Has(name)) return fallback;
  return Get<T>(args, fn, name, wanted);
}

}  // namespace

Result<int64_t> FunctionArgs::Int(std::string_view fn, std::string_view name) const {
  return Get<int64_t>(*this, fn, name, "an integer");
}
Result<int64_t> FunctionArgs::Int(std::string_view fn, std::string_view name, int64_t fallback) const {
  return GetOr<int64_t>(*this, fn, name, "an integer", fallback);
}
Result<double> FunctionArgs::Float(std::string_view fn, std::string_view name) const {
  return Get<double>(*this, fn, name, "a float");
}
Result<double> FunctionArgs::Float(std::string_view fn, std::string_view name, double fallback) const {
  return GetOr<double>(*this, fn, name, "a float", fallback);
}
Result<std::string> FunctionArgs::String(std::string_view fn, std::string_view name) const {
  return Get<std::string>(*this, fn, name, "a string");
}
Result<std::string> FunctionArgs::String(std::string_view fn, std::string_view name, std::string fallback) const {
  return GetOr<std::string>(*this, fn, name, "a string", std::move(fallback));
}
Result<bool> FunctionArgs::Bool(std::string_view fn, std::string_view name, bool fallback) const {
  return GetOr<bool>(*this, fn, name, "a boolean", fallback);
}
Result<Tensor> FunctionArgs::List(std::string_view fn, std::string_view name) const {
  return Get<Tensor>(*this, fn, name, "a list");
}

Status FunctionArgs::CheckKnown(std::string_view fn, const std::vector<std::string_view>& known) const {
  for (const auto& [name, value] : values_) {
    bool found = false;
    for (std::string_view k : known) found = found || k == name;
    if (found) continue;
    std::string names;
    for (std::string_view k : known) names += StrCat(names.empty() ? "" : ", ", k);
    return InvalidArgumentError(fn, ": unknown argument '", name, "' (", known.empty() ? "it takes none" : "it takes ",
                                names, ")");
  }
  return OkStatus();
}

std::string FunctionArgs::DebugString() const {
  std::string out;
  for (const auto& [name, value] : values_) {
    out += StrCat(out.empty() ? "" : ", ", name, "=");
    switch (value.index()) {
      case 0: out += StrCat(std::get<int64_t>(value)); break;
      case 1: out += StrCat(std::get<double>(value)); break;
      case 2: out += StrCat("'", std::get<std::string>(value), "'"); break;
      case 3: out += std::get<bool>(value) ? "true" : "false"; break;
      default: out += std::get<Tensor>(value).DebugString(8); break;
    }
  }
  return out;
}

void FunctionArgs::ToSpec(spec::NamedFunction* out) const {
  for (const auto& [name, value] : values_) {
    spec::FunctionArgumentEntry& entry = *out->add_args();
    entry.set_key(name);
    spec::FunctionArgument& arg = *entry.mutable_value();
    switch (value.index()) {
      case 0: arg.set_int_value(std::get<int64_t>(value)); break;
      case 1: arg.set_float_value(std::get<double>(value)); break;
      case 2: arg.set_string_value(std::get<std::string>(value)); break;
      case 3: arg.set_bool_value(std::get<bool>(value)); break;
      default: TensorToProto(std::get<Tensor>(value), arg.mutable_list_value()); break;
    }
  }
}

Result<FunctionArgs> FunctionArgs::FromSpec(const spec::NamedFunction& named) {
  FunctionArgs args;
  for (const spec::FunctionArgumentEntry& entry : named.args()) {
    const std::string& name = entry.key();
    const spec::FunctionArgument& arg = entry.value();
    if (args.Has(name)) return InvalidArgumentError(named.name(), ": argument '", name, "' is given twice");
    switch (arg.value_case()) {
      case spec::FunctionArgument::kIntValue: args.Set(name, arg.int_value()); break;
      case spec::FunctionArgument::kFloatValue: args.Set(name, arg.float_value()); break;
      case spec::FunctionArgument::kStringValue: args.Set(name, arg.string_value()); break;
      case spec::FunctionArgument::kBoolValue: args.Set(name, arg.bool_value()); break;
      case spec::FunctionArgument::kListValue: {
        Result<Tensor> list = TensorFromProto(arg.list_value());
        if (!list.ok()) return list.status().WithContext(StrCat(named.name(), ": argument '", name, "'"));
        if (list->rank() != 1) {
          return InvalidArgumentError(named.name(), ": argument '", name, "' must be a list (rank 1), got shape ",
                                      list->shape());
        }
        args.Set(name, *std::move(list));
        break;
      }
      case spec::FunctionArgument::VALUE_NOT_SET:
        return InvalidArgumentError(named.name(), ": argument '", name, "' has no value");
    }
  }
  return args;
}

}  // namespace sluice
