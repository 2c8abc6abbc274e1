// Sluice's Status codes as Python exceptions: one class per code, all
// subclasses of sluice.Error (InvalidArgumentError is also a ValueError),
// each carrying the full message and its code name.
// Thread safety: call with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include "sluice/core/status.h"

namespace sluice::python {

// Creates sluice._sluice.Error and its subclasses in `module`.
void RegisterErrors(pybind11::module_& module);

// Thrown by bindings for a failed Status; pybind11 turns it into the
// exception class of the status's code when it crosses into Python.
class StatusError : public std::exception {
 public:
  explicit StatusError(Status status) : status_(std::move(status)), what_(status_.ToString()) {}
  const Status& status() const { return status_; }
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  Status status_;
  std::string what_;
};

// Throws StatusError for a failed status.
inline void ThrowIfError(const Status& status) {
  if (!status.ok()) throw StatusError(status);
}
// The value, or throws StatusError.
template <typename T>
T ValueOrThrow(Result<T> result) {
  if (!result.ok()) throw StatusError(result.status());
  return std::move(result).value();
}

// Sets the Python error of `status` (its exception class, its message).
void SetPythonError(const Status& status);

// The code of the sluice error class `exception` is an instance of
// (NotFoundError: NotFound); InvalidArgument for any other exception.
StatusCode StatusCodeOf(pybind11::handle exception);

}  // namespace sluice::python
