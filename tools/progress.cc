#include "sluice/tools/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "sluice/tools/flags.h"

namespace sluice::cli {
namespace {

// "812 B", "4.0 KiB", "45.6 MiB", "1.2 GiB".
std::string Bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), unit == 0 ? "%.0f %s" : "%.1f %s", bytes, kUnits[unit]);
  return text;
}

// "4s", "1m05s", "2h03m".
std::string Duration(double seconds) {
  const auto s = static_cast<int64_t>(std::ceil(seconds));
  char text[32];
  if (s < 60) {
    std::snprintf(text, sizeof(text), "%llds", static_cast<long long>(s));
  } else if (s < 3600) {
    std::snprintf(text, sizeof(text), "%lldm%02llds", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
  } else {
    std::snprintf(text, sizeof(text), "%lldh%02lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60));
  }
  return text;
}

}  // namespace

std::string FormatProgressLine(const ProgressNames& names, const ProgressCounts& counts, double elapsed_seconds) {
  std::string line = names.label + ": ";
  const std::string of_total = counts.total > 0 ? StrCat("/", counts.total) : "";
  if (names.step.empty()) {
    line += StrCat(counts.items, of_total, " ", names.item);
  } else {
    line += StrCat(counts.done, of_total, " ", names.step, ", ", counts.items, " ", names.item);
  }
  if (counts.bytes >= 0) line += ", " + Bytes(static_cast<double>(counts.bytes));
  if (elapsed_seconds > 0) {
    if (counts.bytes >= 0) {
      line += ", " + Bytes(static_cast<double>(counts.bytes) / elapsed_seconds) + "/s";
    } else {
      line += StrCat(", ", static_cast<int64_t>(static_cast<double>(counts.items) / elapsed_seconds), " ", names.item,
                     "/s");
    }
  }
  const int64_t done = names.step.empty() ? counts.items : counts.done;
  if (counts.total > 0 && done > 0 && elapsed_seconds > 0) {
    const double remaining = static_cast<double>(std::max<int64_t>(counts.total - done, 0));
    line += ", ETA " + Duration(elapsed_seconds * remaining / static_cast<double>(done));
  }
  return line;
}

Result<bool> ProgressFlag(const CommandArgs& args) {
  const std::string mode = FlagOr(args, "--progress", "auto");
  if (mode == "auto") return isatty(STDERR_FILENO) == 1;
  if (mode == "always") return true;
  if (mode == "never") return false;
  return InvalidArgumentError("--progress expects auto, always or never, got '", mode, "'");
}

Progress::Progress(ProgressNames names, ProgressOptions options)
    : names_(std::move(names)), options_(std::move(options)), start_(options_.now()), last_draw_(start_) {}

void Progress::Update(const ProgressCounts& counts) {
  if (!options_.enabled) return;
  const auto now = options_.now();
  if (drawn_once_ && now - last_draw_ < options_.interval) return;
  drawn_once_ = true;
  last_draw_ = now;
  const std::string line =
      FormatProgressLine(names_, counts, std::chrono::duration<double>(now - start_).count());
  if (options_.flush_first != nullptr) options_.flush_first->flush();
  std::ostream& out = options_.out != nullptr ? *options_.out : std::cerr;
  // Spaces over the rest of a longer line drawn before.
  out << '\r' << line << std::string(shown_width_ > line.size() ? shown_width_ - line.size() : 0, ' ');
  out.flush();
  shown_width_ = std::max(shown_width_, line.size());
}

void Progress::Clear() {
  if (shown_width_ == 0) return;
  std::ostream& out = options_.out != nullptr ? *options_.out : std::cerr;
  out << '\r' << std::string(shown_width_, ' ') << '\r';
  out.flush();
  shown_width_ = 0;
}

}  // namespace sluice::cli
