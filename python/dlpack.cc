#include "sluice/python/dlpack.h"

#include <dlpack/dlpack.h>

#include <string>
#include <vector>

#include "sluice/python/tensor_conversion.h"

namespace sluice::python {
namespace py = pybind11;

namespace {

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

// The DLManagedTensor and what it points into: the tensor (which keeps the
// buffer alive), its dims and its strides.
struct DlpackOwner {
  Tensor tensor;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements, row-major
  DLManagedTensor managed{};
};

void DeleteOwner(DLManagedTensor* self) { delete static_cast<DlpackOwner*>(self->manager_ctx); }

// The capsule's destructor: frees the tensor unless a consumer took it.
void DestroyUnconsumed(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kUsedCapsuleName)) return;
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
  if (managed != nullptr) {
    managed->deleter(managed);
  } else {
    PyErr_WriteUnraisable(capsule);
  }
  PyErr_Restore(type, value, traceback);
}

DLDataType DlpackDTypeOf(DType dtype, DlpackBool bools) {
  switch (dtype) {
    case DType::kBool:
      if (bools == DlpackBool::kAsUInt8) return {kDLUInt, 8, 1};
      break;
    case DType::kUInt8: return {kDLUInt, 8, 1};
    case DType::kInt32: return {kDLInt, 32, 1};
    case DType::kInt64: return {kDLInt, 64, 1};
    case DType::kFloat16: return {kDLFloat, 16, 1};
    case DType::kBFloat16: return {kDLBfloat, 16, 1};
    case DType::kFloat32: return {kDLFloat, 32, 1};
    case DType::kFloat64: return {kDLFloat, 64, 1};
    case DType::kString: break;
  }
  throw py::type_error("DLPack: a " + std::string(DTypeName(dtype)) + " tensor has no DLPack form" +
                       (dtype == DType::kBool ? " (DLPack 0.6 has no boolean type)" : "") +
                       "; numpy.asarray(tensor) gives its numpy form");
}

// What `_sluice.Tensor` holds.
struct PyTensor {
  Tensor tensor;
};

py::capsule Dlpack(const PyTensor& self, py::object stream, const py::kwargs& kwargs) {
  if (!stream.is_none() && py::int_(stream).cast<int64_t>() != -1) {
    throw py::buffer_error("__dlpack__: a host tensor has no stream to synchronise with (stream must be None)");
  }
  bool copy = false;
  for (const auto& [key, value] : kwargs) {
    const std::string name = py::str(key);
    if (name == "max_version") continue;  // an unversioned producer answers with the legacy capsule
    if (name == "copy") {
      copy = !value.is_none() && value.cast<bool>();
    } else if (name == "dl_device") {
      if (!value.is_none() && !value.equal(py::make_tuple(static_cast<int>(kDLCPU), 0))) {
        throw py::buffer_error("__dlpack__: the tensor is in host memory (kDLCPU, 0); cannot export it to " +
                               py::repr(value).cast<std::string>());
      }
    } else {
      throw py::type_error("__dlpack__() got an unexpected keyword argument '" + name + "'");
    }
  }
  return TensorToDlpack(copy ? self.tensor.Clone() : self.tensor);
}

py::object ToNumpy(const PyTensor& self, py::object dtype, py::object copy) {
  py::object array = TensorToNumpy(self.tensor);
  if (!dtype.is_none()) array = py::module_::import("numpy").attr("asarray")(array, dtype);
  if (!copy.is_none() && copy.cast<bool>()) array = array.attr("copy")();
  return array;
}

}  // namespace

py::capsule TensorToDlpack(const Tensor& tensor, DlpackBool bools) {
  const DLDataType dtype = DlpackDTypeOf(tensor.dtype(), bools);
  if (tensor.device().type != DeviceType::kCpu) {
    throw py::buffer_error("DLPack: the tensor is in " + tensor.device().ToString() +
                           " memory; only host tensors are exported");
  }
  auto owner = std::make_unique<DlpackOwner>();
  owner->tensor = tensor;
  const auto dims = tensor.shape().dims();
  owner->shape.assign(dims.begin(), dims.end());
  owner->strides.resize(owner->shape.size());
  int64_t stride = 1;
  for (size_t i = owner->shape.size(); i-- > 0;) {
    owner->strides[i] = stride;
    stride *= owner->shape[i];
  }
  DLTensor& dl = owner->managed.dl_tensor;
  dl.data = const_cast<void*>(owner->tensor.raw_data());  // consumers must not write (see the header)
  dl.device = {kDLCPU, 0};
  dl.ndim = static_cast<int32_t>(owner->shape.size());
  dl.dtype = dtype;
  dl.shape = owner->shape.data();
  dl.strides = owner->strides.data();
  dl.byte_offset = 0;
  owner->managed.manager_ctx = owner.get();
  owner->managed.deleter = DeleteOwner;
  PyObject* capsule = PyCapsule_New(&owner->managed, kCapsuleName, DestroyUnconsumed);
  if (capsule == nullptr) throw py::error_already_set();
  owner.release();  // the capsule's, until a consumer takes it
  return py::reinterpret_steal<py::capsule>(capsule);
}

void RegisterDlpack(py::module_& m) {
  py::class_<PyTensor>(m, "Tensor",
                       "One Sluice tensor, sharing its buffer: a DLPack producer (numpy.from_dlpack, "
                       "torch.from_dlpack) and numpy.asarray's zero-copy view. Tensor(array) copies an array "
                       "into a new one. Consumers must not write to its memory.")
      .def(py::init([](py::handle value) { return PyTensor{NumpyToTensor(value, "Tensor")}; }), py::arg("value"))
      .def("__dlpack__", &Dlpack, py::arg("stream") = py::none(),
           "A DLPack 0.6 \"dltensor\" capsule viewing the tensor (copy=True: of a copy). TypeError for "
           "string and bool tensors, which DLPack 0.6 cannot describe.")
      .def("__dlpack_device__", [](const PyTensor&) { return py::make_tuple(static_cast<int>(kDLCPU), 0); })
      .def("__array__", &ToNumpy, py::arg("dtype") = py::none(), py::arg("copy") = py::none(),
           "The read-only numpy view of the tensor (strings: object arrays of bytes; bfloat16: float32 copies).")
      .def_property_readonly("shape", [](const PyTensor& self) {
        const auto dims = self.tensor.shape().dims();
        py::tuple shape(dims.size());
        for (size_t i = 0; i < dims.size(); ++i) shape[i] = dims[i];
        return shape;
      })
      .def_property_readonly("dtype", [](const PyTensor& self) { return std::string(DTypeName(self.tensor.dtype())); })
      .def("__repr__", [](const PyTensor& self) { return "_sluice.Tensor(" + self.tensor.DebugString(8) + ")"; });
}

}  // namespace sluice::python
