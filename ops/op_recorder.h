// OpRecorder: a hook that sees every op call made on this thread, so the
// executor's gradient tape (executor/gradient_tape.h) can record them
// without ops/ depending on executor/.
// Thread safety: recorders are per thread; installing one affects only the
// calling thread.
#pragma once

#include <span>

#include "sluice/ops/op.h"

namespace sluice {

class OpRecorder {
 public:
  virtual ~OpRecorder() = default;
  // Called after every successful op call on the thread while installed.
  // `outputs` may be modified to stamp their tape ids.
  virtual void OnOpRun(const OpDef& def, const OpAttrs& attrs, std::span<const Tensor> inputs,
                       std::span<Tensor> outputs) = 0;
};

// Installs a recorder on this thread for the scope's lifetime; scopes nest
// (every installed recorder sees every call). REQUIRES: scopes end in
// reverse order of creation, on the thread that made them.
class ScopedOpRecorder {
 public:
  explicit ScopedOpRecorder(OpRecorder* recorder);
  ~ScopedOpRecorder();
  ScopedOpRecorder(const ScopedOpRecorder&) = delete;
  ScopedOpRecorder& operator=(const ScopedOpRecorder&) = delete;

 private:
  OpRecorder* recorder_;
};

// The recorders installed on this thread, innermost last.
std::span<OpRecorder* const> ActiveOpRecorders();

}  // namespace sluice
