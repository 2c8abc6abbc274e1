#include "sluice/python/tensor_conversion.h"

#include <array>
#include <bit>
#include <cstring>

#include "sluice/core/tstring.h"
#include "sluice/python/errors.h"

namespace sluice::python {
namespace py = pybind11;

namespace {

// A capsule owning a copy of the tensor: the array's base.
py::capsule OwnerOf(const Tensor& tensor) {
  return py::capsule(new Tensor(tensor), [](void* p) { delete static_cast<Tensor*>(p); });
}

std::vector<py::ssize_t> DimsOf(const Shape& shape) {
  return std::vector<py::ssize_t>(shape.dims().begin(), shape.dims().end());
}

py::object StringsToNumpy(const Tensor& tensor) {
  if (tensor.shape().rank() == 0) {
    const TString& string = *tensor.data<TString>();
    return py::bytes(string.data(), string.size());
  }
  py::array out(py::dtype("O"), DimsOf(tensor.shape()));
  auto** slots = static_cast<PyObject**>(out.mutable_data());
  const TString* strings = tensor.data<TString>();
  const int64_t n = tensor.shape().NumElements();
  for (int64_t i = 0; i < n; ++i) {
    PyObject* bytes = PyBytes_FromStringAndSize(strings[i].data(), static_cast<py::ssize_t>(strings[i].size()));
    if (bytes == nullptr) throw py::error_already_set();
    Py_XDECREF(slots[i]);  // numpy fills new object arrays with None
    slots[i] = bytes;
  }
  return out;
}

py::object BFloat16ToNumpy(const Tensor& tensor) {
  py::array_t<float> out(DimsOf(tensor.shape()));
  const BFloat16* in = tensor.data<BFloat16>();
  float* values = out.mutable_data();
  const int64_t n = tensor.shape().NumElements();
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<float>(in[i]);
  return out;
}

// The bytes of a str (UTF-8) or bytes item of a string tensor.
std::string_view StringItem(py::handle item, std::string_view what, int64_t index) {
  if (PyBytes_Check(item.ptr())) return std::string_view(PyBytes_AS_STRING(item.ptr()), PyBytes_GET_SIZE(item.ptr()));
  if (PyUnicode_Check(item.ptr())) {
    py::ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(item.ptr(), &size);
    if (utf8 == nullptr) throw py::error_already_set();
    return std::string_view(utf8, size);
  }
  throw py::type_error(std::string(what) + ": element " + std::to_string(index) + " is " +
                       py::str(item.get_type().attr("__name__")).cast<std::string>() + ", not bytes or str");
}

}  // namespace

py::dtype NumpyDTypeOf(DType dtype) {
  // Made once, on first use with the GIL held, and kept for the process (never
  // destroyed: the interpreter may be gone at exit). Parsing a dtype string
  // costs as much as the rest of making an array.
  static const auto* const kDTypes = new std::array<py::dtype, 9>{
      py::dtype("?"),   // kBool
      py::dtype("u1"),  // kUInt8
      py::dtype("i4"),  // kInt32
      py::dtype("i8"),  // kInt64
      py::dtype("f2"),  // kFloat16
      py::dtype("f4"),  // kBFloat16 (converted to float32)
      py::dtype("f4"),  // kFloat32
      py::dtype("f8"),  // kFloat64
      py::dtype("O"),   // kString
  };
  static_assert(static_cast<size_t>(DType::kString) == 8);
  return (*kDTypes)[static_cast<size_t>(dtype)];
}

py::object TensorToNumpy(const Tensor& tensor) {
  if (tensor.dtype() == DType::kString) return StringsToNumpy(tensor);
  if (tensor.dtype() == DType::kBFloat16) return BFloat16ToNumpy(tensor);
  // numpy's C API directly (as py::array's constructor does, without its
  // std::vectors of dims and strides): a C-contiguous array over the
  // tensor's buffer, read-only since the buffer may be shared (a cached or
  // repeated element), whose base owns a copy of the tensor.
  const auto& dims = tensor.shape().dims();
  const int rank = static_cast<int>(dims.size());
  Py_intptr_t shape[kMaxRank];
  Py_intptr_t strides[kMaxRank];
  Py_intptr_t stride = static_cast<Py_intptr_t>(DTypeSize(tensor.dtype()));
  for (int i = rank; i-- > 0;) {
    shape[i] = static_cast<Py_intptr_t>(dims[i]);
    strides[i] = stride;
    stride *= shape[i];
  }
  py::capsule owner = OwnerOf(tensor);
  auto& api = py::detail::npy_api::get();
  // PyArray_NewFromDescr steals a reference to the dtype; flags 0: read-only.
  py::object out = py::reinterpret_steal<py::object>(
      api.PyArray_NewFromDescr_(api.PyArray_Type_, NumpyDTypeOf(tensor.dtype()).release().ptr(), rank, shape, strides,
                                const_cast<void*>(tensor.raw_data()), /*flags=*/0, nullptr));
  if (!out) throw py::error_already_set();
  if (api.PyArray_SetBaseObject_(out.ptr(), owner.release().ptr()) != 0) throw py::error_already_set();
  return out;
}

DType DTypeFromNumpy(const py::dtype& dtype, std::string_view what) {
  const char kind = dtype.kind();
  const py::ssize_t size = dtype.itemsize();
  if (kind == 'b') return DType::kBool;
  if (kind == 'u' && size == 1) return DType::kUInt8;
  if (kind == 'i' && size == 4) return DType::kInt32;
  if (kind == 'i' && size == 8) return DType::kInt64;
  if (kind == 'f' && size == 2) return DType::kFloat16;
  if (kind == 'f' && size == 4) return DType::kFloat32;
  if (kind == 'f' && size == 8) return DType::kFloat64;
  if (kind == 'S' || kind == 'U' || kind == 'O') return DType::kString;
  throw py::type_error(std::string(what) + ": numpy dtype " + py::str(py::handle(dtype)).cast<std::string>() +
                       " has no Sluice dtype (expected bool, uint8, int32, int64, float16, float32, "
                       "float64, bytes or str)");
}

DType DTypeFromPython(py::handle value, std::string_view what) {
  if (value.is_none()) {  // numpy would read None as float64
    throw py::type_error(std::string(what) +
                         ": expected a dtype (a name such as 'float32', or a numpy dtype), got None");
  }
  if (py::isinstance<py::str>(value)) {
    const std::string name = value.cast<std::string>();
    Result<DType> dtype = ParseDType(name == "bytes" || name == "str" ? "string" : name);
    if (dtype.ok()) return *dtype;
    throw py::type_error(std::string(what) + ": " + dtype.status().message());
  }
  py::module_ numpy = py::module_::import("numpy");
  py::dtype dtype;
  try {
    dtype = py::reinterpret_steal<py::dtype>(numpy.attr("dtype")(value).release());
  } catch (const py::error_already_set&) {
    throw py::type_error(std::string(what) + ": expected a dtype (a name such as 'float32', or a numpy dtype), got " +
                         py::repr(value).cast<std::string>());
  }
  return DTypeFromNumpy(dtype, what);
}

Tensor NumpyToTensor(py::handle value, std::string_view what) {
  // bytes and str are scalar strings as they are: numpy's bytes dtype ('S')
  // would drop their trailing NUL bytes.
  if (PyBytes_Check(value.ptr()) || PyUnicode_Check(value.ptr())) {
    Tensor scalar = Tensor::Allocate(DType::kString, Shape{});
    scalar.mutable_data<TString>()[0] = StringItem(value, what, 0);
    return scalar;
  }
  // PyArray_FromAny, as numpy.asarray; on failure numpy.asarray again, for its message.
  py::array array = py::array::ensure(value);
  if (!array) {
    try {
      array = py::module_::import("numpy").attr("asarray")(value);
    } catch (const py::error_already_set& e) {
      throw py::type_error(std::string(what) + ": cannot be made an array: " + e.what());
    }
  }
  // A sequence of bytes keeps them as objects, trailing NULs included (an
  // 'S' array the caller made has lost them already).
  if (array.dtype().kind() == 'S' && !py::isinstance<py::array>(value)) {
    array = py::module_::import("numpy").attr("array")(value, "O");
  }
  // Bytes in the other order ('>' on this little-endian machine) are put in this one's.
  static_assert(std::endian::native == std::endian::little);
  if (array.dtype().byteorder() == '>') {
    array = array.attr("astype")(array.dtype().attr("newbyteorder")("="));
  }
  const DType dtype = DTypeFromNumpy(array.dtype(), what);
  if (array.ndim() > kMaxRank) {
    throw py::value_error(std::string(what) + ": rank " + std::to_string(array.ndim()) + " is above the largest, " +
                          std::to_string(kMaxRank));
  }
  std::vector<int64_t> dims(array.shape(), array.shape() + array.ndim());
  Result<Shape> shape = Shape::FromDims(dims);
  if (!shape.ok()) throw py::value_error(std::string(what) + ": " + shape.status().message());
  Result<Tensor> allocated = Tensor::TryAllocate(dtype, *shape, {.fill = Buffer::Fill::kUninitialized});
  if (!allocated.ok()) throw StatusError(allocated.status().WithContext(what));
  Tensor tensor = std::move(allocated).value();
  const int64_t n = shape->NumElements();
  if (dtype == DType::kString) {
    py::array objects = py::module_::import("numpy").attr("ascontiguousarray")(array, "O");
    PyObject* const* items = static_cast<PyObject* const*>(objects.data());
    TString* out = tensor.mutable_data<TString>();
    for (int64_t i = 0; i < n; ++i) out[i] = StringItem(items[i], what, i);
    return tensor;
  }
  py::array contiguous = (array.flags() & py::array::c_style) != 0
                             ? array
                             : py::array(py::module_::import("numpy").attr("ascontiguousarray")(array));
  std::memcpy(tensor.raw_data(), contiguous.data(), static_cast<size_t>(n) * DTypeSize(dtype));
  return tensor;
}

ElementConverter::ElementConverter(const ElementSpec& spec) {
  as_dict_ = spec.size() > 0;
  for (size_t i = 0; i < spec.size(); ++i) {
    if (spec[i].name.empty()) as_dict_ = false;
    names_.emplace_back(spec.DisplayName(i));
  }
}

py::object ElementConverter::operator()(const Element& element) const {
  return Convert(element, [](const Tensor& tensor) { return TensorToNumpy(tensor); });
}

}  // namespace sluice::python
