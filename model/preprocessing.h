// Preprocessing that travels with an exported model (model/export.h): the
// element functions that turn raw inputs (serialized tf.train.Example
// records, text, encoded images) into a model's inputs, as the map chain of
// the training pipeline does, so that serving applies exactly the training
// pipeline's per-element work (no training/serving skew). Batching is the
// caller's: a batch of raw inputs is preprocessed element by element and the
// results stacked.
//
//   Preprocessing preprocessing{
//       .raw_inputs = {{"text", DType::kString, Shape{}}},
//       .functions = {*MakeLowerFunction("text"), *MakeSplitWhitespaceFunction("text"), ...}};
//   SLUICE_ASSIGN_OR_RETURN(BoundPreprocessing bound, BindPreprocessing(preprocessing, model.inputs()));
//   SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> model_inputs, bound.Apply(raw_batch));
//
// Binding checks the chain once: each function is bound to the spec the one
// before it produces, starting from the raw inputs (names, dtypes,
// per-element shapes), and the last spec must hold every model input by name
// with the signature's dtype and exact shape (other components, such as a
// label or a mask, are left out). Random functions (those whose spec carries
// a seed: random_flip, decode_jpeg_random_crop, ...) are refused, naming the
// function: serving must be deterministic, so an inference form (center_crop
// instead of a random crop) belongs in the exported chain. C++ callables are
// refused too, as they cannot be written into a bundle.
// Thread safety: a BoundPreprocessing is immutable; Apply may be called
// concurrently.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sluice/dataset/functions.h"
#include "sluice/model/model.h"

namespace sluice {

struct Preprocessing {
  // What a caller passes, per element: name, dtype and shape (a scalar
  // string for a record, a text or an image's bytes).
  std::vector<InputSignature> raw_inputs;
  // Applied in order to each element of raw inputs.
  std::vector<ElementFunctionPtr> functions;
};

// The bounds a bundle's preprocessing must keep (model/preprocessing_file.h
// checks them on load).
inline constexpr size_t kMaxRawInputs = 64;
inline constexpr size_t kMaxPreprocessingFunctions = 1024;

class BoundPreprocessing {
 public:
  const std::vector<InputSignature>& raw_inputs() const { return raw_inputs_; }

  // The model's inputs, batch first, for a batch of raw inputs (raw_inputs()
  // order, each [N] + its per-element shape). InvalidArgument naming the raw
  // input for a wrong dtype or shape; a function's error for an element is
  // returned naming the element's row.
  Result<std::vector<Tensor>> Apply(std::span<const Tensor> raw_batch) const;

 private:
  friend Result<BoundPreprocessing> BindPreprocessing(const Preprocessing& preprocessing,
                                                      std::span<const InputSignature> model_inputs);
  std::vector<InputSignature> raw_inputs_;
  std::vector<BoundElementFunction> chain_;
  std::vector<InputSignature> model_inputs_;
  std::vector<size_t> model_input_components_;  // in the chain's last element
};

// InvalidArgument naming the function and why when the chain cannot serve
// `model_inputs` (above).
Result<BoundPreprocessing> BindPreprocessing(const Preprocessing& preprocessing,
                                             std::span<const InputSignature> model_inputs);

// Whether a function's spec describes a random function: one with a seed.
bool IsRandomFunction(const spec::ElementFunction& fn);

}  // namespace sluice
