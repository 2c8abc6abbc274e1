// Built-in element functions (for map) and predicates (for filter). Unlike
// C++ callables they are serializable, so a graph made of them can be written
// as a pipeline spec (dataset/pipeline_spec.proto), and their output specs are
// inferred exactly. The numeric ones call the ops/ kernels the executor uses.
//
// Components are addressed by name through ElementSpec::IndexOf: a named
// component by its name, a positional one by "0", "1", ... An empty
// `component` means every component (cast, scale_shift) or the only one
// (reshape, one_hot, compare: then the element must have one component).
//
// Binding: Apply() receives bare elements, without their spec, so a function
// that names a component resolves the name when OutputSpec (CheckSpec for a
// predicate) is first called, i.e. when the map or filter using it is built,
// and keeps the index. Using the same function object where the name
// resolves to another position is a FailedPrecondition error from OutputSpec;
// make one function per use in that case. Applying a function that names
// components before any OutputSpec is a FailedPrecondition error.
//
// Thread safety: OutputSpec/CheckSpec and Apply may be called concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dataset/functions.h"

namespace sluice {

// Converts the component(s) to `dtype` (ops/cast.h): numeric to numeric, or
// string to string. Components already of `dtype` pass through unchanged.
Result<ElementFunctionPtr> MakeCastFunction(std::string component, DType dtype);

// x * scale + shift (ops/scale_shift.h); integer and bool components become
// float32, floating ones keep their dtype.
Result<ElementFunctionPtr> MakeScaleShiftFunction(std::string component, double scale,
                                                  double shift);

// Reshapes one component to `shape` (rank <= kMaxRank); at most one dim may
// be -1, inferred from the element count. Not row-wise: it sees one element.
Result<ElementFunctionPtr> MakeReshapeFunction(std::string component, std::vector<int64_t> shape);

// One-hot encodes one uint8/int32/int64 component (ops/one_hot.h): shape S
// becomes S + [depth], dtype `dtype`; out-of-range indices give zero rows.
Result<ElementFunctionPtr> MakeOneHotFunction(std::string component, int64_t depth,
                                              DType dtype = DType::kFloat32);

// Keeps the named components, in this order (at least one, no repeats).
Result<ElementFunctionPtr> MakeSelectFunction(std::vector<std::string> components);

// Renames the components: one new, non-empty, distinct name per component.
Result<ElementFunctionPtr> MakeRenameFunction(std::vector<std::string> new_names);

enum class Comparison { kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual };

// True when `component` (a numeric scalar) compares to `value` as asked.
// Both sides are compared as doubles (exact for integers up to 2^53).
Result<PredicatePtr> MakeComparePredicate(std::string component, Comparison comparison,
                                          double value);

namespace spec {
class ElementFunction;
class Predicate;
}  // namespace spec

// The function or predicate a spec message describes (the inverse of ToSpec),
// InvalidArgument when the message is incomplete or its arguments invalid.
Result<ElementFunctionPtr> ElementFunctionFromSpec(const spec::ElementFunction& fn);
Result<PredicatePtr> PredicateFromSpec(const spec::Predicate& predicate);

}  // namespace sluice
