// RunOp: one eager call of an op: infer the outputs' dtypes and shapes,
// allocate them on the inputs' device, run that device's kernel, and let the
// thread's recorders (ops/op_recorder.h) see the call.
// Thread safety: safe from any thread; the inputs are only read.
#pragma once

#include <span>
#include <vector>

#include "sluice/ops/op.h"

namespace sluice {

Result<std::vector<Tensor>> RunOp(const OpDef& def, std::span<const Tensor> inputs,
                                  const OpAttrs& attrs = {});
// The same for an op with one output.
Result<Tensor> RunSingleOutputOp(const OpDef& def, std::span<const Tensor> inputs,
                                 const OpAttrs& attrs = {});

}  // namespace sluice
