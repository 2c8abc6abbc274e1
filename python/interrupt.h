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
// A scope on the main thread (re)installs the handler when Python's own is
// in place (signal.signal reinstalls Python's), checking at most every
// kHandlerCheckInterval so that a fast next() makes no system call; a SIGINT
// that is ignored or left at its default is not touched. Scopes on other
// threads do nothing: Python delivers KeyboardInterrupt to the main thread.
// Thread safety: make a scope with the GIL held; the watcher runs alone.
#pragma once

#include <atomic>
#include <chrono>

#include "sluice/dataset/cancellation.h"

namespace sluice::python {

inline constexpr std::chrono::milliseconds kHandlerCheckInterval{100};

class InterruptScope {
 public:
  // `cancellation` must outlive the scope.
  explicit InterruptScope(Cancellation& cancellation);
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  // Whether a SIGINT cancelled the scope's call.
  bool interrupted() const;

  // What the watcher sees of a scope: scopes nest (a Python function in a
  // sequential map may iterate another pipeline), so they form a stack.
  struct Registration {
    Cancellation* cancellation = nullptr;
    std::atomic<bool> interrupted{false};
    Registration* below = nullptr;
  };

 private:
  bool registered_ = false;  // false off the main thread
  Registration registration_;
};

// Records the id of the interpreter's main thread (call at import, which
// may be on another thread: it asks the threading module).
void InitInterrupts();
// Whether the calling thread is the interpreter's main thread.
bool OnMainThread();

}  // namespace sluice::python
