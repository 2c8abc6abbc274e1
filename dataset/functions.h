// The functions that ops apply: ElementFunction (map), Predicate (filter)
// and DatasetFunction (interleave). Each is either built in, and then
// serializable as part of a pipeline spec, or a C++ callable, which runs
// in-process only and refuses to serialize with a clear error.
//
// Element functions and predicates are bound to an input spec once, when
// the op using them is built: Bind resolves component names to positions and
// returns a callable for elements of that spec. The function object itself
// holds no per-use state, so one object can serve several ops, with its
// components at different positions in each. What Bind returns holds all it
// needs, by value, and may outlive the function object.
// Thread safety: functions are immutable; Bind, the callables it returns and
// DatasetFunction::Apply may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "sluice/core/element.h"
#include "sluice/dataset/dataset.h"

namespace sluice {

namespace spec {
class ElementFunction;
class Predicate;
}  // namespace spec

// An ElementFunction bound to one input spec (ElementFunction::Bind).
struct BoundElementFunction {
  // The spec of the outputs for elements of the bound input spec.
  ElementSpec output_spec;
  // Applies the function to an element of the input spec it was bound to.
  // Thread-safe: may be called concurrently.
  std::function<Result<Element>(Element)> apply;
  // True when applying `apply` to a run (k elements stacked along a new
  // leading dimension) equals applying it to each and stacking the results,
  // so map can pass whole runs through.
  bool row_wise = false;
  // Set for a random function: `apply` with the element's seed, from which
  // it draws all its random numbers. map passes each element the seed
  // derived from (the function's seed, map's iterator, the element's
  // position in map's input) (dataset/element_seeds.h), so draws do not
  // depend on parallelism or on a restore. `apply` (for the callers that
  // have no seed to give) then fails with FailedPrecondition.
  // REQUIRES: row_wise is false when set.
  std::function<Result<Element>(Element, uint64_t element_seed)> apply_seeded;
  // A random function's own seed, when it was given one; else map derives
  // the function's seed from the pipeline seed.
  std::optional<uint64_t> seed;
  // Bytes the function holds for as long as it is used, beside the elements
  // it makes (a vocabulary's table): map charges them to its traversal's RAM
  // budget while its iterator lives (ResourceExhausted when they don't fit).
  int64_t held_bytes = 0;
};

class ElementFunction {
 public:
  virtual ~ElementFunction() = default;
  // For people: "cast(x -> float32)", "lambda".
  virtual std::string name() const = 0;
  // The function for elements of `input`, with its output spec; an error
  // (naming the function) if the input can't be handled.
  virtual Result<BoundElementFunction> Bind(const ElementSpec& input) const = 0;
  virtual Status ToSpec(spec::ElementFunction* out) const = 0;
};
using ElementFunctionPtr = std::shared_ptr<const ElementFunction>;

// A Predicate bound to one input spec (Predicate::Bind): true to keep an
// element of that spec. Thread-safe: may be called concurrently.
using BoundPredicate = std::function<Result<bool>(const Element&)>;

class Predicate {
 public:
  virtual ~Predicate() = default;
  virtual std::string name() const = 0;
  // The predicate for elements of `input`; an error (naming the predicate)
  // if it can't be evaluated on them.
  virtual Result<BoundPredicate> Bind(const ElementSpec& input) const = 0;
  virtual Status ToSpec(spec::Predicate* out) const = 0;
};
using PredicatePtr = std::shared_ptr<const Predicate>;

// Maps an element to a dataset (interleave's function).
class DatasetFunction {
 public:
  virtual ~DatasetFunction() = default;
  virtual std::string name() const = 0;
  // The element spec of the datasets it returns for inputs of `input`.
  virtual Result<ElementSpec> OutputSpec(const ElementSpec& input) const = 0;
  virtual Result<DatasetPtr> Apply(const Element& element) const = 0;
  // Writes the function as a pipeline that starts with an element_source.
  virtual Status ToSpec(spec::Pipeline* out) const = 0;
};
using DatasetFunctionPtr = std::shared_ptr<const DatasetFunction>;

// A C++ callable as an ElementFunction. Its output spec cannot be traced, so
// give it; without one the output is declared to have the input's spec.
// Either way every output element is checked against the declared spec, and
// a mismatch is an InvalidArgument error for that element.
// `row_wise`: the callable works on runs of elements as on one element with a
// leading dimension added (e.g. x * 2); lets map skip per-element calls.
struct LambdaFunctionOptions {
  std::optional<ElementSpec> output_spec;
  bool row_wise = false;
};
ElementFunctionPtr MakeLambdaFunction(std::function<Result<Element>(Element)> fn,
                                      LambdaFunctionOptions options = {});
PredicatePtr MakeLambdaPredicate(std::function<Result<bool>(const Element&)> fn);
// `output_spec` is required: the spec of every dataset the callable returns
// (a returned dataset with another spec is an InvalidArgument error).
DatasetFunctionPtr MakeLambdaDatasetFunction(std::function<Result<DatasetPtr>(const Element&)> fn,
                                             ElementSpec output_spec);

}  // namespace sluice
