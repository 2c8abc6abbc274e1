// The graph-building half of the module: `_sluice.Dataset` (an immutable
// handle on a built graph), the sources and ops that make one, and the
// built-in element functions and predicates (`_sluice.ElementFunction`,
// `_sluice.Predicate`). The pure-Python package (sluice/dataset.py) checks
// and names the arguments, and calls these.
// Thread safety: call with the GIL held; the objects are immutable.
#pragma once

#include <pybind11/pybind11.h>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"

namespace sluice::python {

// What `_sluice.Dataset` holds.
struct PyDataset {
  DatasetPtr dataset;
};
struct PyElementFunction {
  ElementFunctionPtr function;
};
struct PyPredicate {
  PredicatePtr predicate;
};
struct PyDatasetFunction {
  DatasetFunctionPtr function;
};

// The element spec as Python values: a list of (name, dtype name, shape),
// each shape a list of ints and None for unknown dims, or None for an
// unknown rank.
pybind11::list ElementSpecToPython(const ElementSpec& spec);
// The inverse: from a list of (name, dtype, shape) (dtype as
// DTypeFromPython takes it).
ElementSpec ElementSpecFromPython(pybind11::handle spec, std::string_view what);

void RegisterDataset(pybind11::module_& module);
void RegisterFunctions(pybind11::module_& module);

}  // namespace sluice::python
