// The iteration half of the module: `_sluice.Iterator`, one traversal of a
// dataset under its runtime options, yielding numpy arrays (or, with a
// converter, anything made from each tensor), and saving and restoring its
// position; and `_sluice.Profile`, the profile a traversal can record into.
//
// next() releases the GIL while the pipeline works, and a Ctrl-C on the
// main thread interrupts a next() that waits (python/interrupt.h): it raises
// KeyboardInterrupt and closes the iterator. close() (or dropping the last
// reference) stops the traversal's workers, without the GIL so that workers
// running Python functions can finish.
// Thread safety: one thread at a time per iterator; a second thread calling
// in while one waits gets a RuntimeError.
#pragma once

#include <pybind11/pybind11.h>

namespace sluice::python {

void RegisterIterator(pybind11::module_& module);

}  // namespace sluice::python
