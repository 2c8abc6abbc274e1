// sluice._sluice: the extension module under the pure-Python package
// sluice/ (python/sluice/__init__.py), which is the API people use.
#include <pybind11/pybind11.h>

#include "sluice/python/dataset_binding.h"
#include "sluice/python/dlpack.h"
#include "sluice/python/errors.h"
#include "sluice/python/exit_gate.h"
#include "sluice/python/interrupt.h"
#include "sluice/python/iterator_binding.h"
#include "sluice/python/plugin_binding.h"
#include "sluice/python/python_function.h"
#include "sluice/python/service_binding.h"

PYBIND11_MODULE(_sluice, m) {
  m.doc() = "Sluice's C++ core; use the sluice package.";
  sluice::python::RegisterErrors(m);
  sluice::python::RegisterDataset(m);
  sluice::python::RegisterFunctions(m);
  sluice::python::RegisterDlpack(m);
  sluice::python::RegisterIterator(m);
  sluice::python::RegisterPythonFunctions(m);
  sluice::python::RegisterService(m);
  sluice::python::RegisterPlugins(m);
  sluice::python::InitInterrupts();
  sluice::python::InitExitGate();
}
