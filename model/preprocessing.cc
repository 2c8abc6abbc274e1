#include "sluice/model/preprocessing.h"

#include <google/protobuf/descriptor.h>

#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

ElementSpec RawElementSpec(const std::vector<InputSignature>& raw_inputs) {
  std::vector<ComponentSpec> components;
  for (const InputSignature& input : raw_inputs) components.push_back({input.name, input.dtype, input.shape});
  return ElementSpec(std::move(components));
}

Status CheckRawInputs(const std::vector<InputSignature>& raw_inputs) {
  if (raw_inputs.empty()) return InvalidArgumentError("preprocessing: no raw inputs; name at least one");
  if (raw_inputs.size() > kMaxRawInputs) {
    return InvalidArgumentError("preprocessing: ", raw_inputs.size(), " raw inputs, more than the limit of ",
                                kMaxRawInputs, " (kMaxRawInputs)");
  }
  for (size_t i = 0; i < raw_inputs.size(); ++i) {
    if (raw_inputs[i].name.empty()) return InvalidArgumentError("preprocessing: raw input ", i, " has no name");
    for (size_t j = 0; j < i; ++j) {
      if (raw_inputs[j].name == raw_inputs[i].name) {
        return InvalidArgumentError("preprocessing: raw input '", raw_inputs[i].name, "' is named twice");
      }
    }
  }
  return OkStatus();
}

}  // namespace

bool IsRandomFunction(const spec::ElementFunction& fn) {
  const google::protobuf::OneofDescriptor* oneof = fn.GetDescriptor()->FindOneofByName("fn");
  const google::protobuf::FieldDescriptor* set = fn.GetReflection()->GetOneofFieldDescriptor(fn, oneof);
  return set != nullptr && set->message_type() != nullptr && set->message_type()->FindFieldByName("seed") != nullptr;
}

Result<BoundPreprocessing> BindPreprocessing(const Preprocessing& preprocessing,
                                             std::span<const InputSignature> model_inputs) {
  SLUICE_RETURN_IF_ERROR(CheckRawInputs(preprocessing.raw_inputs));
  if (preprocessing.functions.size() > kMaxPreprocessingFunctions) {
    return InvalidArgumentError("preprocessing: ", preprocessing.functions.size(),
                                " functions, more than the limit of ", kMaxPreprocessingFunctions,
                                " (kMaxPreprocessingFunctions)");
  }
  BoundPreprocessing bound;
  bound.raw_inputs_ = preprocessing.raw_inputs;
  bound.model_inputs_.assign(model_inputs.begin(), model_inputs.end());
  ElementSpec spec = RawElementSpec(preprocessing.raw_inputs);
  for (size_t i = 0; i < preprocessing.functions.size(); ++i) {
    const ElementFunctionPtr& fn = preprocessing.functions[i];
    if (fn == nullptr) return InvalidArgumentError("preprocessing: function ", i, " is null");
    spec::ElementFunction fn_spec;
    Status serializable = fn->ToSpec(&fn_spec);
    if (!serializable.ok()) {
      return InvalidArgumentError("preprocessing: function ", i, " (", fn->name(),
                                  ") cannot be exported: ", serializable.message());
    }
    if (IsRandomFunction(fn_spec)) {
      return InvalidArgumentError("preprocessing: function ", i, " (", fn->name(),
                                  ") is random, and serving must be deterministic: export its inference form "
                                  "(center_crop for a random crop; no flip)");
    }
    Result<BoundElementFunction> bound_fn = fn->Bind(spec);
    if (!bound_fn.ok()) {
      return InvalidArgumentError("preprocessing: function ", i, " (", fn->name(), ") on ", spec.ToString(), ": ",
                                  bound_fn.status().message());
    }
    spec = bound_fn->output_spec;
    bound.chain_.push_back(*std::move(bound_fn));
  }
  for (const InputSignature& input : model_inputs) {
    Result<size_t> index = spec.IndexOf(input.name);
    if (!index.ok()) {
      return InvalidArgumentError("preprocessing: its output ", spec.ToString(), " has no component '", input.name,
                                  "', a model input");
    }
    const ComponentSpec& component = spec[*index];
    if (component.dtype != input.dtype || !component.shape.IsFullyDefined() ||
        component.shape.ToShape() != input.shape) {
      return InvalidArgumentError("preprocessing: its output '", input.name, "' is ", component.dtype,
                                  component.shape.ToString(), ", but the model input is ", input.dtype,
                                  input.shape.ToString(), " (per element; pad_or_truncate fixes a length)");
    }
    bound.model_input_components_.push_back(*index);
  }
  return bound;
}

Result<std::vector<Tensor>> BoundPreprocessing::Apply(std::span<const Tensor> raw_batch) const {
  SLUICE_RETURN_IF_ERROR(CheckBatchMatchesSignature(raw_inputs_, raw_batch));
  const int64_t rows = raw_batch[0].dim(0);
  for (const Tensor& raw : raw_batch) {
    if (raw.dim(0) != rows) {
      return InvalidArgumentError("preprocessing: raw inputs have different batch sizes (", rows, " and ",
                                  raw.dim(0), ")");
    }
  }
  std::vector<Tensor> batch;
  for (const InputSignature& input : model_inputs_) {
    SLUICE_ASSIGN_OR_RETURN(Tensor tensor, Tensor::TryAllocate(input.dtype, input.shape.Prepended(rows)));
    batch.push_back(std::move(tensor));
  }
  for (int64_t row = 0; row < rows; ++row) {
    Element element;
    for (const Tensor& raw : raw_batch) element.components.push_back_row(raw, row);
    for (const BoundElementFunction& fn : chain_) {
      Result<Element> applied = fn.apply(std::move(element));
      if (!applied.ok()) return applied.status().WithContext(StrCat("preprocessing row ", row));
      element = *std::move(applied);
    }
    for (size_t i = 0; i < batch.size(); ++i) CopyIntoRows(element[model_input_components_[i]], batch[i], row);
  }
  return batch;
}

}  // namespace sluice
