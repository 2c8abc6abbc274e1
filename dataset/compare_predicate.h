// compare: the built-in predicate (for filter), true when a numeric scalar
// component compares to a constant as asked ("label != 0"). Like the built-in
// element functions (builtin_functions.h) it is serializable as part of a
// pipeline spec and addresses its component by name.
// Thread safety: immutable; Bind, and the predicate it returns, may be
// called concurrently.
#pragma once

#include <string>

#include "sluice/dataset/functions.h"

namespace sluice {

enum class Comparison { kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual };

// True when `component` (a numeric scalar; empty: the element's only
// component) compares to `value` as asked. Both sides are compared as doubles
// (exact for integers up to 2^53).
Result<PredicatePtr> MakeComparePredicate(std::string component, Comparison comparison,
                                          double value);

namespace spec {
class Predicate;
}  // namespace spec

// The predicate a spec message describes (the inverse of ToSpec): the
// compare predicate, or with `expression` set an expression predicate
// (expression_functions.h); InvalidArgument when its comparison is unknown.
Result<PredicatePtr> PredicateFromSpec(const spec::Predicate& predicate);

}  // namespace sluice
