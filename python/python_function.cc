#include "sluice/python/python_function.h"

#include <algorithm>
#include <utility>

#include "sluice/dataset/functions.h"
#include "sluice/dataset/generator_dataset.h"
#include "sluice/python/dataset_binding.h"
#include "sluice/python/errors.h"
#include "sluice/python/exit_gate.h"
#include "sluice/python/tensor_conversion.h"

namespace sluice::python {
namespace py = pybind11;

namespace {

// The KeyboardInterrupt or SystemExit waiting for a next() to re-raise it
// (a strong reference), or null. Guarded by the GIL.
PyObject* g_pending_interrupt = nullptr;

// What a function holds of Python: the callable, and the converter of its
// input elements (which holds the names as Python strings).
struct PythonCallable {
  py::object callable;
  ElementConverter to_python;
};
using CallablePtr = std::shared_ptr<const PythonCallable>;

// Shared by every copy of a function's std::function; the last owner to go,
// on whatever thread, drops the Python references with the GIL held, or
// leaks them when the interpreter is exiting.
CallablePtr ShareCallable(py::object callable, const ElementSpec& input) {
  return CallablePtr(new PythonCallable{std::move(callable), ElementConverter(input)}, [](const PythonCallable* held) {
    GilEntry entry;
    if (!entry.admitted()) return;
    py::gil_scoped_acquire gil;
    delete held;
  });
}

// str(value), or a stand-in if that raises. REQUIRES: the GIL.
std::string SafeStr(py::handle value) {
  try {
    return py::str(value).cast<std::string>();
  } catch (const py::error_already_set&) {
    return "<unprintable " + std::string(Py_TYPE(value.ptr())->tp_name) + ">";
  }
}

// What a function returned, for errors: "a dict with keys ['x']", "a tuple
// of 3", "an ndarray int64 (2, 3)", "int 1".
std::string Describe(py::handle value) {
  if (PyDict_Check(value.ptr())) return "a dict with keys " + SafeStr(py::list(value.attr("keys")()));
  if (PyTuple_Check(value.ptr())) return StrCat("a tuple of ", PyTuple_GET_SIZE(value.ptr()));
  if (py::isinstance<py::array>(value)) {
    return "an ndarray " + SafeStr(value.attr("dtype")) + " " + SafeStr(value.attr("shape"));
  }
  std::string repr = SafeStr(py::repr(value));
  if (repr.size() > 60) repr = repr.substr(0, 57) + "...";
  return std::string(Py_TYPE(value.ptr())->tp_name) + " " + repr;
}

// The element error for an exception a Python function raised; keeps a
// KeyboardInterrupt or SystemExit for the next next() instead.
Status StatusFromPythonError(const py::error_already_set& error) {
  const std::string type = SafeStr(error.type().attr("__name__"));
  if (error.matches(PyExc_KeyboardInterrupt) || error.matches(PyExc_SystemExit)) {
    if (g_pending_interrupt == nullptr) {
      g_pending_interrupt = py::object(error.value()).release().ptr();
      if (error.trace()) PyException_SetTraceback(g_pending_interrupt, error.trace().ptr());
    }
    return CancelledError("the Python function raised ", type, " (re-raised by next())");
  }
  std::string traceback;
  try {
    py::object lines =
        py::module_::import("traceback").attr("format_exception")(error.type(), error.value(), error.trace());
    traceback = py::str("").attr("join")(lines).cast<std::string>();
  } catch (const py::error_already_set&) {
    traceback = "(the traceback could not be formatted)\n";
  }
  return Status(StatusCodeOf(error.value()),
                StrCat("the Python function raised ", type, ": ", SafeStr(error.value()), "\n", traceback));
}

// Runs `body` (returning a Result) with the GIL held; what it throws becomes
// the element's error. Cancelled, without calling, once the interpreter is
// exiting.
template <typename T, typename Body>
Result<T> CallPython(Body&& body) {
  GilEntry entry;
  if (!entry.admitted()) return CancelledError("the Python interpreter is exiting: Python functions no longer run");
  py::gil_scoped_acquire gil;
  try {
    return body();
  } catch (const py::error_already_set& error) {
    return StatusFromPythonError(error);
  } catch (const StatusError& error) {
    return error.status();
  } catch (const py::builtin_exception& error) {  // a conversion's TypeError or ValueError
    return InvalidArgumentError(error.what());
  } catch (const std::exception& error) {
    return InternalError("calling a Python function: ", error.what());
  }
}

constexpr std::string_view kTracedHint =
    " (the spec was traced on a placeholder element; pass output_spec= with None for the dims that depend on "
    "the values)";

// The element a Python function returned, in the layout of `spec`: a dict
// by name when every component is named, one value for one positional
// component, else a tuple. With `traced`, the element is checked against
// `spec` here, so that the error can say where the spec came from.
Result<Element> ElementFromPython(py::handle value, const ElementSpec& spec, bool traced) {
  const bool named = spec.size() > 0 && std::all_of(spec.components().begin(), spec.components().end(),
                                                    [](const ComponentSpec& c) { return !c.name.empty(); });
  std::vector<py::object> items;
  if (named) {
    if (PyDict_Check(value.ptr()) && static_cast<size_t>(PyDict_Size(value.ptr())) == spec.size()) {
      for (const ComponentSpec& c : spec.components()) {
        PyObject* item = PyDict_GetItemString(value.ptr(), c.name.c_str());  // borrowed; null when absent
        if (item == nullptr) break;
        items.push_back(py::reinterpret_borrow<py::object>(item));
      }
    }
  } else if (spec.size() == 1) {
    if (!value.is_none() && !PyDict_Check(value.ptr()) && !PyTuple_Check(value.ptr())) {
      items.push_back(py::reinterpret_borrow<py::object>(value));
    }
  } else if (PyTuple_Check(value.ptr()) && static_cast<size_t>(PyTuple_GET_SIZE(value.ptr())) == spec.size()) {
    for (py::handle item : value) items.push_back(py::reinterpret_borrow<py::object>(item));
  }
  if (items.size() != spec.size()) {
    std::string expected = StrCat("a tuple of ", spec.size());
    if (named) {
      py::list names;
      for (const ComponentSpec& c : spec.components()) names.append(py::str(c.name));
      expected = "a dict with keys " + SafeStr(names);
    } else if (spec.size() == 1) {
      expected = "one array";
    }
    return InvalidArgumentError("the Python function returned ", Describe(value), ", expected ", expected,
                                " (its declared spec is ", spec, ")");
  }
  Element element;
  for (size_t i = 0; i < items.size(); ++i) {
    element.components.push_back(
        NumpyToTensor(items[i], StrCat("the Python function's output: component ", spec.DisplayName(i))));
  }
  if (traced) {
    if (Status status = spec.Check(element); !status.ok()) {
      return InvalidArgumentError("the Python function's output does not match its spec ", spec, ": ", status.message(),
                                  kTracedHint);
    }
  }
  return element;
}

// A predicate's verdict: a bool, a numpy.bool_ or a 0-d bool array.
Result<bool> BoolFromPython(py::handle value) {
  if (PyBool_Check(value.ptr())) return value.ptr() == Py_True;
  const bool numpy_bool = py::isinstance(value, py::module_::import("numpy").attr("bool_"));
  const bool bool_array = py::isinstance<py::array>(value) && py::reinterpret_borrow<py::array>(value).ndim() == 0 &&
                          py::reinterpret_borrow<py::array>(value).dtype().kind() == 'b';
  if (!numpy_bool && !bool_array) {
    return InvalidArgumentError("the Python predicate returned ", Describe(value),
                                ", expected a bool (True or False, a numpy.bool_ or a 0-d bool array)");
  }
  const int truth = PyObject_IsTrue(value.ptr());
  if (truth < 0) throw py::error_already_set();
  return truth == 1;
}

// The graph of the sluice.Dataset (or _sluice.Dataset) a function returned.
Result<DatasetPtr> DatasetFromPython(py::handle value) {
  py::object dataset = py::reinterpret_borrow<py::object>(value);
  if (!py::isinstance<PyDataset>(dataset) && py::hasattr(dataset, "_ds")) dataset = dataset.attr("_ds");
  if (!py::isinstance<PyDataset>(dataset)) {
    return InvalidArgumentError("the Python function returned ", Describe(value), ", expected a sluice.Dataset");
  }
  return dataset.cast<const PyDataset&>().dataset;
}

// The next element of a generator's step callable (sluice/_generator.py
// makes it: it calls next() on the generator and converts what it yields to
// a tuple of the output signature's arrays, in its order); StopIteration is
// the end.
Result<std::optional<Element>> NextFromPython(const PythonCallable& step, const ElementSpec& spec) {
  PyObject* returned = PyObject_CallNoArgs(step.callable.ptr());
  if (returned == nullptr) {
    if (!PyErr_ExceptionMatches(PyExc_StopIteration)) throw py::error_already_set();
    PyErr_Clear();
    return std::nullopt;
  }
  const py::object value = py::reinterpret_steal<py::object>(returned);
  if (!PyTuple_Check(value.ptr()) || static_cast<size_t>(PyTuple_GET_SIZE(value.ptr())) != spec.size()) {
    return InternalError("from_generator: the step function returned ", Describe(value), ", not a tuple of ",
                         spec.size());
  }
  Element element;
  for (size_t i = 0; i < spec.size(); ++i) {
    element.components.push_back(NumpyToTensor(PyTuple_GET_ITEM(value.ptr(), i), "from_generator: a component"));
  }
  return element;
}

}  // namespace

bool PythonInterruptPending() { return g_pending_interrupt != nullptr; }

void RaisePythonInterrupt() {
  PyObject* exception = std::exchange(g_pending_interrupt, nullptr);
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(exception));
  Py_INCREF(type);
  // With its traceback: the frames of the function that raised it.
  PyErr_Restore(type, exception, PyException_GetTraceback(exception));
  throw py::error_already_set();
}

void RegisterPythonFunctions(py::module_& m) {
  m.def(
      "python_element_function",
      [](py::object fn, py::handle input_entries, py::handle output_entries, bool traced) {
        CallablePtr callable = ShareCallable(std::move(fn), ElementSpecFromPython(input_entries, "map: input spec"));
        ElementSpec output = ElementSpecFromPython(output_entries, "map: output_spec");
        auto apply = [callable, output, traced](Element element) {
          return CallPython<Element>([&] {
            py::object result = callable->callable(callable->to_python(element));
            return ElementFromPython(result, output, traced);
          });
        };
        return PyElementFunction{MakeLambdaFunction(std::move(apply), {.output_spec = std::move(output)})};
      },
      py::arg("fn"), py::arg("input_spec"), py::arg("output_spec"), py::arg("traced"),
      "fn as a map function for elements of input_spec returning elements of output_spec (lists of "
      "(name, dtype, shape)); traced: output_spec was found by calling fn on a placeholder.");
  m.def(
      "python_predicate",
      [](py::object fn, py::handle input_entries) {
        CallablePtr callable = ShareCallable(std::move(fn), ElementSpecFromPython(input_entries, "filter: input spec"));
        return PyPredicate{MakeLambdaPredicate([callable](const Element& element) {
          return CallPython<bool>([&] { return BoolFromPython(callable->callable(callable->to_python(element))); });
        })};
      },
      py::arg("fn"), py::arg("input_spec"), "fn as a filter predicate for elements of input_spec.");
  m.def(
      "python_dataset_function",
      [](py::object fn, py::handle input_entries, py::handle output_entries) {
        CallablePtr callable =
            ShareCallable(std::move(fn), ElementSpecFromPython(input_entries, "interleave: input spec"));
        ElementSpec output = ElementSpecFromPython(output_entries, "interleave: output spec");
        return PyDatasetFunction{MakeLambdaDatasetFunction(
            [callable](const Element& element) {
              return CallPython<DatasetPtr>(
                  [&] { return DatasetFromPython(callable->callable(callable->to_python(element))); });
            },
            std::move(output))};
      },
      py::arg("fn"), py::arg("input_spec"), py::arg("output_spec"),
      "fn as an interleave function: called on elements of input_spec, it returns a sluice.Dataset "
      "of elements of output_spec.");
  m.def(
      "python_generator_dataset",
      [](py::object start, py::handle output_entries) {
        CallablePtr callable = ShareCallable(std::move(start), ElementSpec());
        ElementSpec spec = ElementSpecFromPython(output_entries, "from_generator: output_signature");
        GeneratorOptions options{
            .start =
                [callable, spec] {
                  return CallPython<Generator>([&]() -> Result<Generator> {
                    CallablePtr step = ShareCallable(callable->callable(), ElementSpec());
                    return Generator([step, spec] {
                      return CallPython<std::optional<Element>>([&] { return NextFromPython(*step, spec); });
                    });
                  });
                },
            .element_spec = spec};
        return PyDataset{ValueOrThrow(MakeGeneratorDataset(std::move(options)))};
      },
      py::arg("start"), py::arg("output_spec"),
      "A from_generator source: each traversal calls start() for a step callable, and each element is "
      "step() (StopIteration ends it), checked against output_spec.");
}

}  // namespace sluice::python
