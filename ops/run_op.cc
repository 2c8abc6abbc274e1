#include "sluice/ops/run_op.h"

#include "sluice/ops/device_backend.h"
#include "sluice/ops/op_recorder.h"

namespace sluice {
namespace {

Status CheckInputs(const OpDef& def, std::span<const Tensor> inputs) {
  if (def.num_inputs != kVariadic && static_cast<int>(inputs.size()) != def.num_inputs) {
    return InvalidArgumentError(def.name, ": expected ", def.num_inputs, " inputs, got ",
                                inputs.size());
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].valid()) return InvalidArgumentError(def.name, ": input ", i, " is not set");
    if (!(inputs[i].device() == inputs[0].device())) {
      return InvalidArgumentError(def.name, ": input 0 is on ", inputs[0].device().ToString(),
                                  " but input ", i, " is on ", inputs[i].device().ToString());
    }
  }
  return OkStatus();
}

}  // namespace

Result<std::vector<Tensor>> RunOp(const OpDef& def, std::span<const Tensor> inputs,
                                  const OpAttrs& attrs) {
  SLUICE_RETURN_IF_ERROR(CheckInputs(def, inputs));
  SLUICE_ASSIGN_OR_RETURN(std::vector<TensorMeta> metas, def.infer(inputs, attrs));
  const Device device = inputs.empty() ? Device{} : inputs[0].device();
  const KernelFn kernel = device.type == DeviceType::kCpu ? def.cpu_kernel : def.cuda_kernel;
  if (kernel == nullptr) {
    return UnimplementedError(def.name, ": no kernel for ", device.ToString());
  }
  SLUICE_ASSIGN_OR_RETURN(Allocator * allocator, OutputAllocator(device));
  std::vector<Tensor> outputs;
  outputs.reserve(metas.size());
  for (const TensorMeta& meta : metas) {
    outputs.push_back(Tensor::AllocateUninitialized(meta.dtype, meta.shape, allocator));
  }
  SLUICE_RETURN_IF_ERROR(kernel(inputs, attrs, outputs));
  for (OpRecorder* recorder : ActiveOpRecorders()) {
    recorder->OnOpRun(def, attrs, inputs, outputs);
  }
  return outputs;
}

Result<Tensor> RunSingleOutputOp(const OpDef& def, std::span<const Tensor> inputs,
                                 const OpAttrs& attrs) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, RunOp(def, inputs, attrs));
  return std::move(outputs[0]);
}

}  // namespace sluice
