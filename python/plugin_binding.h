// Named functions and plugins (dataset/function_registry.h,
// dataset/plugin.h) for Python: `_sluice.fn_named`, `_sluice.fn_named_predicate`
// and `_sluice.load_plugin`, which sluice/fn.py and sluice/__init__.py wrap.
#pragma once

#include <pybind11/pybind11.h>

namespace sluice::python {

void RegisterPlugins(pybind11::module_& module);

}  // namespace sluice::python
