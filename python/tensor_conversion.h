// Tensors between Sluice and NumPy.
//
// To Python, numeric tensors become read-only numpy arrays that view the
// tensor's buffer: no copy, and the array's base (a capsule holding the
// tensor) keeps the buffer alive after the iterator and the dataset are gone.
// String tensors become numpy object arrays of `bytes` (a copy: numpy has no
// view of variable-length strings), and a scalar string (a record) is one
// `bytes`; bfloat16 becomes float32 (numpy has no
// bfloat16).
//
// From Python, anything numpy.asarray takes becomes a tensor (a copy, made
// once when a pipeline is built): bool, uint8, int32, int64, float16,
// float32 and float64 arrays keep their dtype; bytes and str arrays (and
// object arrays of them) become string tensors. Other dtypes are a
// TypeError naming the argument.
// Thread safety: call with the GIL held.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string_view>

#include "sluice/core/element.h"
#include "sluice/core/tensor.h"

namespace sluice::python {

// The array for `tensor` (see above).
pybind11::object TensorToNumpy(const Tensor& tensor);
// The tensor for `value`; `what` names it in errors ("from_tensor_slices: component 'x'").
Tensor NumpyToTensor(pybind11::handle value, std::string_view what);

// Sluice's dtype for a numpy dtype, or a TypeError naming `what`.
DType DTypeFromNumpy(const pybind11::dtype& dtype, std::string_view what);
// The numpy dtype of a Sluice dtype (bfloat16: float32; string: object).
pybind11::dtype NumpyDTypeOf(DType dtype);
// A dtype given as a Sluice name ("float32"), a numpy dtype or a numpy type.
DType DTypeFromPython(pybind11::handle value, std::string_view what);

// Elements of one spec as Python sees them: a dict {name: array} when
// every component is named, else a tuple of arrays, or the one array of a
// one-component positional element. Keeps the names as Python strings.
class ElementConverter {
 public:
  explicit ElementConverter(const ElementSpec& spec);
  pybind11::object operator()(const Element& element) const;
  // Each component's tensor through `convert` (a numpy array, a torch tensor).
  template <typename TensorConverter>
  pybind11::object Convert(const Element& element, TensorConverter&& convert) const {
    if (as_dict_) {
      pybind11::dict out;
      for (size_t i = 0; i < element.size(); ++i) out[names_[i]] = convert(element[i]);
      return out;
    }
    if (element.size() == 1) return convert(element[0]);
    pybind11::tuple out(element.size());
    for (size_t i = 0; i < element.size(); ++i) out[i] = convert(element[i]);
    return out;
  }

 private:
  bool as_dict_ = false;
  std::vector<pybind11::str> names_;
};

}  // namespace sluice::python
