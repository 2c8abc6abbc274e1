// Releasing the GIL around C++ work, safely at exit.
//
// Once the interpreter has begun to finalize, CPython ends any thread other
// than the main one that tries to take the GIL back, with pthread_exit. Its
// forced unwinding through C++ frames aborts the process ("terminate called
// without an active exception") as soon as it meets a noexcept frame, such as
// a destructor that released the GIL. A daemon thread still in a pipeline
// call at exit (next(), making or dropping an iterator) would do that, so
// every release of the GIL in the module goes through WithoutGil: a thread
// other than the main one that returns to a finalizing interpreter parks
// instead, and ends with the process. The main thread, which finalizes,
// always takes the GIL back.
#pragma once

#include <Python.h>
#include <unistd.h>

#include <utility>

#include "sluice/python/interrupt.h"

namespace sluice::python {

// Runs `work` with the GIL released (the caller holds it) and returns what
// it returns.
template <typename Work>
decltype(auto) WithoutGil(Work&& work) {
  struct Retake {
    PyThreadState* state;
    ~Retake() {
      if (!OnMainThread()) {
        while (_Py_IsFinalizing()) pause();
      }
      PyEval_RestoreThread(state);
    }
  } retake{PyEval_SaveThread()};
  return std::forward<Work>(work)();
}

}  // namespace sluice::python
