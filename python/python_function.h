// Python callables as the functions that map, filter and interleave apply:
// `_sluice.ElementFunction`, `_sluice.Predicate` and `_sluice.DatasetFunction`
// objects that sluice/_callables.py makes (it also finds their output specs);
// and a Python generator as a from_generator source (sluice/_generator.py).
//
// A call runs on whichever thread the op uses (the caller's for a
// sequential op, a CPU-pool worker for a parallel one) and holds the GIL
// while it converts the element to numpy (as iteration does), calls the
// callable and converts what it returned back. Anything it raises becomes
// that element's error, with the exception's type, message and Python
// traceback: a sluice.Error keeps its code, anything else is
// InvalidArgument. KeyboardInterrupt and SystemExit are not element errors:
// the first one raised is kept, and the next next() of an iterator (on
// whichever thread returns first) closes that iterator and re-raises it.
//
// The objects hold Python references that the C++ graph may drop on any
// thread, the GIL held or not: they take the GIL to drop them. At exit, the
// exit gate (exit_gate.h) waits (up to 10 s, the GIL released) for the calls
// under way to return; from then on, and while the interpreter finalizes,
// nothing takes the GIL for them (a thread that did would be ended by the
// interpreter): calls fail with Cancelled and references are leaked.
// Thread safety: the functions may be called concurrently; the two
// interrupt hooks below need the GIL.
#pragma once

#include <pybind11/pybind11.h>

namespace sluice::python {

// Registers python_element_function, python_predicate,
// python_dataset_function and python_generator_dataset in `module`.
void RegisterPythonFunctions(pybind11::module_& module);

// Whether a Python function raised KeyboardInterrupt or SystemExit that no
// next() has re-raised yet (for iterator_binding.cc).
// REQUIRES: the GIL is held.
bool PythonInterruptPending();
// Sets that exception as the Python error, forgets it, and throws
// pybind11::error_already_set.
// REQUIRES: the GIL is held and PythonInterruptPending().
[[noreturn]] void RaisePythonInterrupt();

}  // namespace sluice::python
