// Ctrl-C for blocking calls that run without the GIL.
//
// Python handles SIGINT by setting a flag that the main thread checks
// between bytecodes; a main thread blocked inside C++ (an iterator's next()
// waiting on a slow pipeline) would not see it until the call returned.
// An InterruptScope, made on the main thread around such a call, chains a
// C-level SIGINT handler in front of Python's: on SIGINT it still runs
// Python's handler (so KeyboardInterrupt is raised as usual) and also has a
// watcher thread cancel the scope's Cancellation, which wakes the call.
// After the call, interrupted() says whether that happened.
//
// The handler is (re)installed by each scope on the main thread whenever
// Python's own handler is in place (signal.signal reinstalls it); a SIGINT
// that is ignored or left at its default is not touched. Scopes on other
// threads do nothing: Python delivers KeyboardInterrupt to the main thread.
// Thread safety: make a scope with the GIL held; the watcher runs alone.
#pragma once

#include <memory>

#include "dataset/cancellation.h"

namespace sluice::python {

class InterruptScope {
 public:
  explicit InterruptScope(std::shared_ptr<Cancellation> cancellation);
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  // Whether a SIGINT cancelled the scope's call.
  bool interrupted() const;

  struct Registration;  // what the watcher sees of a scope (interrupt.cc)

 private:
  std::shared_ptr<Registration> registration_;  // null off the main thread
};

// Records the id of the interpreter's main thread (call at import, which
// may be on another thread: it asks the threading module).
void InitInterrupts();

}  // namespace sluice::python
