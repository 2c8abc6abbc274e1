#include "sluice/python/exit_gate.h"

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace sluice::python {
namespace py = pybind11;

namespace {

constexpr auto kExitWait = std::chrono::seconds(10);
std::atomic<bool> g_exiting{false};
std::atomic<int64_t> g_admitted{0};  // threads inside a GilEntry
std::mutex g_exit_mu;
std::condition_variable g_exit_cond;  // notified when the last one leaves after g_exiting

bool Finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

// The atexit callback (the GIL held).
void CloseGate() {
  g_exiting.store(true);
  bool drained;
  {
    py::gil_scoped_release release;
    std::unique_lock<std::mutex> lock(g_exit_mu);
    drained = g_exit_cond.wait_for(lock, kExitWait, [] { return g_admitted.load() == 0; });
  }
  if (!drained) {
    PySys_WriteStderr("sluice: threads of a pipeline still holding the GIL at exit after %lld s\n",
                      static_cast<long long>(kExitWait.count()));
  }
}

}  // namespace

GilEntry::GilEntry() {
  g_admitted.fetch_add(1);
  admitted_ = !g_exiting.load() && Py_IsInitialized() && !Finalizing();
}

GilEntry::~GilEntry() {
  if (g_admitted.fetch_sub(1) == 1 && g_exiting.load()) {
    std::lock_guard<std::mutex> lock(g_exit_mu);
    g_exit_cond.notify_all();
  }
}

void InitExitGate() { py::module_::import("atexit").attr("register")(py::cpp_function(CloseGate)); }

}  // namespace sluice::python
