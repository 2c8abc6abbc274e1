#include "sluice/python/interrupt.h"

#include <fcntl.h>
#include <pybind11/pybind11.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <thread>

namespace sluice::python {
namespace py = pybind11;

namespace {

unsigned long g_main_thread = 0;  // PyThread_get_thread_ident of the main thread
int g_pipe[2] = {-1, -1};         // the handler writes, the watcher reads
struct sigaction g_python_action;  // the handler ours chains to; guarded by the GIL

std::mutex g_mu;
InterruptScope::Registration* g_top = nullptr;  // guarded by g_mu; the innermost live scope
std::chrono::steady_clock::time_point g_last_check;  // guarded by the GIL

void OnSigint(int signal, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const char byte = 1;
  [[maybe_unused]] ssize_t written = write(g_pipe[1], &byte, 1);
  if (g_python_action.sa_flags & SA_SIGINFO) {
    g_python_action.sa_sigaction(signal, info, context);
  } else if (g_python_action.sa_handler != SIG_DFL && g_python_action.sa_handler != SIG_IGN) {
    g_python_action.sa_handler(signal);
  }
  errno = saved_errno;
}

void WatchForSigint() {
  char byte;
  while (true) {
    ssize_t n = read(g_pipe[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    std::lock_guard<std::mutex> lock(g_mu);
    for (InterruptScope::Registration* registration = g_top; registration != nullptr;
         registration = registration->below) {
      registration->interrupted.store(true, std::memory_order_release);
      registration->cancellation->Cancel();
    }
  }
}

bool IsOurs(const struct sigaction& action) {
  return (action.sa_flags & SA_SIGINFO) && action.sa_sigaction == OnSigint;
}

// With the GIL held, on the main thread: puts OnSigint in front of the
// current handler unless it is already there or SIGINT is ignored or default.
void InstallHandler() {
  struct sigaction current;
  if (sigaction(SIGINT, nullptr, &current) != 0 || IsOurs(current)) return;
  if (!(current.sa_flags & SA_SIGINFO) && (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN)) return;
  static std::once_flag started;
  std::call_once(started, [] {
    if (pipe2(g_pipe, O_CLOEXEC) != 0) return;
    fcntl(g_pipe[1], F_SETFL, O_NONBLOCK);  // the handler never blocks
    std::thread(WatchForSigint).detach();
  });
  if (g_pipe[0] < 0) return;
  g_python_action = current;
  struct sigaction ours = {};
  ours.sa_sigaction = OnSigint;
  ours.sa_flags = SA_SIGINFO | (current.sa_flags & SA_RESTART);
  ours.sa_mask = current.sa_mask;
  sigaction(SIGINT, &ours, nullptr);
}

}  // namespace

void InitInterrupts() {
  g_main_thread = py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
}

bool OnMainThread() { return PyThread_get_thread_ident() == g_main_thread; }

InterruptScope::InterruptScope(Cancellation& cancellation) {
  if (!OnMainThread()) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - g_last_check >= kHandlerCheckInterval) {
    g_last_check = now;
    InstallHandler();
  }
  registration_.cancellation = &cancellation;
  registered_ = true;
  std::lock_guard<std::mutex> lock(g_mu);
  registration_.below = g_top;
  g_top = &registration_;
}

InterruptScope::~InterruptScope() {
  if (!registered_) return;
  std::lock_guard<std::mutex> lock(g_mu);
  // Scopes end in the reverse order they began: on one thread, by RAII.
  g_top = registration_.below;
}

bool InterruptScope::interrupted() const {
  return registered_ && registration_.interrupted.load(std::memory_order_acquire);
}

}  // namespace sluice::python
