// Exported models: an inference bundle that a fresh process loads and calls
// without the code that built the model, like a TensorFlow SavedModel with
// one serving signature.
//
// A bundle is a directory holding
//   graph.pb          the model's structure and input signature
//                     (sluice.model.ModelGraph, model/model.proto)
//   weights.sluice    every variable by name (model/checkpoint_file.h)
//   preprocessing.pb  optional: the raw inputs and the element functions
//   assets/           that turn them into the model's inputs, with the files
//                     they read (model/preprocessing_file.h)
// written into a temporary directory and renamed into place, so a reader
// never sees half a bundle. A bundle is self-contained: the vocabulary a
// lookup or wordpiece function reads is copied into assets/ and named
// relative to the bundle, so the directory may be moved or copied.
//
// With preprocessing, the bundle serves raw inputs (serialized
// tf.train.Example records, text, encoded images) exactly as the training
// pipeline's map chain prepared them (model/preprocessing.h): export the
// per-element functions of that chain, from the raw record to the model's
// inputs; the input contract (raw_inputs()) names the raw inputs, and
// CallRaw applies the functions to each element of a batch of them on the
// caller's thread, stacks the results and calls the model. Random functions
// are refused at export, naming the function.
//
// The signatures are enforced on every call: a wrong dtype, rank or feature
// size is InvalidArgument naming the input and both shapes; the batch
// dimension is free. Dropout is off (inference mode). Loading bounds every
// size it reads from the files, and a damaged file is DataLoss naming it.
// Thread safety: one thread calls an ExportedModel at a time.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "sluice/model/model.h"
#include "sluice/model/preprocessing.h"

namespace sluice {

struct ExportOptions {
  // The functions from raw inputs to the model's inputs; none: the bundle
  // takes the model's inputs only.
  std::optional<Preprocessing> preprocessing;
};

// Writes `model` to `directory` (which must not exist yet). With
// preprocessing, InvalidArgument naming the function when the chain cannot
// produce the model's inputs, is random, or holds a C++ callable.
Status ExportModel(Model& model, const std::string& directory, const ExportOptions& options = {});

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

  // Whether the bundle carries preprocessing, and so takes raw inputs.
  bool has_preprocessing() const { return preprocessing_.has_value(); }
  // The raw inputs CallRaw takes (per element); empty without preprocessing.
  std::span<const InputSignature> raw_inputs() const;
  // The outputs for a batch of raw inputs, in raw_inputs() order, each
  // [N] + its per-element shape: every element preprocessed, the results
  // stacked, then the model. FailedPrecondition without preprocessing.
  Result<std::vector<Tensor>> CallRaw(std::span<const Tensor> raw_inputs);
  // Raw inputs by name; a missing or unknown name is InvalidArgument.
  Result<std::map<std::string, Tensor>> CallRaw(const std::map<std::string, Tensor>& raw_inputs);

 private:
  ExportedModel(std::unique_ptr<Model> model, std::optional<BoundPreprocessing> preprocessing)
      : model_(std::move(model)), preprocessing_(std::move(preprocessing)) {}
  std::map<std::string, Tensor> Named(std::vector<Tensor> outputs) const;

  std::unique_ptr<Model> model_;
  std::optional<BoundPreprocessing> preprocessing_;
};

}  // namespace sluice
