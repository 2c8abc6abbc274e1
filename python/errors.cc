#include "sluice/python/errors.h"

#include <array>

namespace sluice::python {
namespace py = pybind11;

namespace {

struct ErrorClass {
  StatusCode code;
  const char* name;
  const char* doc;
};

constexpr std::array kErrorClasses = {
    ErrorClass{StatusCode::kCancelled, "CancelledError", "The operation was cancelled (an iterator closed or interrupted)."},
    ErrorClass{StatusCode::kInvalidArgument, "InvalidArgumentError",
               "An argument, a spec or an element is invalid (also a ValueError)."},
    ErrorClass{StatusCode::kNotFound, "NotFoundError", "A file or a component was not found."},
    ErrorClass{StatusCode::kAlreadyExists, "AlreadyExistsError", "Something to be created already exists."},
    ErrorClass{StatusCode::kOutOfRange, "OutOfRangeError", "A value or an index is out of its range."},
    ErrorClass{StatusCode::kResourceExhausted, "ResourceExhaustedError",
               "A RAM budget, a size limit or memory ran out."},
    ErrorClass{StatusCode::kFailedPrecondition, "FailedPreconditionError",
               "The system is not in a state the operation needs."},
    ErrorClass{StatusCode::kUnimplemented, "UnimplementedError", "The operation is not supported (by this op)."},
    ErrorClass{StatusCode::kInternal, "InternalError", "An internal invariant broke: a bug in Sluice."},
    ErrorClass{StatusCode::kDataLoss, "DataLossError", "Data is corrupt or truncated (a record, a checkpoint)."},
    ErrorClass{StatusCode::kDeadlineExceeded, "DeadlineExceededError",
               "A wait passed its deadline (a silent data-service peer, a connect)."},
    ErrorClass{StatusCode::kUnavailable, "UnavailableError",
               "A data-service peer is unreachable or closed the connection."},
    ErrorClass{StatusCode::kUnauthenticated, "UnauthenticatedError",
               "A data-service peer did not prove it holds the shared token."},
};

// Owned by the module (its attributes); borrowed here after registration.
PyObject* g_base_error = nullptr;
std::array<PyObject*, kErrorClasses.size()> g_error_classes{};

PyObject* ClassFor(StatusCode code) {
  for (size_t i = 0; i < kErrorClasses.size(); ++i) {
    if (kErrorClasses[i].code == code) return g_error_classes[i];
  }
  return g_base_error;
}

}  // namespace

StatusCode StatusCodeOf(py::handle exception) {
  for (size_t i = 0; i < kErrorClasses.size(); ++i) {
    if (PyObject_IsInstance(exception.ptr(), g_error_classes[i]) == 1) return kErrorClasses[i].code;
  }
  return StatusCode::kInvalidArgument;
}

void SetPythonError(const Status& status) {
  PyObject* cls = ClassFor(status.code());
  py::object error = py::reinterpret_steal<py::object>(PyObject_CallFunction(cls, "s", status.message().c_str()));
  if (!error) return;  // the call set its own error
  error.attr("code") = py::str(std::string(StatusCodeName(status.code())));
  PyErr_SetObject(cls, error.ptr());
}

void RegisterErrors(py::module_& module) {
  py::object base = py::reinterpret_steal<py::object>(
      PyErr_NewExceptionWithDoc("sluice.Error",
                                "The base class of Sluice's errors. `code` names the status code "
                                "('InvalidArgument', 'DataLoss', ...); str(error) is the full message.",
                                PyExc_Exception, nullptr));
  module.attr("Error") = base;
  g_base_error = base.ptr();
  for (size_t i = 0; i < kErrorClasses.size(); ++i) {
    const ErrorClass& error = kErrorClasses[i];
    py::object bases = error.code == StatusCode::kInvalidArgument
                           ? py::object(py::make_tuple(base, py::handle(PyExc_ValueError)))
                           : py::object(base);
    py::object cls = py::reinterpret_steal<py::object>(
        PyErr_NewExceptionWithDoc((std::string("sluice.") + error.name).c_str(), error.doc, bases.ptr(), nullptr));
    module.attr(error.name) = cls;
    g_error_classes[i] = cls.ptr();
  }
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      SetPythonError(e.status());
    }
  });
}

}  // namespace sluice::python
