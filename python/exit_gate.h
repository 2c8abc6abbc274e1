// Taking the GIL on a thread other than the main one, safely at exit.
//
// Once the interpreter finalizes, CPython ends any other thread that takes
// the GIL, with pthread_exit. Its forced unwinding through C++ frames aborts
// the process ("terminate called without an active exception") at the first
// noexcept frame, such as a destructor that takes the GIL back, and a thread
// of a CPU pool must never end that way. So a thread about to take the GIL
// passes the exit gate first. An atexit callback, which runs before the
// interpreter finalizes, closes the gate and then waits, the GIL released,
// for the threads already through it to take the GIL and leave (up to 10 s).
// A thread the gate turns away must not take the GIL.
// Thread safety: a GilEntry may be made on any thread.
#pragma once

namespace sluice::python {

// Held around taking the GIL, until the thread is done with what it took it
// for: admitted() says whether it may take it.
class GilEntry {
 public:
  GilEntry();
  ~GilEntry();
  GilEntry(const GilEntry&) = delete;
  GilEntry& operator=(const GilEntry&) = delete;

  bool admitted() const { return admitted_; }

 private:
  bool admitted_;
};

// Registers the atexit callback that closes the gate (at import, the GIL
// held).
void InitExitGate();

}  // namespace sluice::python
