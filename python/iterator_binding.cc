#include "sluice/python/iterator_binding.h"

#include <pybind11/stl.h>

#include <atomic>
#include <cmath>

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/profile.h"
#include "sluice/dataset/profiler.h"
#include "sluice/dataset/runtime.h"
#include "sluice/python/dataset_binding.h"
#include "sluice/python/dlpack.h"
#include "sluice/python/errors.h"
#include "sluice/python/gil.h"
#include "sluice/python/interrupt.h"
#include "sluice/python/python_function.h"
#include "sluice/python/tensor_conversion.h"

namespace sluice::python {
namespace py = pybind11;

namespace {

// Marks an iterator busy for the duration of a call; a RuntimeError when
// another thread is already in one.
class BusyGuard {
 public:
  explicit BusyGuard(std::atomic<bool>& busy) : busy_(busy) {
    if (busy_.exchange(true, std::memory_order_acquire)) {
      throw std::runtime_error("sluice iterator: used from two threads at once (one thread at a time per iterator)");
    }
  }
  ~BusyGuard() { busy_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool>& busy_;
};

// A duration in seconds from Python as nanoseconds; a ValueError naming
// `what` unless it is finite and in [0, one year].
std::chrono::nanoseconds DurationFrom(double seconds, std::string_view what) {
  constexpr double kMaxSeconds = 365.0 * 24 * 3600;
  if (!std::isfinite(seconds) || seconds < 0 || seconds > kMaxSeconds) {
    throw py::value_error(StrCat(what, ": ", seconds, " is not a duration in seconds in [0, ", kMaxSeconds, "]"));
  }
  return std::chrono::nanoseconds(static_cast<int64_t>(seconds * 1e9));
}

class PyIterator {
 public:
  // `converter`: None for numpy arrays, else called on a DLPack capsule of
  // each numeric tensor, bool ones as their uint8 bytes (python/dlpack.h;
  // sluice.torch passes torch.utils.dlpack.from_dlpack); string tensors
  // stay numpy object arrays.
  PyIterator(const PyDataset& dataset, const RuntimeOptions& options, std::shared_ptr<Profile> profile,
             std::optional<std::string> state, py::object converter)
      : dataset_(dataset.dataset), convert_(dataset.dataset->element_spec()), converter_(std::move(converter)) {
    ctx_.runtime = Runtime::Create(options);
    ctx_.profile = std::move(profile);
    Status restored;
    WithoutGil([&] {
      iterator_ = dataset_->MakeIterator(ctx_);
      if (state.has_value()) restored = RestoreIteratorState(*iterator_, *state);
    });
    if (!restored.ok()) {
      Close();
      throw StatusError(restored);
    }
  }
  ~PyIterator() { Close(); }

  py::object Next() {
    BusyGuard busy(busy_);
    if (iterator_ == nullptr) throw py::stop_iteration();
    Result<std::optional<Element>> result = std::nullopt;
    bool interrupted = false;
    {
      InterruptScope interrupt(*ctx_.cancellation);
      WithoutGil([&] { result = iterator_->GetNext(); });
      interrupted = interrupt.interrupted();
    }
    // A KeyboardInterrupt or SystemExit that a Python function raised ends
    // the call as that exception (python/python_function.h).
    if (PythonInterruptPending()) {
      Close();
      RaisePythonInterrupt();
    }
    if (interrupted) {
      Close();
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      throw py::error_already_set();
    }
    if (!result.ok()) throw StatusError(result.status());
    if (!result->has_value()) throw py::stop_iteration();
    if (converter_.is_none()) return convert_(**result);
    return convert_.Convert(**result, [this](const Tensor& tensor) -> py::object {
      if (tensor.dtype() == DType::kString) return TensorToNumpy(tensor);
      return converter_(TensorToDlpack(tensor, DlpackBool::kAsUInt8));
    });
  }

  // Consumes up to `count` elements in C++ without converting them (the C++
  // rate of the same traversal, for benchmarks; a fast-forward). Returns how
  // many there were before the end; an element's error is raised.
  int64_t Advance(int64_t count) {
    BusyGuard busy(busy_);
    if (iterator_ == nullptr) return 0;
    int64_t advanced = 0;
    Status error;
    WithoutGil([&] {
      while (advanced < count) {
        Result<std::optional<Element>> result = iterator_->GetNext();
        if (!result.ok()) {
          error = result.status();
          return;
        }
        if (!result->has_value()) return;
        ++advanced;
      }
    });
    ThrowIfError(error);
    return advanced;
  }

  py::bytes Save() {
    BusyGuard busy(busy_);
    if (iterator_ == nullptr) throw py::value_error("sluice iterator: closed; a closed iterator has no state to save");
    Result<std::string> state = std::string();
    WithoutGil([&] { state = SaveIteratorState(*iterator_); });
    return py::bytes(ValueOrThrow(std::move(state)));
  }

  // Stops the traversal and joins its workers, without the GIL.
  void Close() {
    if (iterator_ == nullptr) return;
    std::unique_ptr<Iterator> iterator = std::move(iterator_);
    if (Py_IsInitialized() && PyGILState_Check()) {
      WithoutGil([&] { iterator.reset(); });
    } else {
      iterator.reset();
    }
  }

  // Exchanges the traversals of two iterators of the same dataset (each
  // keeps its converter).
  void Swap(PyIterator& other) {
    BusyGuard busy(busy_);
    BusyGuard other_busy(other.busy_);
    std::swap(ctx_, other.ctx_);
    std::swap(iterator_, other.iterator_);
  }

  bool closed() const { return iterator_ == nullptr; }
  const RuntimeOptions& runtime_options() const { return ctx_.runtime->options(); }

 private:
  DatasetPtr dataset_;
  IteratorContext ctx_;
  std::unique_ptr<Iterator> iterator_;
  ElementConverter convert_;
  py::object converter_;
  std::atomic<bool> busy_{false};
};

}  // namespace

void RegisterIterator(py::module_& m) {
  py::class_<Profile, std::shared_ptr<Profile>>(m, "Profile", "What a profiled traversal records (use sluice.profiler).")
      .def(py::init([](int64_t max_trace_events_per_node) {
             return std::make_shared<Profile>(Profile::Options{.max_trace_events_per_node = max_trace_events_per_node});
           }),
           py::arg("max_trace_events_per_node") = 2000)
      .def("record_consumer_step",
           [](Profile& profile, double waiting_for_input_s, double step_s) {
             profile.RecordConsumerStep(DurationFrom(waiting_for_input_s, "waiting_for_input_s"),
                                        DurationFrom(step_s, "step_s"));
           })
      .def(
          "report",
          [](const Profile& profile) {
            const ProfileSnapshot snapshot = profile.Snapshot();
            const ProfileReport report = AnalyzeProfile(snapshot);
            return py::make_tuple(FormatProfileReport(report), ProfileReportToJson(report), TraceEventsToJson(snapshot));
          },
          "(text, json, trace) of one snapshot: the report's table and verdict, the report as JSON, and the trace "
          "events as Chrome trace-event JSON.");

  py::class_<PyIterator>(m, "Iterator", "One traversal of a dataset (use iter(sluice.Dataset)).")
      .def(py::init([](const PyDataset& dataset, int cpu_budget, int64_t ram_budget_bytes, bool deterministic,
                       std::shared_ptr<Profile> profile, std::optional<py::bytes> state, py::object converter) {
             if (cpu_budget < 0) throw py::value_error("cpu_budget: must be >= 0 (0 = the cores this process may use)");
             if (ram_budget_bytes < 0) throw py::value_error("ram_budget_bytes: must be >= 0 (0 = half the available memory)");
             std::optional<std::string> bytes;
             if (state.has_value()) bytes = std::string(*state);
             return std::make_unique<PyIterator>(
                 dataset, RuntimeOptions{.cpu_budget = cpu_budget, .ram_budget_bytes = ram_budget_bytes, .deterministic = deterministic},
                 std::move(profile), std::move(bytes), std::move(converter));
           }),
           py::arg("dataset"), py::arg("cpu_budget") = 0, py::arg("ram_budget_bytes") = 0, py::arg("deterministic") = true,
           py::arg("profile") = nullptr, py::arg("state") = std::nullopt, py::arg("converter") = py::none())
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &PyIterator::Next)
      .def("_advance", &PyIterator::Advance, py::arg("count"),
           "Consumes up to `count` elements in C++ without converting them; returns how many there were.")
      .def("save", &PyIterator::Save, "The position as bytes (state_dict() is the same).")
      .def("close", &PyIterator::Close, "Stops the traversal and joins its workers; next() then ends.")
      .def("_swap", &PyIterator::Swap)
      .def_property_readonly("closed", &PyIterator::closed, "Whether close() ended the traversal.")
      .def_property_readonly(
          "cpu_budget", [](const PyIterator& it) { return it.runtime_options().cpu_budget; },
          "The traversal's Options.cpu_budget (0: the cores this process may use).")
      .def_property_readonly(
          "ram_budget_bytes", [](const PyIterator& it) { return it.runtime_options().ram_budget_bytes; },
          "The traversal's Options.ram_budget_bytes (0: half the available memory).");
}

}  // namespace sluice::python
