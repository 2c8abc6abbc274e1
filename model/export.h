// Exported models: an inference bundle that a fresh process loads and calls
// without the code that built the model, like a TensorFlow SavedModel with
// one serving signature.
//
// A bundle is a directory holding
//   graph.pb          the model's structure and input signature
//                     (sluice.model.ModelGraph, model/model.proto)
//   weights.sluice    every variable by name (model/checkpoint_file.h)
// written into a temporary directory and renamed into place, so a reader
// never sees half a bundle.
//
// The signature is enforced on every call: a wrong dtype, rank or feature
// size is InvalidArgument naming the input and both shapes; the batch
// dimension is free. Dropout is off (inference mode).
// Thread safety: one thread calls an ExportedModel at a time.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "sluice/model/model.h"

namespace sluice {

// Writes `model` to `directory` (which must not exist yet).
Status ExportModel(Model& model, const std::string& directory);

class ExportedModel {
 public:
  // NotFound for a missing bundle, DataLoss for a damaged one.
  static Result<std::unique_ptr<ExportedModel>> Load(const std::string& directory);

  const std::vector<InputSignature>& inputs() const { return model_->inputs(); }
  const std::vector<std::string>& output_names() const { return model_->output_names(); }

  // Inputs in signature order.
  Result<std::vector<Tensor>> Call(std::span<const Tensor> inputs);
  // Inputs by name; a missing or unknown name is InvalidArgument.
  Result<std::map<std::string, Tensor>> Call(const std::map<std::string, Tensor>& inputs);

 private:
  explicit ExportedModel(std::unique_ptr<Model> model) : model_(std::move(model)) {}
  std::unique_ptr<Model> model_;
};

}  // namespace sluice
