#include "sluice/dataset/plugin.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/plugin_abi.h"

namespace sluice {
namespace {

namespace fs = std::filesystem;

static_assert(SLUICE_DTYPE_BOOL == int(DType::kBool) && SLUICE_DTYPE_UINT8 == int(DType::kUInt8) &&
              SLUICE_DTYPE_INT32 == int(DType::kInt32) && SLUICE_DTYPE_INT64 == int(DType::kInt64) &&
              SLUICE_DTYPE_FLOAT16 == int(DType::kFloat16) && SLUICE_DTYPE_BFLOAT16 == int(DType::kBFloat16) &&
              SLUICE_DTYPE_FLOAT32 == int(DType::kFloat32) && SLUICE_DTYPE_FLOAT64 == int(DType::kFloat64) &&
              SLUICE_DTYPE_STRING == int(DType::kString));
static_assert(SLUICE_PLUGIN_MAX_RANK == kMaxRank);

// The most functions one plugin may declare: a description, not data.
constexpr int32_t kMaxPluginFunctions = 4096;

// A plugin's error message, NUL-terminated whatever the plugin wrote.
std::string MessageOf(SluiceError& error) {
  error.message[sizeof(error.message) - 1] = '\0';
  return error.message[0] != '\0' ? std::string(error.message) : "failed without a message";
}

// One made function: its callbacks and the state create returned.
// The minor ABI version a plugin was built for (plugin_abi.h).
uint32_t MinorVersion(const SluicePluginInfo& info) { return info.abi_version >> 16; }

struct FunctionState {
  const SluiceFunction* const def;
  void* const state;
  const std::string where;  // "plugin 'example' (/path) function 'clip_and_scale'"
  const bool random;        // SLUICE_FUNCTION_RANDOM
  ~FunctionState() {
    if (def->destroy != nullptr) def->destroy(state);
  }
  FunctionState(const SluiceFunction* def, void* state, std::string where, bool random)
      : def(def), state(state), where(std::move(where)), random(random) {}
  FunctionState(const FunctionState&) = delete;
  FunctionState& operator=(const FunctionState&) = delete;
};

SluiceTensorSpec ToCSpec(const ComponentSpec& component) {
  SluiceTensorSpec out{};
  out.dtype = int32_t(component.dtype);
  out.rank = component.shape.rank();
  for (int i = 0; i < out.rank; ++i) out.dims[i] = component.shape.dim(i);
  out.name = component.name.c_str();
  return out;
}

Result<PartialShape> ShapeFromC(const SluiceTensorSpec& spec, std::string_view what) {
  if (spec.rank == -1) return PartialShape::UnknownRank();
  if (spec.rank < 0 || spec.rank > kMaxRank) {
    return InvalidArgumentError(what, " has rank ", spec.rank, " (expected -1 to ", kMaxRank, ")");
  }
  for (int i = 0; i < spec.rank; ++i) {
    if (spec.dims[i] < -1) return InvalidArgumentError(what, " has dimension ", i, " of size ", spec.dims[i]);
  }
  return PartialShape(std::span<const int64_t>(spec.dims, size_t(spec.rank)));
}

Result<DType> DTypeFromC(int32_t dtype, std::string_view what) {
  if (dtype < SLUICE_DTYPE_BOOL || dtype > SLUICE_DTYPE_STRING) {
    return InvalidArgumentError(what, " has dtype ", dtype, ", which is not a SLUICE_DTYPE_ value");
  }
  return DType(dtype);
}

// The context of host->set_string: the outputs of one compute call.
struct OutputContext {
  std::vector<Tensor>* outputs;
};

int32_t SetString(void* context, int32_t output, uint64_t index, const char* data, uint64_t size) {
  std::vector<Tensor>& outputs = *static_cast<OutputContext*>(context)->outputs;
  if (output < 0 || size_t(output) >= outputs.size()) return 1;
  Tensor& tensor = outputs[size_t(output)];
  if (tensor.dtype() != DType::kString || index >= uint64_t(tensor.NumElements())) return 1;
  if (size > 0 && data == nullptr) return 1;
  tensor.mutable_data<TString>()[index] = std::string_view(data, size);
  return 0;
}

// A bound plugin function: everything its apply needs.
struct BoundPlugin {
  std::shared_ptr<const FunctionState> fn;
  ElementSpec input_spec;
  ElementSpec output_spec;
  bool row_wise;

  // Whether `element` is a run (its first component has one leading dim more
  // than the spec); an error when it matches neither the spec nor a run of it.
  Result<bool> CheckInputs(const Element& element) const {
    if (element.size() != input_spec.size()) {
      return InvalidArgumentError(fn->where, ": expected ", input_spec.size(), " components ", input_spec, ", got ",
                                  element.size());
    }
    const bool run = row_wise && element.size() > 0 && element[0].rank() == input_spec[0].shape.rank() + 1;
    for (size_t i = 0; i < element.size(); ++i) {
      const Tensor& t = element[i];
      const PartialShape want = run ? input_spec[i].shape.Prepended(t.rank() > 0 ? t.dim(0) : 0) : input_spec[i].shape;
      if (t.dtype() != input_spec[i].dtype || !want.IsCompatibleWith(t.shape())) {
        return InvalidArgumentError(fn->where, ": component ", input_spec.DisplayName(i), " is ", t.dtype(), " ",
                                    t.shape(), ", expected ", input_spec[i].dtype, " ", want);
      }
      if (t.device().type != DeviceType::kCpu) {
        return InvalidArgumentError(fn->where, ": component ", input_spec.DisplayName(i), " is on ", t.device().ToString(),
                                    "; plugins read host memory");
      }
    }
    return run;
  }

  // The shape of each output for these inputs: the declared spec (with the
  // run's leading dim), or what output_shape says, checked against it.
  Result<std::vector<Shape>> OutputShapes(const std::vector<SluiceTensor>& inputs, std::optional<int64_t> run) const {
    std::vector<PartialShape> declared;
    bool known = true;
    for (const ComponentSpec& c : output_spec.components()) {
      declared.push_back(run ? c.shape.Prepended(*run) : c.shape);
      known = known && declared.back().IsFullyDefined();
    }
    std::vector<Shape> shapes;
    if (known) {
      for (const PartialShape& shape : declared) shapes.push_back(shape.ToShape());
      return shapes;
    }
    if (fn->def->output_shape == nullptr) {
      return InvalidArgumentError(fn->where, ": its output spec ", output_spec,
                                  " has unknown dimensions and it has no output_shape callback");
    }
    std::vector<SluiceTensorSpec> out(declared.size());
    for (size_t i = 0; i < declared.size(); ++i) out[i] = ToCSpec({"", output_spec[i].dtype, declared[i]});
    SluiceError error{};
    if (fn->def->output_shape(fn->state, inputs.data(), int32_t(inputs.size()), out.data(), int32_t(out.size()),
                              &error) != 0) {
      return InvalidArgumentError(fn->where, ": output_shape: ", MessageOf(error));
    }
    for (size_t i = 0; i < out.size(); ++i) {
      const std::string what = StrCat(fn->where, ": output_shape of output ", i);
      SLUICE_ASSIGN_OR_RETURN(PartialShape shape, ShapeFromC(out[i], what));
      if (!shape.IsFullyDefined() || !declared[i].IsCompatibleWith(shape)) {
        return InvalidArgumentError(what, " is ", shape, ", which is not a shape of the declared ", declared[i]);
      }
      shapes.push_back(shape.ToShape());
    }
    return shapes;
  }

  // `element_seed`: a random function's seed for the element.
  Result<Element> Apply(Element element, uint64_t element_seed) const {
    SLUICE_ASSIGN_OR_RETURN(const bool run, CheckInputs(element));
    std::vector<std::vector<SluiceStringView>> strings(element.size());
    std::vector<SluiceTensor> inputs(element.size());
    for (size_t i = 0; i < element.size(); ++i) {
      Tensor& t = element[i];
      SluiceTensor& in = inputs[i];
      in.dtype = int32_t(t.dtype());
      in.rank = t.rank();
      for (int d = 0; d < t.rank(); ++d) in.dims[d] = t.dim(d);
      if (t.dtype() == DType::kString) {
        const TString* values = t.data<TString>();
        strings[i].resize(size_t(t.NumElements()));
        for (size_t k = 0; k < strings[i].size(); ++k) strings[i][k] = {values[k].data(), values[k].size()};
        in.data = strings[i].data();
        in.byte_size = strings[i].size() * sizeof(SluiceStringView);
      } else {
        in.data = t.raw_data();
        in.byte_size = t.NumBytes();
      }
    }
    const std::optional<int64_t> rows = run ? std::optional<int64_t>(element[0].dim(0)) : std::nullopt;
    SLUICE_ASSIGN_OR_RETURN(std::vector<Shape> shapes, OutputShapes(inputs, rows));
    std::vector<Tensor> outputs;
    std::vector<SluiceTensor> out(shapes.size());
    for (size_t i = 0; i < shapes.size(); ++i) {
      Result<Tensor> tensor = Tensor::TryAllocate(output_spec[i].dtype, shapes[i]);
      if (!tensor.ok()) return tensor.status().WithContext(StrCat(fn->where, ": output ", i));
      outputs.push_back(*std::move(tensor));
      Tensor& t = outputs.back();
      out[i].dtype = int32_t(t.dtype());
      out[i].rank = t.rank();
      for (int d = 0; d < t.rank(); ++d) out[i].dims[d] = t.dim(d);
      out[i].data = t.dtype() == DType::kString ? nullptr : t.raw_data();
      out[i].byte_size = t.dtype() == DType::kString ? 0 : t.NumBytes();
    }
    OutputContext context{&outputs};
    const SluiceHost host{.context = &context, .set_string = &SetString, .element_seed = element_seed};
    SluiceError error{};
    if (fn->def->compute(fn->state, inputs.data(), int32_t(inputs.size()), out.data(), int32_t(out.size()), &host,
                         &error) != 0) {
      return InvalidArgumentError(fn->where, ": ", MessageOf(error));
    }
    return Element(std::move(outputs));
  }
};

class PluginFunction final : public ElementFunction {
 public:
  PluginFunction(std::shared_ptr<const FunctionState> fn, spec::PluginReference reference, std::string function,
                 FunctionArgs args)
      : fn_(std::move(fn)), reference_(std::move(reference)), function_(std::move(function)), args_(std::move(args)),
        display_name_(StrCat(reference_.name(), ".", function_, "(", args_.DebugString(), ")")) {}

  std::string name() const override { return display_name_; }
  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    if (input.size() > SLUICE_PLUGIN_MAX_COMPONENTS) {
      return InvalidArgumentError(fn_->where, ": input ", input, " has more than ", SLUICE_PLUGIN_MAX_COMPONENTS,
                                  " components");
    }
    std::vector<SluiceTensorSpec> inputs;
    for (const ComponentSpec& c : input.components()) inputs.push_back(ToCSpec(c));
    std::vector<SluiceTensorSpec> outputs(SLUICE_PLUGIN_MAX_COMPONENTS);
    int32_t num_outputs = 0;
    SluiceError error{};
    if (fn_->def->output_spec(fn_->state, inputs.data(), int32_t(inputs.size()), outputs.data(), &num_outputs,
                              &error) != 0) {
      return InvalidArgumentError(fn_->where, ": for input ", input, ": ", MessageOf(error));
    }
    if (num_outputs < 1 || num_outputs > SLUICE_PLUGIN_MAX_COMPONENTS) {
      return InvalidArgumentError(fn_->where, ": output_spec declared ", num_outputs, " outputs (expected 1 to ",
                                  SLUICE_PLUGIN_MAX_COMPONENTS, ")");
    }
    std::vector<ComponentSpec> out;
    for (int32_t i = 0; i < num_outputs; ++i) {
      const std::string what = StrCat(fn_->where, ": output ", i);
      SLUICE_ASSIGN_OR_RETURN(DType dtype, DTypeFromC(outputs[size_t(i)].dtype, what));
      SLUICE_ASSIGN_OR_RETURN(PartialShape shape, ShapeFromC(outputs[size_t(i)], what));
      const char* name = outputs[size_t(i)].name;
      out.push_back({name != nullptr ? std::string(name, strnlen(name, 256)) : std::string(), dtype, std::move(shape)});
    }
    // A run needs a known rank to tell it from one element.
    const bool row_wise = fn_->def->row_wise != 0 && input.size() > 0 && input[0].shape.known_rank();
    auto bound = std::make_shared<const BoundPlugin>(BoundPlugin{fn_, input, ElementSpec(out), row_wise});
    if (fn_->random) {
      return BoundElementFunction{
          .output_spec = ElementSpec(std::move(out)),
          .apply = [where = fn_->where](Element) -> Result<Element> {
            return FailedPreconditionError(where, ": is random and draws from the seed map gives each element");
          },
          .row_wise = false,
          .apply_seeded = [bound](Element element, uint64_t seed) { return bound->Apply(std::move(element), seed); }};
    }
    return BoundElementFunction{.output_spec = ElementSpec(std::move(out)),
                                .apply = [bound](Element element) { return bound->Apply(std::move(element), 0); },
                                .row_wise = row_wise};
  }
  Status ToSpec(spec::ElementFunction* out) const override {
    spec::NamedFunction* named = out->mutable_named();
    named->set_name(function_);
    args_.ToSpec(named);
    *named->mutable_plugin() = reference_;
    return OkStatus();
  }

 private:
  const std::shared_ptr<const FunctionState> fn_;
  const spec::PluginReference reference_;
  const std::string function_;
  const FunctionArgs args_;
  const std::string display_name_;
};

class LoadedPlugin final : public Plugin {
 public:
  LoadedPlugin(std::string path, const SluicePluginInfo* info) : path_(std::move(path)), name_(info->name),
                                                                 version_(info->version) {
    const int32_t* flags = MinorVersion(*info) >= 1 ? info->function_flags : nullptr;
    for (int32_t i = 0; i < info->num_functions; ++i) {
      functions_[info->functions[i].name] = {&info->functions[i], flags != nullptr && (flags[i] & SLUICE_FUNCTION_RANDOM)};
    }
  }

  const std::string& path() const override { return path_; }
  const std::string& name() const override { return name_; }
  const std::string& version() const override { return version_; }
  std::vector<std::string> FunctionNames() const override {
    std::vector<std::string> names;
    for (const auto& [name, def] : functions_) names.push_back(name);
    return names;
  }

  Result<ElementFunctionPtr> MakeFunction(const std::string& function, const FunctionArgs& args) const override {
    auto it = functions_.find(function);
    if (it == functions_.end()) {
      std::string names;
      for (const auto& [name, def] : functions_) names += StrCat(names.empty() ? "" : ", ", name);
      return NotFoundError("plugin '", name_, "' (", path_, ") has no function '", function, "' (it has ",
                           names.empty() ? "none" : names, ")");
    }
    const SluiceFunction* def = it->second.def;
    const std::string where = StrCat("plugin '", name_, "' (", path_, ") function '", function, "'");
    std::vector<SluiceArgument> c_args;
    for (const auto& [name, value] : args.values()) {
      SluiceArgument arg{};
      arg.name = name.c_str();
      if (const int64_t* i = std::get_if<int64_t>(&value)) {
        arg.kind = SLUICE_ARGUMENT_INT;
        arg.int_value = *i;
      } else if (const double* d = std::get_if<double>(&value)) {
        arg.kind = SLUICE_ARGUMENT_FLOAT;
        arg.float_value = *d;
      } else if (const std::string* s = std::get_if<std::string>(&value)) {
        arg.kind = SLUICE_ARGUMENT_STRING;
        arg.string_value = s->data();
        arg.string_size = s->size();
      } else if (const bool* b = std::get_if<bool>(&value)) {
        arg.kind = SLUICE_ARGUMENT_BOOL;
        arg.int_value = *b ? 1 : 0;
      } else {
        return InvalidArgumentError(where, ": argument '", name, "' is a list, which plugins do not take");
      }
      c_args.push_back(arg);
    }
    void* created = nullptr;
    if (def->create != nullptr) {
      SluiceError error{};
      if (def->create(c_args.data(), int32_t(c_args.size()), &created, &error) != 0) {
        return InvalidArgumentError(where, ": ", MessageOf(error));
      }
    } else if (!c_args.empty()) {
      return InvalidArgumentError(where, ": takes no arguments, got '", c_args.front().name, "'");
    }
    auto state = std::make_shared<const FunctionState>(def, created, where, it->second.random);
    spec::PluginReference reference;
    reference.set_path(path_);
    reference.set_name(name_);
    reference.set_version(version_);
    return ElementFunctionPtr(std::make_shared<PluginFunction>(std::move(state), std::move(reference), function, args));
  }

 private:
  const std::string path_;
  const std::string name_;
  const std::string version_;
  struct Function {
    const SluiceFunction* def;
    bool random;  // SLUICE_FUNCTION_RANDOM
  };
  std::map<std::string, Function> functions_;
};

// Checks what a library's entry point returned before anything else reads it.
Status CheckInfo(const std::string& path, const SluicePluginInfo* info) {
  if (info == nullptr) return InvalidArgumentError("plugin '", path, "': ", SLUICE_PLUGIN_ENTRY_POINT, " returned null");
  const uint32_t major = info->abi_version & 0xffff, minor = MinorVersion(*info);
  if (major != SLUICE_PLUGIN_ABI_VERSION) {
    return FailedPreconditionError("plugin '", path, "' was built for plugin ABI version ", major,
                                   ", but this Sluice loads version ", SLUICE_PLUGIN_ABI_VERSION,
                                   " (rebuild it against this Sluice's dataset/plugin_abi.h)");
  }
  if (minor > SLUICE_PLUGIN_ABI_MINOR_VERSION) {
    return FailedPreconditionError("plugin '", path, "' was built for plugin ABI version ", major, ".", minor,
                                   ", but this Sluice loads versions up to ", SLUICE_PLUGIN_ABI_VERSION, ".",
                                   SLUICE_PLUGIN_ABI_MINOR_VERSION, " (rebuild it against this Sluice's "
                                   "dataset/plugin_abi.h)");
  }
  if (info->name == nullptr || info->name[0] == '\0' || info->version == nullptr) {
    return InvalidArgumentError("plugin '", path, "' reports no name or no version");
  }
  for (const char* c = info->name; *c != '\0'; ++c) {
    if (!std::isalnum(static_cast<unsigned char>(*c)) && *c != '_') {
      return InvalidArgumentError("plugin '", path, "': its name '", info->name,
                                  "' must be letters, digits and '_' only");
    }
  }
  if (info->num_functions < 0 || info->num_functions > kMaxPluginFunctions ||
      (info->num_functions > 0 && info->functions == nullptr)) {
    return InvalidArgumentError("plugin '", path, "' declares ", info->num_functions, " functions (expected 0 to ",
                                kMaxPluginFunctions, ", with a function table)");
  }
  std::set<std::string_view> names;
  for (int32_t i = 0; i < info->num_functions; ++i) {
    const SluiceFunction& fn = info->functions[i];
    if (fn.name == nullptr || fn.name[0] == '\0') return InvalidArgumentError("plugin '", path, "': function ", i, " has no name");
    if (fn.output_spec == nullptr || fn.compute == nullptr) {
      return InvalidArgumentError("plugin '", path, "': function '", fn.name, "' has no output_spec or no compute");
    }
    if (!names.insert(fn.name).second) {
      return InvalidArgumentError("plugin '", path, "': function '", fn.name, "' is declared twice");
    }
    const int32_t flags = minor >= 1 && info->function_flags != nullptr ? info->function_flags[i] : 0;
    if ((flags & ~SLUICE_FUNCTION_RANDOM) != 0 || ((flags & SLUICE_FUNCTION_RANDOM) && fn.row_wise != 0)) {
      return InvalidArgumentError("plugin '", path, "': function '", fn.name, "' has flags ", flags,
                                  " (expected 0 or SLUICE_FUNCTION_RANDOM, which is not row_wise)");
    }
  }
  return OkStatus();
}

struct Loaded {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const LoadedPlugin>> by_path;  // GUARDED_BY(mu)
};

Loaded& LoadedTable() {
  static Loaded* loaded = new Loaded();  // never destroyed: loaded libraries are never unloaded
  return *loaded;
}

}  // namespace

Result<PluginPtr> LoadPlugin(const std::string& path) {
  std::error_code error;
  const fs::path canonical = fs::canonical(path, error);
  if (error) return NotFoundError("plugin library '", path, "' cannot be found: ", error.message());
  const std::string key = canonical.string();
  Loaded& loaded = LoadedTable();
  std::lock_guard lock(loaded.mu);
  if (auto it = loaded.by_path.find(key); it != loaded.by_path.end()) return PluginPtr(it->second);
  void* handle = dlopen(key.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    return InvalidArgumentError("plugin library '", key, "' cannot be loaded: ", reason != nullptr ? reason : "unknown");
  }
  auto entry = reinterpret_cast<SluicePluginEntry>(dlsym(handle, SLUICE_PLUGIN_ENTRY_POINT));
  if (entry == nullptr) {
    dlclose(handle);
    return InvalidArgumentError("plugin library '", key, "' has no entry point ", SLUICE_PLUGIN_ENTRY_POINT,
                                " (is it a Sluice plugin?)");
  }
  const SluicePluginInfo* info = entry();
  if (Status status = CheckInfo(key, info); !status.ok()) {
    dlclose(handle);
    return status;
  }
  for (const auto& [other_path, other] : loaded.by_path) {
    if (other->name() == info->name) {
      dlclose(handle);
      return AlreadyExistsError("plugin '", key, "' is called '", info->name, "', as the plugin already loaded from '",
                                other_path, "'");
    }
  }
  auto plugin = std::make_shared<const LoadedPlugin>(key, info);
  loaded.by_path.emplace(key, plugin);
  return PluginPtr(std::move(plugin));
}

Result<PluginPtr> LoadPlugin(const spec::PluginReference& reference) {
  SLUICE_ASSIGN_OR_RETURN(PluginPtr plugin, LoadPlugin(reference.path()));
  const bool name_differs = !reference.name().empty() && reference.name() != plugin->name();
  const bool version_differs = !reference.version().empty() && reference.version() != plugin->version();
  if (name_differs || version_differs) {
    return FailedPreconditionError("plugin '", plugin->path(), "': the spec expects plugin '", reference.name(),
                                   "' version '", reference.version(), "', but the library is plugin '",
                                   plugin->name(), "' version '", plugin->version(), "'");
  }
  return plugin;
}

PluginPtr FindLoadedPlugin(std::string_view name) {
  Loaded& loaded = LoadedTable();
  std::lock_guard lock(loaded.mu);
  for (const auto& [path, plugin] : loaded.by_path) {
    if (plugin->name() == name) return plugin;
  }
  return nullptr;
}

std::vector<PluginPtr> LoadedPlugins() {
  Loaded& loaded = LoadedTable();
  std::lock_guard lock(loaded.mu);
  std::vector<PluginPtr> plugins;
  for (const auto& [path, plugin] : loaded.by_path) plugins.push_back(plugin);
  std::sort(plugins.begin(), plugins.end(), [](const PluginPtr& a, const PluginPtr& b) { return a->name() < b->name(); });
  return plugins;
}

}  // namespace sluice
