// GradientTape: reverse-mode automatic differentiation in the shape of
// tf.GradientTape. While a tape lives, every op call on its thread whose
// inputs include a watched value is recorded; Gradient(target, sources)
// walks the records in reverse (a valid reverse topological order for eager
// calls), seeds d(target)/d(target) = 1, applies each op's gradient rule
// and sums the contributions per value.
//
//   GradientTape tape;
//   tape.Watch(weights);                            // a Variable
//   Tensor loss = ...ops on weights.value()...;
//   auto grads = tape.Gradient(loss, {&weights});   // one per variable
//
// A non-persistent tape (the default) frees its records in Gradient and
// may be asked once; a persistent one may be asked many times. Ops with no
// gradient rule are not recorded (their outputs are constants), and
// StopGradient cuts a value out of the graph. Gradients are not recorded by
// outer tapes (no higher-order derivatives).
// Thread safety: a tape belongs to the thread that made it and sees only
// that thread's op calls; destroy it on that thread.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sluice/executor/variable.h"
#include "sluice/ops/op_recorder.h"

namespace sluice {

// What Gradient returns for a source the target does not depend on.
enum class UnconnectedGradients {
  kError,  // InvalidArgument naming the source (tf.GradientTape gives None)
  kZero,   // zeros of the source's shape
};

struct GradientTapeOptions {
  // Keep the records after Gradient, so it can be called again.
  bool persistent = false;
};

class GradientTape : public OpRecorder {
 public:
  explicit GradientTape(GradientTapeOptions options = {});
  ~GradientTape() override;
  GradientTape(const GradientTape&) = delete;
  GradientTape& operator=(const GradientTape&) = delete;

  void Watch(const Variable& variable);
  // Gives `tensor` a tape id if it has none, then watches it.
  void Watch(Tensor& tensor);

  // d(target)/d(source) for each source, each of its source's shape. The
  // target may have any shape (its gradient is seeded with ones, i.e. the
  // gradient of its sum). FailedPrecondition when a non-persistent tape was
  // already asked; InvalidArgument for an unconnected source under kError.
  Result<std::vector<Tensor>> Gradient(const Tensor& target, std::span<const Tensor> sources,
                                       UnconnectedGradients unconnected = UnconnectedGradients::kError);
  Result<std::vector<Tensor>> Gradient(const Tensor& target, std::span<Variable* const> variables,
                                       UnconnectedGradients unconnected = UnconnectedGradients::kError);

  void OnOpRun(const OpDef& def, const OpAttrs& attrs, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) override;

 private:
  // One recorded call: what its gradient rule needs.
  struct Record {
    const OpDef* def;
    OpAttrs attrs;
    std::vector<Tensor> inputs;
    std::vector<Tensor> outputs;
  };

  // The gradients of every tracked value the target depends on, by tape id.
  Result<std::unordered_map<uint64_t, Tensor>> Backpropagate(const Tensor& target,
                                                             const std::unordered_set<uint64_t>& keep);
  // Gradient, with `describe(i)` naming source i in errors.
  Result<std::vector<Tensor>> GradientOf(const Tensor& target, std::span<const Tensor> sources,
                                         UnconnectedGradients unconnected,
                                         const std::function<std::string(size_t)>& describe);
  bool IsTracked(uint64_t id) const { return id != 0 && tracked_.contains(id); }

  const GradientTapeOptions options_;
  std::vector<Record> records_;
  std::unordered_set<uint64_t> tracked_;  // watched values and recorded outputs
  bool used_ = false;       // a non-persistent tape was asked already
  bool recording_ = true;   // false while computing gradients
  ScopedOpRecorder installed_;
};

// `x` as a constant: the same values, invisible to every tape.
Tensor StopGradient(Tensor x);

}  // namespace sluice
