// The data service's client in the module: `_sluice.from_service`, the
// dataset whose elements come from a dispatcher and its workers
// (service/service_dataset.h). sluice/dataset.py's Dataset.from_service
// checks and names the arguments, and calls it.
// Thread safety: call with the GIL held (it is released while the
// dispatcher answers).
#pragma once

#include <pybind11/pybind11.h>

namespace sluice::python {

void RegisterService(pybind11::module_& module);

}  // namespace sluice::python
