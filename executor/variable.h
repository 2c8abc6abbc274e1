// Variable: a named, mutable tensor that training updates (a layer's kernel
// or bias, an optimizer's slot). Its value carries a permanent tape id, so a
// GradientTape that watches it can differentiate with respect to it.
//
// Optimizers update the value in place (mutable_value()); do that only after
// the gradients of the step have been computed, since a tape keeps reading
// the recorded value.
// Thread safety: not thread-safe; a training step owns its variables.
#pragma once

#include <string>

#include "sluice/core/tensor.h"

namespace sluice {

// A fresh, process-unique tape id (never 0).
uint64_t NewTapeId();

class Variable {
 public:
  // Takes a private copy of `initial_value`, on its device.
  Variable(std::string name, const Tensor& initial_value, bool trainable = true);
  // One variable, one value: copies would share the bytes and the tape id.
  Variable(const Variable&) = delete;
  Variable& operator=(const Variable&) = delete;
  Variable(Variable&&) = default;
  Variable& operator=(Variable&&) = default;

  const std::string& name() const { return name_; }
  bool trainable() const { return trainable_; }
  const Tensor& value() const { return value_; }
  // The value's bytes, for an in-place update that keeps its id.
  Tensor& mutable_value() { return value_; }
  // Copies `value` in. InvalidArgument naming the variable when the dtype or
  // shape differs.
  Status Assign(const Tensor& value);

 private:
  std::string name_;
  Tensor value_;
  bool trainable_;
};

}  // namespace sluice
