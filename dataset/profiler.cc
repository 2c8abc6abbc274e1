#include "sluice/dataset/profiler.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include "sluice/core/json.h"
#include "sluice/dataset/verdict_rules.h"

namespace sluice {
namespace {

std::string Fixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, value);
  return buf;
}

// Six significant digits; a non-finite value as core/json.h spells it.
std::string JsonNumber(double value) {
  if (!std::isfinite(value)) {
    std::string out;
    AppendJsonFloat(out, value);
    return out;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", value);
  return buf;
}

std::string StageName(const NodeSnapshot& node) { return StrCat("[", node.index, "] ", node.op_name); }

}  // namespace

std::string PercentText(double share) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f%%", 100.0 * share);
  return buf;
}

std::string_view BottleneckKindName(BottleneckKind kind) {
  switch (kind) {
    case BottleneckKind::kNone: return "none";
    case BottleneckKind::kCpuBound: return "cpu_bound";
    case BottleneckKind::kSourceBound: return "source_bound";
    case BottleneckKind::kBufferTooSmall: return "buffer_too_small";
    case BottleneckKind::kPerElementMap: return "per_element_map";
    case BottleneckKind::kTinyMap: return "tiny_map";
  }
  return "none";
}

ProfileReport AnalyzeProfile(const ProfileSnapshot& snapshot) {
  ProfileReport report;
  // The wall time: from the top stage's first iterator's start to its last
  // one's end.
  int64_t first = -1, last = 0;
  for (const NodeSnapshot& node : snapshot.nodes) {
    if (node.parent != -1 || node.calls == 0 || node.start_ns < 0) continue;
    if (first < 0 || node.start_ns < first) first = node.start_ns;
    last = std::max(last, node.end_ns);
  }
  const int64_t wall_ns = first < 0 ? 0 : std::max<int64_t>(last - first, 1);
  report.wall_s = static_cast<double>(wall_ns) * 1e-9;

  int64_t total_self = 0;
  for (const NodeSnapshot& node : snapshot.nodes) total_self += node.self_ns;
  for (const NodeSnapshot& node : snapshot.nodes) {
    StageReport stage;
    stage.node = node;
    stage.node.events.clear();
    stage.name = StageName(node);
    if (wall_ns > 0) stage.elements_per_s = static_cast<double>(node.elements) / report.wall_s;
    if (total_self > 0) stage.self_share = static_cast<double>(node.self_ns) / static_cast<double>(total_self);
    if (node.elements > 0) stage.self_us_per_element = static_cast<double>(node.self_ns) * 1e-3 / node.elements;
    if (node.async) {
      if (wall_ns > 0) {
        stage.input_wait_share = std::min(1.0, static_cast<double>(node.input_ns) / wall_ns);
        stage.consumer_wait_share = std::min(1.0, static_cast<double>(node.consumer_wait_ns) / wall_ns);
      }
    } else if (node.elapsed_ns > 0) {
      stage.input_wait_share = std::min(1.0, static_cast<double>(node.input_ns) / node.elapsed_ns);
    }
    report.stages.push_back(std::move(stage));
  }

  if (snapshot.consumer_steps > 0) {
    ConsumerReport consumer;
    consumer.steps = snapshot.consumer_steps;
    consumer.mean_step_ms = static_cast<double>(snapshot.consumer_step_ns) * 1e-6 / snapshot.consumer_steps;
    if (snapshot.consumer_step_ns > 0) {
      consumer.wait_share = static_cast<double>(snapshot.consumer_wait_ns) / snapshot.consumer_step_ns;
    }
    consumer.input_bound = consumer.wait_share >= kInputBoundShare;
    report.consumer = consumer;
  }
  report.verdict = DecideVerdict(report.stages, wall_ns);
  return report;
}

std::string FormatProfileReport(const ProfileReport& report) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof(line), "%-32s %9s %10s %11s %9s %6s %7s %7s %7s %4s\n", "stage", "calls",
                "elements", "elements/s", "self ms", "share", "in-wait", "c-wait", "fill", "par");
  out += line;
  for (const StageReport& s : report.stages) {
    const std::string name = std::string(2 * s.node.depth, ' ') + s.name;
    const bool async = s.node.async;
    std::snprintf(line, sizeof(line), "%-32s %9lld %10lld %11.0f %9.1f %6s %7s %7s %7s %4d\n", name.c_str(),
                  static_cast<long long>(s.node.calls), static_cast<long long>(s.node.elements),
                  s.elements_per_s, static_cast<double>(s.node.self_ns) * 1e-6, PercentText(s.self_share).c_str(),
                  PercentText(s.input_wait_share).c_str(), async ? PercentText(s.consumer_wait_share).c_str() : "-",
                  s.node.buffer_samples > 0 ? PercentText(s.node.mean_fill).c_str() : "-", s.node.parallelism);
    out += line;
  }
  out += StrCat("wall time ", Fixed(report.wall_s, 3),
                " s; share = of all stages' self (busy) time; in-wait = time in its input (prefetch: its "
                "producer, of wall time); c-wait = its consumer waiting on it, of wall time\n");
  const Verdict& v = report.verdict;
  if (v.kind == BottleneckKind::kNone) {
    out += "Verdict: no data (nothing was iterated)\n";
  } else {
    out += StrCat("Verdict: ", v.stage_name, " limits throughput (", BottleneckKindName(v.kind), "). ", v.reason,
                  ".\nRemedy: ", v.remedy, "; estimated gain: up to ", PercentText(v.estimated_gain),
                  " less time per element.\n");
  }
  if (report.consumer) {
    const ConsumerReport& c = *report.consumer;
    out += StrCat("Consumer: ", c.steps, " steps, mean step ", Fixed(c.mean_step_ms, 3), " ms, waiting for input ",
                  PercentText(c.wait_share), " of step time: ",
                  c.input_bound ? StrCat("input-bound; removing the input stalls would cut step time by up to ",
                                         PercentText(c.wait_share))
                                : "not input-bound",
                  ".\n");
  }
  return out;
}

std::string ProfileReportToJson(const ProfileReport& report) {
  std::string out = StrCat("{\"wall_s\": ", JsonNumber(report.wall_s), ", \"stages\": [");
  for (size_t i = 0; i < report.stages.size(); ++i) {
    const StageReport& s = report.stages[i];
    const NodeSnapshot& n = s.node;
    out += StrCat(i == 0 ? "" : ", ", "{\"index\": ", n.index, ", \"parent\": ", n.parent,
                  ", \"op\": ", JsonString(n.op_name), ", \"name\": ", JsonString(s.name),
                  ", \"async\": ", n.async ? "true" : "false", ", \"source\": ", n.source ? "true" : "false",
                  ", \"calls\": ", n.calls, ", \"elements\": ", n.elements, ", \"bytes\": ", n.bytes,
                  ", \"elements_per_s\": ", JsonNumber(s.elements_per_s), ", \"self_ns\": ", n.self_ns,
                  ", \"input_ns\": ", n.input_ns, ", \"consumer_wait_ns\": ", n.consumer_wait_ns,
                  ", \"self_share\": ", JsonNumber(s.self_share),
                  ", \"input_wait_share\": ", JsonNumber(s.input_wait_share),
                  ", \"consumer_wait_share\": ", JsonNumber(s.consumer_wait_share),
                  ", \"buffer_samples\": ", n.buffer_samples, ", \"buffer_fill\": ", JsonNumber(n.mean_fill),
                  ", \"buffer_empty_fraction\": ", JsonNumber(n.empty_fraction),
                  ", \"buffer_full_fraction\": ", JsonNumber(n.full_fraction),
                  ", \"parallelism\": ", n.parallelism, "}");
  }
  const Verdict& v = report.verdict;
  out += StrCat("], \"verdict\": {\"kind\": ", JsonString(BottleneckKindName(v.kind)), ", \"stage\": ", v.stage,
                ", \"stage_name\": ", JsonString(v.stage_name), ", \"starved_async\": ", v.starved_async,
                ", \"share\": ", JsonNumber(v.share), ", \"estimated_gain\": ", JsonNumber(v.estimated_gain),
                ", \"reason\": ", JsonString(v.reason), ", \"remedy\": ", JsonString(v.remedy), "}");
  if (report.consumer) {
    const ConsumerReport& c = *report.consumer;
    out += StrCat(", \"consumer\": {\"steps\": ", c.steps, ", \"mean_step_ms\": ", JsonNumber(c.mean_step_ms),
                  ", \"wait_share\": ", JsonNumber(c.wait_share),
                  ", \"input_bound\": ", c.input_bound ? "true" : "false", "}");
  }
  return out + "}\n";
}

std::string TraceEventsToJson(const ProfileSnapshot& snapshot) {
  std::string out = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [";
  bool first = true;
  const auto add = [&](const std::string& event) {
    out += first ? "\n" : ",\n";
    out += event;
    first = false;
  };
  for (const NodeSnapshot& node : snapshot.nodes) {
    const int tid = node.index + 1;
    add(StrCat("{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": ", tid,
               ", \"ts\": 0, \"args\": {\"name\": ", JsonString(StageName(node)), "}}"));
    std::vector<TraceEvent> events = node.events;
    std::sort(events.begin(), events.end(),
              [](const TraceEvent& a, const TraceEvent& b) { return a.start_ns < b.start_ns; });
    const std::string name = JsonString(node.op_name);
    for (const TraceEvent& e : events) {
      add(StrCat("{\"name\": ", name, ", \"ph\": \"X\", \"pid\": 1, \"tid\": ", tid,
                 ", \"ts\": ", Fixed(static_cast<double>(e.start_ns) * 1e-3, 3),
                 ", \"dur\": ", Fixed(static_cast<double>(std::max<int64_t>(e.duration_ns, 0)) * 1e-3, 3), "}"));
    }
  }
  return out + "\n]}\n";
}

Status WriteProfileFile(const std::string& path, std::string_view contents) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return NotFoundError("profiler: cannot open '", path, "' for writing: ", std::strerror(errno));
  file.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  file.close();
  if (!file) return DataLossError("profiler: failed writing '", path, "': ", std::strerror(errno));
  return OkStatus();
}

bool ProfilingRequestedByEnvironment() {
  static const bool requested = [] {
    const char* value = std::getenv("SLUICE_PROFILE");
    return value != nullptr && std::string_view(value) != "" && std::string_view(value) != "0";
  }();
  return requested;
}

void ReportProfileToEnvironment(const Profile& profile) {
  const ProfileSnapshot snapshot = profile.Snapshot();
  const ProfileReport report = AnalyzeProfile(snapshot);
  std::cerr << "sluice profile:\n" << FormatProfileReport(report);
  const auto write = [](const char* variable, const std::string& contents) {
    const char* path = std::getenv(variable);
    if (path == nullptr || *path == '\0') return;
    const Status status = WriteProfileFile(path, contents);
    if (!status.ok()) std::cerr << "sluice profile: " << status << "\n";
  };
  write("SLUICE_PROFILE_TRACE", TraceEventsToJson(snapshot));
  write("SLUICE_PROFILE_JSON", ProfileReportToJson(report));
}

}  // namespace sluice
