// OpRegistry: every tensor operation by name. RegisterAllOps
// (ops/register_ops.cc) fills the global registry on first use, from one
// place; a device backend then installs its kernels with SetKernel.
// Thread safety: Global() is safe to call from any thread; SetKernel must
// run before ops are used from other threads.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "sluice/ops/op.h"

namespace sluice {

class OpRegistry {
 public:
  // The registry every op function uses, filled by RegisterAllOps.
  static OpRegistry& Global();

  // REQUIRES: no op of that name yet (a programming error otherwise).
  void Register(const OpDef& def);
  // The op of that name. REQUIRES: registered (names are compile-time
  // constants in the op functions).
  const OpDef& Get(std::string_view name) const;
  const OpDef* Find(std::string_view name) const;
  std::vector<const OpDef*> All() const;
  // Installs the kernel for `device` of a registered op.
  void SetKernel(std::string_view name, DeviceType device, KernelFn kernel);

 private:
  // unique_ptr: OpDef addresses stay valid as the list grows.
  std::vector<std::unique_ptr<OpDef>> ops_;
};

// Registers every op Sluice has. The one place to add an op.
void RegisterAllOps(OpRegistry& registry);

}  // namespace sluice
