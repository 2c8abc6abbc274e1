// Logging and invariant checks.
//
// SLUICE_LOG(INFO|WARNING|ERROR) << ...; writes one line to stderr.
// SLUICE_CHECK(cond) << ...; aborts with the message when a programmer
// invariant is broken. Never use it for user input: that is a Status.
// The minimum level comes from SLUICE_LOG_LEVEL (DEBUG, INFO, WARNING, ERROR;
// default WARNING). Thread safety: lines from different threads never interleave.
#pragma once

#include <sstream>

namespace sluice {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

bool LogEnabled(LogLevel level);

// Collects one line; writes it (or aborts, for a failed check) when destroyed.
class LogMessage {
 public:
  LogMessage(LogLevel level, const char* file, int line, bool fatal = false);
  ~LogMessage();
  std::ostream& stream() { return stream_; }

 private:
  LogLevel level_;
  bool fatal_;
  std::ostringstream stream_;
};

// Swallows the stream expression of a disabled log statement.
struct LogVoidify {
  void operator&(std::ostream&) {}
};

}  // namespace sluice

#define SLUICE_LOG_LEVEL_DEBUG ::sluice::LogLevel::kDebug
#define SLUICE_LOG_LEVEL_INFO ::sluice::LogLevel::kInfo
#define SLUICE_LOG_LEVEL_WARNING ::sluice::LogLevel::kWarning
#define SLUICE_LOG_LEVEL_ERROR ::sluice::LogLevel::kError

#define SLUICE_LOG(level)                                          \
  !::sluice::LogEnabled(SLUICE_LOG_LEVEL_##level)                   \
      ? (void)0                                                    \
      : ::sluice::LogVoidify() &                                   \
            ::sluice::LogMessage(SLUICE_LOG_LEVEL_##level, __FILE__, __LINE__).stream()

#define SLUICE_CHECK(cond)                                                       \
  (cond) ? (void)0                                                               \
         : ::sluice::LogVoidify() &                                              \
               ::sluice::LogMessage(::sluice::LogLevel::kError, __FILE__, __LINE__, \
                                    /*fatal=*/true)                              \
                       .stream()                                                 \
                   << "Check failed: " #cond " "
