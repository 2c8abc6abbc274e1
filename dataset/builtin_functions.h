// Built-in element functions (for map). Unlike C++ callables they are
// serializable, so a graph made of them can be written as a pipeline spec
// (dataset/pipeline_spec.proto), and their output specs are inferred exactly.
// The numeric ones call the ops/ kernels the executor uses.
//
// Components are addressed by name through ElementSpec::IndexOf: a named
// component by its name, a positional one by "0", "1", ... An empty
// `component` means every component (cast, scale_shift) or the only one
// (reshape, one_hot, compare: then the element must have one component).
// Names are resolved in Bind, when the map using the function is built, so
// one function object can serve several maps with its component at
// different positions in each.
//
// The compare predicate (for filter) is in compare_predicate.h, included here.
//
// Thread safety: functions are immutable; Bind, and the bound functions it
// returns, may be called concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sluice/dataset/compare_predicate.h"
#include "sluice/dataset/functions.h"
#include "sluice/ops/decode_raw.h"

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

// The bytes of a string component as numbers (ops/decode_raw.h,
// tf.io.decode_raw): shape S becomes S + [bytes / size of dtype]. With
// fixed_length the last dim is known (fixed_length / size) and the function
// is row-wise; without it the strings of one element must have one length.
Result<ElementFunctionPtr> MakeDecodeRawFunction(std::string component, DecodeRawOptions options);

namespace spec {
class ElementFunction;
}  // namespace spec

// The function a spec message describes (the inverse of ToSpec),
// InvalidArgument when the message is incomplete or its arguments invalid.
Result<ElementFunctionPtr> ElementFunctionFromSpec(const spec::ElementFunction& fn);

}  // namespace sluice
