#include "sluice/dataset/function_registry.h"

#include <algorithm>

#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/plugin.h"

namespace sluice {
namespace {

namespace pb = google::protobuf;

// A registered function or predicate (or a built-in used as one): `inner`
// made from `args`, written as named { name args }.
template <typename Interface, typename Bound, typename SpecMessage>
class Named final : public Interface {
 public:
  Named(std::string name, FunctionArgs args, std::shared_ptr<const Interface> inner)
      : name_(std::move(name)), args_(std::move(args)), inner_(std::move(inner)),
        display_name_(StrCat(name_, "(", args_.DebugString(), ")")) {}

  std::string name() const override { return display_name_; }
  Result<Bound> Bind(const ElementSpec& input) const override {
    Result<Bound> bound = inner_->Bind(input);
    if (!bound.ok()) return bound.status().WithContext(display_name_);
    return bound;
  }
  Status ToSpec(SpecMessage* out) const override {
    spec::NamedFunction* named = out->mutable_named();
    named->set_name(name_);
    args_.ToSpec(named);
    return OkStatus();
  }

 private:
  const std::string name_;
  const FunctionArgs args_;
  const std::shared_ptr<const Interface> inner_;
  const std::string display_name_;
};
using NamedElementFunction = Named<ElementFunction, BoundElementFunction, spec::ElementFunction>;
using NamedPredicate = Named<Predicate, BoundPredicate, spec::Predicate>;

// Keeps the elements for which `fn` returns a true bool scalar; written as
// the function's own named spec.
class FunctionPredicate final : public Predicate {
 public:
  explicit FunctionPredicate(ElementFunctionPtr fn) : fn_(std::move(fn)) {}

  std::string name() const override { return fn_->name(); }
  Result<BoundPredicate> Bind(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(BoundElementFunction bound, fn_->Bind(input));
    const ElementSpec& out = bound.output_spec;
    if (out.size() != 1 || out[0].dtype != DType::kBool || !(out[0].shape == PartialShape(Shape()))) {
      return InvalidArgumentError(fn_->name(), ": a predicate must return one bool scalar, but it returns ", out);
    }
    return BoundPredicate([name = fn_->name(), apply = std::move(bound.apply)](const Element& element) -> Result<bool> {
      SLUICE_ASSIGN_OR_RETURN(Element kept, apply(element));
      if (kept.size() != 1 || kept[0].dtype() != DType::kBool || kept[0].NumElements() != 1) {
        return InvalidArgumentError(name, ": a predicate must return one bool scalar");
      }
      return kept[0].scalar<bool>();
    });
  }
  Status ToSpec(spec::Predicate* out) const override {
    spec::ElementFunction fn;
    SLUICE_RETURN_IF_ERROR(fn_->ToSpec(&fn));
    if (!fn.has_named()) {
      return UnimplementedError(fn_->name(), ": only a named function can be written as a predicate");
    }
    *out->mutable_named() = fn.named();
    return OkStatus();
  }

 private:
  const ElementFunctionPtr fn_;
};

bool IsValidName(std::string_view name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// The built-in element functions: the message fields of spec
// ElementFunction's oneof, but `named` itself.
std::vector<std::string> BuiltinNames() {
  std::vector<std::string> names;
  const pb::OneofDescriptor* oneof = spec::ElementFunction::descriptor()->FindOneofByName("fn");
  for (int i = 0; i < oneof->field_count(); ++i) {
    const pb::FieldDescriptor* field = oneof->field(i);
    if (field->number() != spec::ElementFunction::kNamedFieldNumber &&
        field->type() == pb::FieldDescriptor::TYPE_MESSAGE) {
      names.push_back(field->name());
    }
  }
  return names;
}

const pb::FieldDescriptor* FindBuiltin(std::string_view name) {
  const pb::FieldDescriptor* field = spec::ElementFunction::descriptor()->FindFieldByName(std::string(name));
  if (field == nullptr || field->number() == spec::ElementFunction::kNamedFieldNumber ||
      field->containing_oneof() == nullptr || field->type() != pb::FieldDescriptor::TYPE_MESSAGE) {
    return nullptr;
  }
  return field;
}

std::string FieldNames(const pb::Descriptor* message) {
  std::string names;
  for (int i = 0; i < message->field_count(); ++i) names += StrCat(i > 0 ? ", " : "", message->field(i)->name());
  return names;
}

// Sets one scalar (or, for a repeated field, appends one value) of a
// built-in's message from an argument value.
Status SetField(pb::Message* message, const pb::FieldDescriptor* field, const FunctionArgs::Value& value,
                std::string_view where) {
  const pb::Reflection* r = message->GetReflection();
  const bool repeated = field->is_repeated();
  const int64_t* i = std::get_if<int64_t>(&value);
  const double* d = std::get_if<double>(&value);
  auto wrong = [&](std::string_view wanted) {
    return InvalidArgumentError(where, " must be ", wanted, " (field ", field->full_name(), ")");
  };
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
    case pb::FieldDescriptor::CPPTYPE_INT64:
    case pb::FieldDescriptor::CPPTYPE_UINT32:
    case pb::FieldDescriptor::CPPTYPE_UINT64: {
      if (i == nullptr) return wrong("an integer");
      const auto type = field->cpp_type();
      const bool is32 = type == pb::FieldDescriptor::CPPTYPE_INT32 || type == pb::FieldDescriptor::CPPTYPE_UINT32;
      const bool is_unsigned = type == pb::FieldDescriptor::CPPTYPE_UINT32 || type == pb::FieldDescriptor::CPPTYPE_UINT64;
      if ((is_unsigned && *i < 0) || (is32 && !is_unsigned && (*i < INT32_MIN || *i > INT32_MAX)) ||
          (is32 && is_unsigned && *i > int64_t{UINT32_MAX})) {
        return InvalidArgumentError(where, ": ", *i, " does not fit field ", field->full_name());
      }
      if (type == pb::FieldDescriptor::CPPTYPE_INT32) {
        repeated ? r->AddInt32(message, field, int32_t(*i)) : r->SetInt32(message, field, int32_t(*i));
      } else if (type == pb::FieldDescriptor::CPPTYPE_INT64) {
        repeated ? r->AddInt64(message, field, *i) : r->SetInt64(message, field, *i);
      } else if (type == pb::FieldDescriptor::CPPTYPE_UINT32) {
        repeated ? r->AddUInt32(message, field, uint32_t(*i)) : r->SetUInt32(message, field, uint32_t(*i));
      } else {
        repeated ? r->AddUInt64(message, field, uint64_t(*i)) : r->SetUInt64(message, field, uint64_t(*i));
      }
      return OkStatus();
    }
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
    case pb::FieldDescriptor::CPPTYPE_FLOAT: {
      if (i == nullptr && d == nullptr) return wrong("a number");
      const double v = d != nullptr ? *d : static_cast<double>(*i);
      if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_DOUBLE) {
        repeated ? r->AddDouble(message, field, v) : r->SetDouble(message, field, v);
      } else {
        repeated ? r->AddFloat(message, field, float(v)) : r->SetFloat(message, field, float(v));
      }
      return OkStatus();
    }
    case pb::FieldDescriptor::CPPTYPE_BOOL: {
      const bool* b = std::get_if<bool>(&value);
      if (b == nullptr) return wrong("a boolean");
      repeated ? r->AddBool(message, field, *b) : r->SetBool(message, field, *b);
      return OkStatus();
    }
    case pb::FieldDescriptor::CPPTYPE_STRING: {
      const std::string* s = std::get_if<std::string>(&value);
      if (s == nullptr) return wrong("a string");
      repeated ? r->AddString(message, field, *s) : r->SetString(message, field, *s);
      return OkStatus();
    }
    case pb::FieldDescriptor::CPPTYPE_ENUM: {
      const std::string* s = std::get_if<std::string>(&value);
      const pb::EnumValueDescriptor* e = s != nullptr ? field->enum_type()->FindValueByName(*s) : nullptr;
      if (e == nullptr) return wrong(StrCat("one of the names of ", field->enum_type()->full_name()));
      repeated ? r->AddEnum(message, field, e) : r->SetEnum(message, field, e);
      return OkStatus();
    }
    case pb::FieldDescriptor::CPPTYPE_MESSAGE: break;
  }
  return InvalidArgumentError(where, ": field ", field->full_name(),
                              " is a message, which named arguments cannot set; write the built-in's own field");
}

// The built-in `field` with its message's fields set from `args`.
Result<ElementFunctionPtr> MakeBuiltin(const pb::FieldDescriptor* field, const FunctionArgs& args) {
  spec::ElementFunction fn;
  pb::Message* message = fn.GetReflection()->MutableMessage(&fn, field);
  const pb::Descriptor* type = message->GetDescriptor();
  for (const auto& [name, value] : args.values()) {
    const pb::FieldDescriptor* f = type->FindFieldByName(name);
    const std::string where = StrCat(field->name(), ": argument '", name, "'");
    if (f == nullptr) {
      return InvalidArgumentError(field->name(), ": unknown argument '", name, "' (it takes ", FieldNames(type), ")");
    }
    if (const Tensor* list = std::get_if<Tensor>(&value)) {
      if (!f->is_repeated()) return InvalidArgumentError(where, " is a list, but field ", f->full_name(), " is not repeated");
      for (int64_t k = 0; k < list->NumElements(); ++k) {
        FunctionArgs::Value item;
        switch (list->dtype()) {
          case DType::kString: item = std::string(list->data<TString>()[k]); break;
          case DType::kFloat32: item = double(list->data<float>()[k]); break;
          case DType::kFloat64: item = list->data<double>()[k]; break;
          case DType::kInt32: item = int64_t(list->data<int32_t>()[k]); break;
          case DType::kInt64: item = list->data<int64_t>()[k]; break;
          case DType::kBool: item = list->data<bool>()[k]; break;
          default: return InvalidArgumentError(where, ": lists of ", list->dtype(), " are not accepted");
        }
        SLUICE_RETURN_IF_ERROR(SetField(message, f, item, where));
      }
    } else {
      SLUICE_RETURN_IF_ERROR(SetField(message, f, value, where));
    }
  }
  return ElementFunctionFromSpec(fn);
}

// The loaded plugin's function for "plugin.function"; *found is false (and
// the result null) when `name` has no '.' or no plugin of that name is loaded.
Result<ElementFunctionPtr> MakePluginFunction(const std::string& name, const FunctionArgs& args, bool* found) {
  *found = false;
  const size_t dot = name.find('.');
  if (dot == std::string::npos) return ElementFunctionPtr();
  PluginPtr plugin = FindLoadedPlugin(std::string_view(name).substr(0, dot));
  if (plugin == nullptr) return ElementFunctionPtr();
  *found = true;
  return plugin->MakeFunction(name.substr(dot + 1), args);
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

FunctionRegistry& FunctionRegistry::Global() {
  static FunctionRegistry* registry = new FunctionRegistry();  // never destroyed: plugins outlive main
  return *registry;
}

Status FunctionRegistry::RegisterElementFunction(const std::string& name, ElementFunctionFactory factory) {
  if (!IsValidName(name)) {
    return InvalidArgumentError("function name '", name, "' must be non-empty letters, digits and '_'");
  }
  if (FindBuiltin(name) != nullptr) return AlreadyExistsError("function '", name, "' is a built-in");
  std::lock_guard lock(mu_);
  if (!functions_.emplace(name, std::move(factory)).second) {
    return AlreadyExistsError("function '", name, "' is already registered");
  }
  return OkStatus();
}

Status FunctionRegistry::RegisterPredicate(const std::string& name, PredicateFactory factory) {
  if (!IsValidName(name)) {
    return InvalidArgumentError("predicate name '", name, "' must be non-empty letters, digits and '_'");
  }
  std::lock_guard lock(mu_);
  if (functions_.count(name) > 0 || FindBuiltin(name) != nullptr) {
    return AlreadyExistsError("predicate '", name, "' has the name of an element function");
  }
  if (!predicates_.emplace(name, std::move(factory)).second) {
    return AlreadyExistsError("predicate '", name, "' is already registered");
  }
  return OkStatus();
}

Result<ElementFunctionPtr> FunctionRegistry::MakeElementFunction(const std::string& name,
                                                                 const FunctionArgs& args) const {
  ElementFunctionFactory factory;
  {
    std::lock_guard lock(mu_);
    auto it = functions_.find(name);
    if (it != functions_.end()) factory = it->second;
  }
  if (factory) {
    Result<ElementFunctionPtr> fn = factory(args);
    if (!fn.ok()) return fn.status().WithContext(StrCat("function '", name, "'"));
    return ElementFunctionPtr(std::make_shared<NamedElementFunction>(name, args, *std::move(fn)));
  }
  if (const pb::FieldDescriptor* builtin = FindBuiltin(name)) return MakeBuiltin(builtin, args);
  bool found = false;
  Result<ElementFunctionPtr> plugin_fn = MakePluginFunction(name, args, &found);
  if (found) return plugin_fn;
  return NotFoundError("no element function is named '", name, "'", SuggestNames(name, ElementFunctionNames()));
}

Result<PredicatePtr> FunctionRegistry::MakePredicate(const std::string& name, const FunctionArgs& args) const {
  PredicateFactory factory;
  bool is_function = false;
  {
    std::lock_guard lock(mu_);
    auto it = predicates_.find(name);
    if (it != predicates_.end()) factory = it->second;
    is_function = functions_.count(name) > 0;
  }
  if (factory) {
    Result<PredicatePtr> predicate = factory(args);
    if (!predicate.ok()) return predicate.status().WithContext(StrCat("predicate '", name, "'"));
    return PredicatePtr(std::make_shared<NamedPredicate>(name, args, *std::move(predicate)));
  }
  if (is_function || FindBuiltin(name) != nullptr || name.find('.') != std::string::npos) {
    Result<ElementFunctionPtr> fn = MakeElementFunction(name, args);
    if (fn.ok()) {
      PredicatePtr predicate = std::make_shared<FunctionPredicate>(*std::move(fn));
      // A built-in writes its own message, which a predicate has no field for.
      if (!is_function && name.find('.') == std::string::npos) {
        predicate = std::make_shared<NamedPredicate>(name, args, std::move(predicate));
      }
      return predicate;
    }
    if (fn.status().code() != StatusCode::kNotFound || is_function) return fn.status();
  }
  return NotFoundError("no predicate is named '", name, "'", SuggestNames(name, PredicateNames()));
}

std::vector<std::string> FunctionRegistry::ElementFunctionNames() const {
  std::vector<std::string> names = BuiltinNames();
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, factory] : functions_) names.push_back(name);
  }
  for (const PluginPtr& plugin : LoadedPlugins()) {
    for (const std::string& fn : plugin->FunctionNames()) names.push_back(StrCat(plugin->name(), ".", fn));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> FunctionRegistry::PredicateNames() const {
  std::vector<std::string> names = ElementFunctionNames();
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, factory] : predicates_) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<ElementFunctionPtr> MakeNamedFunction(const std::string& name, const FunctionArgs& args) {
  return FunctionRegistry::Global().MakeElementFunction(name, args);
}

Result<PredicatePtr> MakeNamedPredicate(const std::string& name, const FunctionArgs& args) {
  return FunctionRegistry::Global().MakePredicate(name, args);
}

Result<ElementFunctionPtr> NamedFunctionFromSpec(const spec::NamedFunction& named) {
  SLUICE_ASSIGN_OR_RETURN(FunctionArgs args, FunctionArgs::FromSpec(named));
  if (!named.has_plugin()) return MakeNamedFunction(named.name(), args);
  SLUICE_ASSIGN_OR_RETURN(PluginPtr plugin, LoadPlugin(named.plugin()));
  return plugin->MakeFunction(named.name(), args);
}

Result<PredicatePtr> NamedPredicateFromSpec(const spec::NamedFunction& named) {
  SLUICE_ASSIGN_OR_RETURN(FunctionArgs args, FunctionArgs::FromSpec(named));
  if (!named.has_plugin()) return MakeNamedPredicate(named.name(), args);
  SLUICE_ASSIGN_OR_RETURN(PluginPtr plugin, LoadPlugin(named.plugin()));
  SLUICE_ASSIGN_OR_RETURN(ElementFunctionPtr fn, plugin->MakeFunction(named.name(), args));
  return PredicatePtr(std::make_shared<FunctionPredicate>(std::move(fn)));
}

std::string SuggestNames(std::string_view name, const std::vector<std::string>& names) {
  if (names.empty()) return " (none are registered)";
  std::vector<std::pair<size_t, std::string_view>> ranked;
  for (const std::string& candidate : names) ranked.emplace_back(EditDistance(name, candidate), candidate);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  // Close: two edits (a transposition), or a third of the name's letters.
  const size_t close = std::max<size_t>(2, name.size() / 3);
  for (size_t i = 0; i < ranked.size() && i < 3 && ranked[i].first <= close; ++i) {
    out += StrCat(out.empty() ? "; did you mean '" : "', '", ranked[i].second);
  }
  if (!out.empty()) out += "'?";
  std::string all;
  for (const std::string& candidate : names) all += StrCat(all.empty() ? "" : ", ", candidate);
  return StrCat(out, " (registered: ", all, ")");
}

}  // namespace sluice
