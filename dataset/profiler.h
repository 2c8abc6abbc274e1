// The profiler: turns a Profile (dataset/profile.h) into a report that names
// the stage limiting a pipeline's throughput and what would help.
//
//   auto profile = std::make_shared<Profile>();
//   IteratorContext ctx;
//   ctx.profile = profile;
//   auto it = dataset->MakeIterator(ctx);
//   ... iterate; a training loop may call profile->RecordConsumerStep ...
//   ProfileReport report = AnalyzeProfile(profile->Snapshot());
//   std::cout << FormatProfileReport(report);
//
// Without code changes: SLUICE_PROFILE=1 profiles every traversal made by
// Dataset::MakeIterator() without a context (Pipeline::MakeIterator and
// range-for included); when such a root iterator is destroyed the report is
// printed to stderr, and SLUICE_PROFILE_TRACE=FILE / SLUICE_PROFILE_JSON=FILE
// also write the trace events / the JSON report there (the last traversal
// to end wins). `sluice profile SPEC.pbtxt` runs a spec under the profiler.
//
// How the verdict is decided: dataset/verdict_rules.h (rules A-C, each
// with its evidence, remedy and estimated gain) and docs/profiling.md. With
// consumer steps recorded, the job is also called input-bound when the
// consumer waited >= kInputBoundShare of its step time for data.
//
// Thread safety: the functions are pure over their arguments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sluice/core/status.h"
#include "sluice/dataset/profile.h"

namespace sluice {

inline constexpr double kInputBoundShare = 0.10;

struct StageReport {
  NodeSnapshot node;  // without trace events
  std::string name;   // "[2] map"
  double elements_per_s = 0;
  double self_share = 0;           // of all stages' self time
  double self_us_per_element = 0;
  double input_wait_share = 0;     // input time / own GetNext time (async: / wall time, producer side)
  double consumer_wait_share = 0;  // async: its consumer's wait / wall time
};

enum class BottleneckKind {
  kNone,
  kCpuBound,
  kSourceBound,
  kBufferTooSmall,
  kPerElementMap,  // a row-wise map called per element ahead of a batch
  kTinyMap,        // a map doing little per element beside another map: fuse them
};
std::string_view BottleneckKindName(BottleneckKind kind);  // "cpu_bound", ...

struct Verdict {
  BottleneckKind kind = BottleneckKind::kNone;
  int stage = -1;            // node index of the limiting stage
  std::string stage_name;    // "[2] map"
  int starved_async = -1;    // the prefetch whose consumer waited on an empty buffer, or -1
  // The stage's share of busy time (buffer too small: consumer wait share).
  double share = 0;
  double estimated_gain = 0; // the fraction of the time per element the remedy is expected to save
  std::string reason;
  std::string remedy;
};

struct ConsumerReport {
  int64_t steps = 0;
  double mean_step_ms = 0;
  double wait_share = 0;  // of step time spent waiting for input
  bool input_bound = false;
};

struct ProfileReport {
  double wall_s = 0;  // the top stage's iterators' span (NodeSnapshot::start_ns, end_ns)
  std::vector<StageReport> stages;
  Verdict verdict;
  std::optional<ConsumerReport> consumer;
};

ProfileReport AnalyzeProfile(const ProfileSnapshot& snapshot);

// A share for people, as the report writes it: 0.25 -> "25%".
std::string PercentText(double share);

// The table, the verdict and (with steps) the consumer line, for people.
std::string FormatProfileReport(const ProfileReport& report);
std::string ProfileReportToJson(const ProfileReport& report);
// Chrome trace-event JSON (opens in Perfetto / chrome://tracing): pid 1, one
// tid per stage named by a thread_name metadata event, one complete ("X")
// event per recorded GetNext call (the first max_trace_events_per_node).
std::string TraceEventsToJson(const ProfileSnapshot& snapshot);
// Writes `contents` to `path`.
Status WriteProfileFile(const std::string& path, std::string_view contents);

// SLUICE_PROFILE is set to something other than "" or "0" (read once).
bool ProfilingRequestedByEnvironment();
// Prints the report to stderr and writes SLUICE_PROFILE_TRACE / _JSON.
void ReportProfileToEnvironment(const Profile& profile);

}  // namespace sluice
