#include "sluice/ops/op_registry.h"

namespace sluice {

OpRegistry& OpRegistry::Global() {
  static OpRegistry* registry = [] {
    auto* created = new OpRegistry;  // never destroyed: ops run until exit
    RegisterAllOps(*created);
    return created;
  }();
  return *registry;
}

void OpRegistry::Register(const OpDef& def) {
  SLUICE_CHECK(Find(def.name) == nullptr) << "op " << def.name << " registered twice";
  SLUICE_CHECK(def.infer != nullptr && def.cpu_kernel != nullptr)
      << "op " << def.name << " needs a shape function and a CPU kernel";
  ops_.push_back(std::make_unique<OpDef>(def));
}

const OpDef* OpRegistry::Find(std::string_view name) const {
  for (const auto& def : ops_) {
    if (def->name == name) return def.get();
  }
  return nullptr;
}

const OpDef& OpRegistry::Get(std::string_view name) const {
  const OpDef* def = Find(name);
  SLUICE_CHECK(def != nullptr) << "no op named " << name;
  return *def;
}

std::vector<const OpDef*> OpRegistry::All() const {
  std::vector<const OpDef*> all;
  for (const auto& def : ops_) all.push_back(def.get());
  return all;
}

void OpRegistry::SetKernel(std::string_view name, DeviceType device, KernelFn kernel) {
  const OpDef* def = Find(name);
  SLUICE_CHECK(def != nullptr) << "no op named " << name;
  OpDef& mutable_def = const_cast<OpDef&>(*def);
  (device == DeviceType::kCpu ? mutable_def.cpu_kernel : mutable_def.cuda_kernel) = kernel;
}

}  // namespace sluice
