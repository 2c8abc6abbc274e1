// Progress: the status line of long CLI work (`sluice tfrecord write`,
// `tfrecord verify`, `profile`) on stderr, e.g.
//
//   verify: 3/10 files, 120000 records, 45.6 MiB, 8.1 MiB/s, ETA 4s
//
// one line rewritten in place with '\r', at most every `interval` (10 times
// a second), and erased when the work ends or before the command prints a
// line of its own. It is shown when stderr is a terminal; `--progress
// always|never` overrides that (ProgressFlag), so output piped to a file or
// another program stays clean.
// Thread safety: one thread (the command's) uses a Progress.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "sluice/core/status.h"
#include "sluice/tools/commands.h"

namespace sluice::cli {

// Where the work stands. `done` of `total` (0: unknown) drives the ETA;
// `step` names what they count, or is empty when they count the items.
struct ProgressCounts {
  int64_t items = 0;   // records, elements
  int64_t bytes = -1;  // data bytes so far; < 0 when not counted
  int64_t done = 0;
  int64_t total = 0;
};

struct ProgressNames {
  std::string label;  // "verify"
  std::string item;   // "records"
  std::string step;   // "files"; empty: done/total count the items
};

// "verify: 3/10 files, 120000 records, 45.6 MiB, 8.1 MiB/s, ETA 4s" after
// `elapsed_seconds`: the rate is bytes per second where bytes are counted,
// else items per second; no rate before any time has passed and no ETA
// without a total or before anything is done.
std::string FormatProgressLine(const ProgressNames& names, const ProgressCounts& counts, double elapsed_seconds);

// --progress auto|always|never (default auto: when stderr is a terminal).
Result<bool> ProgressFlag(const CommandArgs& args);

struct ProgressOptions {
  using Clock = std::chrono::steady_clock;
  bool enabled = false;                                 // false: Progress writes nothing
  std::ostream* out = nullptr;                          // default std::cerr
  std::ostream* flush_first = nullptr;                  // flushed before each line (the command's stdout)
  std::function<Clock::time_point()> now = Clock::now;  // a fake clock in tests
  Clock::duration interval = std::chrono::milliseconds(100);
};

class Progress {
 public:
  Progress(ProgressNames names, ProgressOptions options);
  ~Progress() { Clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Draws the line for `counts` on the first call and then at most once per
  // interval; cheap when disabled or between draws.
  void Update(const ProgressCounts& counts);
  // Erases the line if one is shown (before the command writes its own
  // output, and at the end); the next Update draws it again.
  void Clear();

 private:
  const ProgressNames names_;
  const ProgressOptions options_;
  const ProgressOptions::Clock::time_point start_;
  ProgressOptions::Clock::time_point last_draw_;
  bool drawn_once_ = false;
  size_t shown_width_ = 0;  // of the line on screen; 0: none
};

}  // namespace sluice::cli
