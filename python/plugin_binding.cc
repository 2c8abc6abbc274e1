#include "sluice/python/plugin_binding.h"

#include <pybind11/stl.h>

#include "sluice/dataset/function_registry.h"
#include "sluice/dataset/plugin.h"
#include "sluice/python/dataset_binding.h"
#include "sluice/python/errors.h"
#include "sluice/python/tensor_conversion.h"

namespace sluice::python {
namespace py = pybind11;

namespace {

// Keyword arguments as FunctionArgs: bool, int, float, str, or a sequence
// (a list argument, as a rank-1 array).
FunctionArgs ArgsFrom(const std::string& name, const py::dict& kwargs) {
  FunctionArgs args;
  for (const auto& [key, value] : kwargs) {
    const std::string arg = key.cast<std::string>();
    if (py::isinstance<py::bool_>(value)) {
      args.Set(arg, value.cast<bool>());
    } else if (py::isinstance<py::int_>(value)) {
      args.Set(arg, value.cast<int64_t>());
    } else if (py::isinstance<py::float_>(value)) {
      args.Set(arg, value.cast<double>());
    } else if (py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value)) {
      args.Set(arg, value.cast<std::string>());
    } else {
      args.Set(arg, NumpyToTensor(value, StrCat(name, ": argument '", arg, "'")));
    }
  }
  return args;
}

}  // namespace

void RegisterPlugins(py::module_& m) {
  m.def("fn_named", [](const std::string& name, const py::dict& kwargs) {
    FunctionArgs args = ArgsFrom(name, kwargs);
    return PyElementFunction{ValueOrThrow(MakeNamedFunction(name, args))};
  });
  m.def("fn_named_predicate", [](const std::string& name, const py::dict& kwargs) {
    FunctionArgs args = ArgsFrom(name, kwargs);
    return PyPredicate{ValueOrThrow(MakeNamedPredicate(name, args))};
  });
  m.def("function_names", [] { return FunctionRegistry::Global().ElementFunctionNames(); });
  // (path, name, version, function names) of the loaded plugin.
  m.def("load_plugin", [](const std::string& path) {
    PluginPtr plugin = ValueOrThrow(LoadPlugin(path));
    return py::make_tuple(plugin->path(), plugin->name(), plugin->version(), plugin->FunctionNames());
  });
}

}  // namespace sluice::python
