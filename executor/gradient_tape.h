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
// Gradient may also report each source's gradient as soon as it is final,
// while the walk goes on (`on_ready`): a source's gradient is final once
// the walk has passed the first record that reads it. Data-parallel
// training starts each bucket's all-reduce from there, overlapping the
// communication with the rest of the backward pass.
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

// Called with a source's index and its final gradient (valid for the call;
// the tensor is a value and may be kept). Called once per source, sources
// read earlier in the forward pass later; an error stops the walk and
// Gradient returns it.
using GradientReady = std::function<Status(size_t source, const Tensor& gradient)>;

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
  // With `on_ready`, each source's gradient is also passed to it once final
  // (unconnected sources under kZero at the end, with their zeros).
  Result<std::vector<Tensor>> Gradient(const Tensor& target, std::span<const Tensor> sources,
                                       UnconnectedGradients unconnected = UnconnectedGradients::kError,
                                       const GradientReady& on_ready = {});
  Result<std::vector<Tensor>> Gradient(const Tensor& target, std::span<Variable* const> variables,
                                       UnconnectedGradients unconnected = UnconnectedGradients::kError,
                                       const GradientReady& on_ready = {});

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
  // `final_after` maps record indices to the kept ids whose gradients are
  // final once that record is walked; `on_final(id)` is called for them.
  Result<std::unordered_map<uint64_t, Tensor>> Backpropagate(
      const Tensor& target, const std::unordered_set<uint64_t>& keep,
      const std::unordered_map<size_t, std::vector<uint64_t>>& final_after,
      const std::function<Status(uint64_t id, const Tensor& gradient)>& on_final);
  // Gradient, with `describe(i)` naming source i in errors.
  Result<std::vector<Tensor>> GradientOf(const Tensor& target, std::span<const Tensor> sources,
                                         UnconnectedGradients unconnected, const GradientReady& on_ready,
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
