#include "sluice/core/logging.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace sluice {
namespace {

LogLevel MinLevelFromEnvironment() {
  const char* value = std::getenv("SLUICE_LOG_LEVEL");
  if (value == nullptr) return LogLevel::kWarning;
  if (std::strcmp(value, "DEBUG") == 0) return LogLevel::kDebug;
  if (std::strcmp(value, "INFO") == 0) return LogLevel::kInfo;
  if (std::strcmp(value, "ERROR") == 0) return LogLevel::kError;
  return LogLevel::kWarning;
}

const char* LevelLetter(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "D";
    case LogLevel::kInfo: return "I";
    case LogLevel::kWarning: return "W";
    case LogLevel::kError: return "E";
  }
  return "?";
}

}  // namespace

bool LogEnabled(LogLevel level) {
  static const LogLevel min_level = MinLevelFromEnvironment();
  return level >= min_level;
}

LogMessage::LogMessage(LogLevel level, const char* file, int line, bool fatal)
    : level_(level), fatal_(fatal) {
  const char* base = std::strrchr(file, '/');
  stream_ << "[sluice " << LevelLetter(level) << " " << (base ? base + 1 : file) << ":" << line
          << "] ";
}

LogMessage::~LogMessage() {
  static std::mutex mu;
  {
    std::lock_guard<std::mutex> lock(mu);
    std::string line = stream_.str();
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  }
  if (fatal_) std::abort();
  (void)level_;
}

}  // namespace sluice
