// Releasing the GIL around C++ work, safely at exit.
//
// A daemon thread still in a pipeline call at exit (next(), making or
// dropping an iterator) must not take the GIL back once the interpreter
// finalizes: CPython would end it inside C++ frames (see exit_gate.h). So
// every release of the GIL in the module goes through WithoutGil: a thread
// other than the main one takes the GIL back through the exit gate, and one
// the gate turns away parks instead, and ends with the process. The main
// thread, which finalizes, always takes the GIL back.
#pragma once

#include <Python.h>
#include <unistd.h>

#include <utility>

#include "sluice/python/exit_gate.h"
#include "sluice/python/interrupt.h"

namespace sluice::python {

// Runs `work` with the GIL released (the caller holds it) and returns what
// it returns.
template <typename Work>
decltype(auto) WithoutGil(Work&& work) {
  struct Retake {
    PyThreadState* state;
    ~Retake() {
      if (OnMainThread()) {
        PyEval_RestoreThread(state);
        return;
      }
      {
        GilEntry entry;
        if (entry.admitted()) {
          PyEval_RestoreThread(state);
          return;
        }
      }
      for (;;) pause();  // turned away: out of the gate's count, for good
    }
  } retake{PyEval_SaveThread()};
  return std::forward<Work>(work)();
}

}  // namespace sluice::python
