// The autotuner against a grid search of static configurations, side by
// side in one run (issue 4's autotune benchmark).
//
// Each case is one pipeline, run with its knobs at kAutotune and with every
// static configuration of a grid (sequential included). A run reads for a
// fixed time and counts the outputs of its measured window: the second half
// of the run, by when the autotuner has had its rounds at 10, 30, 70, ...
// ms (dataset/autotuner.h). Every run gets a fresh Runtime with the same
// CPU budget, so autotuned and static runs share one pool size. Runs are
// interleaved (each repetition runs the whole grid). Per configuration it
// prints the median rate, the process CPU time per output, the cores it
// used (CPU seconds per wall second) and the spinning calls in progress on
// average (wall time in the spins per wall second: a runtime keeping two
// calls going scores 2 even when other processes leave its threads one
// core, which the cores column then shows), and each run's three; per case,
// how many cores the process really got (other processes share them); and
// a summary table: the best static configuration, the autotuned rate as a
// ratio to it (target >= 0.95), the same over whole runs (convergence
// included), the peak of buffered bytes against the RAM budget, the peak
// RSS growth (VmHWM, reset before each run), the autotuner's last decisions.
//
//   cpu       range -> map(spin 50 us)
//   io        range -> interleave(x -> range(32) -> map(sleep 2 ms), cycle_length=16)
//   cheap     range -> map(spin 1 us) -> batch(32) -> prefetch        (batches/s)
//   doubling  range -> map(spin 50 us; 100 us from the middle of the run on);
//             measured from the switch to the end: re-adaptation included
//   memory    range -> map(256 KiB tensor) -> prefetch, RAM budget 4 MiB, a
//             consumer that reads every element; each row in a fresh child
//             process (an allocator that has not cached blocks yet). A
//             control row with 4-byte elements shows the RSS growth of the
//             threads and allocator alone.
//
// Usage: autotune_bench [--seconds S] [--runs R] [--cpu-budget N]
//                       [--cases cpu,io,cheap,doubling,memory]
//                       [--only "map=seq prefetch=seq,map=auto prefetch=auto"]
// --seconds scales every run (1 = the lengths above: 1.5 s, 2 s for
// doubling); --cpu-budget defaults to the cores this process may use.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/runtime.h"

namespace sluice {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::microseconds;

constexpr int64_t kUnbounded = int64_t{1} << 40;  // a range no run reaches the end of
constexpr int64_t kNone = -2;                     // a knob the case doesn't have
constexpr int64_t kElementFloats = 64 * 1024;     // the memory case's 256 KiB elements
constexpr int64_t kLowBudget = int64_t{4} << 20;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "autotune_bench: %s\n", message.c_str());
  std::exit(1);
}

// Wall time spent in Spin so far, all threads together: over a window's
// length, the calls in progress on average. A run whose threads share one
// core still keeps two calls in progress (a descheduled call is in
// progress); a runtime that runs one call at a time keeps one.
// Each thread adds to a counter on a cache line of its own (threads past
// kSpinSlots share), so that counting costs the spins no contention.
struct alignas(64) SpinCounter {
  std::atomic<int64_t> nanos{0};
};
constexpr int kSpinSlots = 64;
SpinCounter g_spin_counters[kSpinSlots];
std::atomic<int> g_spin_threads{0};

int64_t SpinNanos() {
  int64_t total = 0;
  for (const SpinCounter& counter : g_spin_counters) total += counter.nanos.load(std::memory_order_relaxed);
  return total;
}

// Busy-waits: CPU-bound work of a known length.
void Spin(Clock::duration length) {
  thread_local SpinCounter& counter = g_spin_counters[g_spin_threads.fetch_add(1) % kSpinSlots];
  const auto start = Clock::now();
  const auto end = start + length;
  auto now = start;
  while (now < end) now = Clock::now();
  counter.nanos.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count(),
                          std::memory_order_relaxed);
}

// The knobs of a configuration; kAutotune leaves one to the tuners.
struct Knobs {
  int64_t map = kNone;         // map num_parallel_calls (0 = sequential)
  int64_t interleave = kNone;  // interleave num_parallel_calls (0 = sequential)
  int64_t prefetch = kNone;    // prefetch buffer_size (0 = synchronous)
  int64_t element_floats = 0;  // the memory case's element size; 0 = kElementFloats
};

std::string KnobName(int64_t value) {
  if (value == kAutotune) return "auto";
  return value == 0 ? "seq" : std::to_string(value);
}

std::string Label(const Knobs& k) {
  std::string out;
  auto add = [&out](const char* name, int64_t value) {
    if (value == kNone) return;
    out += (out.empty() ? "" : " ") + std::string(name) + "=" + KnobName(value);
  };
  add("map", k.map);
  add("interleave", k.interleave);
  add("prefetch", k.prefetch);
  if (k.element_floats > 0) out += StrCat(" (", 4 * k.element_floats, " B elements)");
  return out;
}

struct Case {
  std::string name;
  std::string unit;  // what an output is
  std::function<Pipeline(const Knobs&)> build;
  std::vector<Knobs> grid;  // the static configurations
  Knobs autotuned;
  double seconds = 1.5;       // one run, before --seconds scaling
  double measure_from = 0.5;  // fraction of the run before the measured window
  int64_t ram_budget = 0;     // 0 = the default (half the available memory)
  // Called as a run starts, with the run's start and length.
  std::function<void(Clock::time_point, Clock::duration)> on_start;
};

struct RunResult {
  double rate = 0;            // outputs/s in the measured window
  double whole_rate = 0;      // outputs/s over the whole run
  double cpu_per_output = 0;  // process CPU seconds per output in the measured window
  double in_progress = 0;     // the measured window's spinning calls in progress, on average
  double cores_used = 0;      // the process's CPU seconds per wall second in the window
  std::vector<AutotuneDecision> decisions;
  int64_t rounds = 0;
  int64_t peak_bytes = 0, budget_bytes = 0, throttles = 0;
  int64_t rss_growth = -1;  // peak RSS during the run minus RSS at its start; -1: unknown
};

// VmRSS or VmHWM from /proc/self/status, bytes; -1 if absent.
int64_t ProcStatusBytes(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::atoll(line.c_str() + std::strlen(field) + 1) * 1024;
  }
  return -1;
}

// Makes VmHWM the current RSS (proc(5), clear_refs "5"), so that the peak
// of what follows is measurable in one process; false if not allowed.
bool ResetPeakRss() { return static_cast<bool>(std::ofstream("/proc/self/clear_refs") << "5" << std::flush); }

// One timed run of `knobs`. `consume` sees every output.
RunResult RunOnce(const Case& c, const Knobs& knobs, int cpu_budget, double scale,
                  const std::function<void(const Element&)>& consume = {}) {
  const Pipeline pipeline = c.build(knobs);
  if (!pipeline.Build().ok()) Die(pipeline.Build().status().ToString());
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.cpu_budget = cpu_budget, .ram_budget_bytes = c.ram_budget});
  std::unique_ptr<Iterator> it = (*pipeline.Build())->MakeIterator(ctx);
  const bool rss_reset = ResetPeakRss();
  const int64_t rss_before = ProcStatusBytes("VmRSS:");

  const auto length = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(c.seconds * scale));
  const auto start = Clock::now();
  if (c.on_start) c.on_start(start, length);
  const auto window = start + std::chrono::duration_cast<Clock::duration>(length * c.measure_from);
  const auto end = start + length;
  int64_t outputs = 0, at_window = -1;
  Clock::time_point window_start;
  double window_cpu = 0;
  int64_t window_spin = 0;
  RunResult result;
  while (true) {
    Result<std::optional<Element>> next = it->GetNext();
    if (!next.ok()) Die(StrCat(c.name, " ", Label(knobs), ": ", next.status().ToString()));
    if (!next->has_value()) Die(StrCat(c.name, " ", Label(knobs), ": ended early"));
    if (consume) consume(**next);
    ++outputs;
    const auto now = Clock::now();
    if (at_window < 0 && now >= window) {
      at_window = outputs;
      window_start = now;
      window_cpu = ProcessCpuSeconds();
      window_spin = SpinNanos();
    }
    if (now >= end) {
      const double window_seconds = std::chrono::duration<double>(now - window_start).count();
      result.rate = (outputs - at_window) / window_seconds;
      result.in_progress = (SpinNanos() - window_spin) * 1e-9 / window_seconds;
      result.cores_used = (ProcessCpuSeconds() - window_cpu) / window_seconds;
      result.whole_rate = outputs / std::chrono::duration<double>(now - start).count();
      result.cpu_per_output = (ProcessCpuSeconds() - window_cpu) / std::max<int64_t>(1, outputs - at_window);
      break;
    }
  }
  const int64_t hwm = ProcStatusBytes("VmHWM:");
  if (rss_reset && rss_before >= 0 && hwm >= 0) result.rss_growth = hwm - rss_before;
  result.decisions = ctx.runtime->autotuner().Decisions();  // while its stages are alive
  result.rounds = ctx.runtime->autotuner().rounds();
  result.peak_bytes = ctx.runtime->ram_budget().peak();
  result.budget_bytes = ctx.runtime->ram_budget().limit();
  result.throttles = ctx.runtime->ram_budget().throttles();
  return result;
}

// The cores this process really gets now (other processes share them):
// CPU seconds per wall second of `threads` busy threads over `length`.
double EffectiveCores(int threads, Clock::duration length = std::chrono::milliseconds(300)) {
  const double cpu_before = ProcessCpuSeconds();
  const auto start = Clock::now();
  std::vector<std::thread> spinners;
  for (int i = 0; i < threads; ++i) spinners.emplace_back([length] { Spin(length); });
  for (std::thread& t : spinners) t.join();
  return (ProcessCpuSeconds() - cpu_before) / std::chrono::duration<double>(Clock::now() - start).count();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string Decisions(const RunResult& r) {
  if (r.decisions.empty()) return "-";
  std::string out;
  for (const AutotuneDecision& d : r.decisions) {
    char buf[128];
    if (d.name.starts_with("prefetch")) {  // a buffer: its producer's and consumer's time per element
      std::snprintf(buf, sizeof buf, "%s%s=%lld (%.0f/%.0fus)", out.empty() ? "" : " ", d.name.c_str(),
                    static_cast<long long>(d.value), d.seconds_per_element * 1e6, d.consumer_seconds * 1e6);
    } else {
      std::snprintf(buf, sizeof buf, "%s%s=%lld (%.0fus)", out.empty() ? "" : " ", d.name.c_str(),
                    static_cast<long long>(d.value), d.seconds_per_element * 1e6);
    }
    out += buf;
  }
  return out;
}

std::string Bytes(int64_t bytes) {
  char buf[32];
  if (bytes >= (int64_t{1} << 30)) {
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(int64_t{1} << 30));
  } else if (bytes >= (1 << 20)) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", bytes / double(1 << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%.0f KiB", bytes / 1024.0);
  }
  return buf;
}

// ---- The cases ----

Pipeline MapOverRange(std::function<Result<Element>(Element)> fn, int64_t parallelism,
                      LambdaFunctionOptions fn_options = {}) {
  return Pipeline::Range(kUnbounded).Map(std::move(fn), std::move(fn_options), {.num_parallel_calls = parallelism});
}

// A map function that costs `cost` of CPU and passes the element on.
std::function<Result<Element>(Element)> SpinFor(Clock::duration cost) {
  return [cost](Element e) -> Result<Element> {
    Spin(cost);
    return e;
  };
}

std::vector<Knobs> MapGrid(std::vector<int64_t> values) {
  std::vector<Knobs> grid;
  for (int64_t v : values) grid.push_back({.map = v});
  return grid;
}

Case CpuCase() {
  Case c{.name = "cpu", .unit = "elements"};
  c.build = [](const Knobs& k) { return MapOverRange(SpinFor(microseconds(50)), k.map); };
  c.grid = MapGrid({0, 1, 2, 3, 4, 6, 8});
  c.autotuned = {.map = kAutotune};
  return c;
}

Case IoCase() {
  Case c{.name = "io", .unit = "elements"};
  const ElementSpec int64_scalar{{"", DType::kInt64, Shape{}}};
  c.build = [int64_scalar](const Knobs& k) {
    auto source = [](const Element&) -> Result<DatasetPtr> {
      return Pipeline::Range(32)
          .Map([](Element e) -> Result<Element> {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            return e;
          })
          .Build();
    };
    return Pipeline::Range(kUnbounded)
        .Interleave(source, int64_scalar, {.cycle_length = 16, .num_parallel_calls = k.interleave});
  };
  for (int64_t v : {0, 1, 2, 4, 8, 16}) c.grid.push_back({.interleave = v});
  c.autotuned = {.interleave = kAutotune};
  return c;
}

Case CheapCase() {
  Case c{.name = "cheap", .unit = "batches"};
  c.build = [](const Knobs& k) {
    return MapOverRange(SpinFor(microseconds(1)), k.map).Batch({.batch_size = 32}).Prefetch(k.prefetch);
  };
  for (int64_t map : {0, 1, 2, 4}) {
    for (int64_t prefetch : {0, 1, 2, 4, 8}) c.grid.push_back({.map = map, .prefetch = prefetch});
  }
  c.autotuned = {.map = kAutotune, .prefetch = kAutotune};
  return c;
}

Case DoublingCase() {
  Case c{.name = "doubling", .unit = "elements", .seconds = 2.0};
  // When the cost doubles, as steady_clock ticks; set as each run starts.
  auto switch_at = std::make_shared<std::atomic<Clock::rep>>(0);
  c.on_start = [switch_at](Clock::time_point start, Clock::duration length) {
    switch_at->store((start + length / 2).time_since_epoch().count());
  };
  c.build = [switch_at](const Knobs& k) {
    return MapOverRange(
        [switch_at](Element e) -> Result<Element> {
          const bool doubled = Clock::now().time_since_epoch().count() >= switch_at->load(std::memory_order_relaxed);
          Spin(microseconds(doubled ? 100 : 50));
          return e;
        },
        k.map);
  };
  c.measure_from = 0.5;  // from the switch on
  c.grid = MapGrid({0, 1, 2, 3, 4, 6, 8});
  c.autotuned = {.map = kAutotune};
  return c;
}

// The memory case's element allocator: CpuAllocator(), counting the bytes
// of elements alive at once (made and not yet freed, wherever they are).
class CountingAllocator : public Allocator {
 public:
  void* Allocate(size_t bytes) override {
    const int64_t live = live_.fetch_add(static_cast<int64_t>(bytes)) + static_cast<int64_t>(bytes);
    int64_t peak = peak_.load();
    while (live > peak && !peak_.compare_exchange_weak(peak, live)) {
    }
    return CpuAllocator()->Allocate(bytes);
  }
  void Deallocate(void* data, size_t bytes) override {
    live_.fetch_sub(static_cast<int64_t>(bytes));
    CpuAllocator()->Deallocate(data, bytes);
  }
  Device device() const override { return CpuAllocator()->device(); }
  std::string_view name() const override { return "counting"; }
  int64_t peak() const { return peak_.load(); }

 private:
  std::atomic<int64_t> live_{0}, peak_{0};
};
CountingAllocator g_element_allocator;

// Elements of 256 KiB, filled (so that their pages are resident), under a
// RAM budget of 4 MiB: 16 elements.
Case MemoryCase() {
  Case c{.name = "memory", .unit = "elements", .ram_budget = kLowBudget};
  c.build = [](const Knobs& k) {
    const int64_t floats = k.element_floats > 0 ? k.element_floats : kElementFloats;
    LambdaFunctionOptions fn_options{.output_spec = ElementSpec{{"", DType::kFloat32, Shape{floats}}}};
    auto make = [floats](Element e) -> Result<Element> {
      Tensor t = Tensor::AllocateUninitialized(DType::kFloat32, Shape{floats}, &g_element_allocator);
      std::fill_n(t.mutable_data<float>(), floats, static_cast<float>(e[0].scalar<int64_t>()));
      return Element{t};
    };
    return MapOverRange(make, k.map, std::move(fn_options)).Prefetch(k.prefetch);
  };
  // map alone (the prefetch synchronous), and a greedy static configuration.
  c.grid = {{.map = kAutotune, .prefetch = 0}, {.map = 8, .prefetch = 16}};
  c.autotuned = {.map = kAutotune, .prefetch = kAutotune};
  return c;
}

// The memory case's rows: autotuned, the static ones, and a control: the
// autotuned pipeline's threads and allocator with 4-byte elements (the RSS
// growth that isn't buffered data).
std::vector<Knobs> MemoryRows(const Case& c) {
  std::vector<Knobs> rows = {c.autotuned};
  rows.insert(rows.end(), c.grid.begin(), c.grid.end());
  Knobs control = c.autotuned;
  control.element_floats = 1;
  rows.push_back(control);
  return rows;
}

// ---- Reporting ----

struct Row {
  std::string name, unit, best, decisions, peak, rss;
  double best_rate = 0, auto_rate = 0, auto_whole = 0, best_whole = 0;
  int64_t rounds = 0;
};

// Runs the grid and the autotuned configuration `runs` times, interleaved;
// prints each configuration's median and returns the case's summary.
// `only`: the configurations to run, by label, comma-separated (empty: all).
Row RunCase(const Case& c, int runs, int cpu_budget, double scale, const std::string& only) {
  std::vector<Knobs> configs = c.grid;
  configs.push_back(c.autotuned);
  if (!only.empty()) {
    std::erase_if(configs, [&only](const Knobs& k) {
      return ("," + only + ",").find("," + Label(k) + ",") == std::string::npos;
    });
    if (configs.empty()) Die(StrCat("--only matches no configuration of ", c.name));
  }
  std::vector<std::vector<RunResult>> results(configs.size());
  const double cores_before = EffectiveCores(cpu_budget);
  for (int r = 0; r < runs; ++r) {
    for (size_t i = 0; i < configs.size(); ++i) results[i].push_back(RunOnce(c, configs[i], cpu_budget, scale));
  }
  std::printf("\n== %s: cores this process got: %.2f before, %.2f after\n", c.name.c_str(), cores_before,
              EffectiveCores(cpu_budget));
  std::printf("  %-30s %10s  %9s  %5s  %5s  [each run's %s/s:cores:in progress]\n", "configuration",
              (c.unit + "/s").c_str(), "CPU us/out", "cores", "calls", c.unit.c_str());
  Row row{.name = c.name, .unit = c.unit};
  for (size_t i = 0; i < configs.size(); ++i) {
    std::vector<double> rates, whole, cpu, cores, calls;
    std::string each;
    for (const RunResult& r : results[i]) {
      rates.push_back(r.rate);
      whole.push_back(r.whole_rate);
      cpu.push_back(r.cpu_per_output * 1e6);
      cores.push_back(r.cores_used);
      calls.push_back(r.in_progress);
      char run[64];
      std::snprintf(run, sizeof run, "%s%lld:%.1f:%.1f", each.empty() ? "" : " ", static_cast<long long>(r.rate),
                    r.cores_used, r.in_progress);
      each += run;
    }
    const double median = Median(rates);
    std::printf("  %-30s %10.0f  %9.1f  %5.2f  %5.2f  [%s]\n", Label(configs[i]).c_str(), median, Median(cpu),
                Median(cores), Median(calls), each.c_str());
    if (Label(configs[i]) == Label(c.autotuned)) {
      row.auto_rate = median;
      row.auto_whole = Median(whole);
      const RunResult& last = results[i].back();
      row.decisions = Decisions(last);
      row.rounds = last.rounds;
      int64_t peak = 0;
      for (const RunResult& r : results[i]) peak = std::max(peak, r.peak_bytes);
      row.peak = Bytes(peak) + " / " + Bytes(last.budget_bytes);
      int64_t rss = -1;
      for (const RunResult& r : results[i]) rss = std::max(rss, r.rss_growth);
      row.rss = rss < 0 ? "n/a" : Bytes(rss);
      for (const RunResult& r : results[i])
        std::printf("    autotuner: %s, %lld rounds\n", Decisions(r).c_str(), static_cast<long long>(r.rounds));
    } else if (median > row.best_rate) {
      row.best_rate = median;
      row.best_whole = Median(whole);
      row.best = Label(configs[i]);
    }
  }
  return row;
}

// Where the memory case's consumer reads each element (the last page).
volatile float g_sink = 0;

// The memory case's configuration `index` (the grid's, then the autotuned
// one), in this (fresh) process: one line of figures.
int MemoryChild(int index, int cpu_budget, double scale) {
  const Case c = MemoryCase();
  const std::vector<Knobs> configs = MemoryRows(c);
  if (index < 0 || index >= static_cast<int>(configs.size())) Die("bad --memory-child index");
  const RunResult r = RunOnce(c, configs[index], cpu_budget, scale,
                              [](const Element& e) { g_sink = e[0].data<float>()[e[0].NumElements() - 1]; });
  const int64_t growth = r.rss_growth;
  std::printf("  %-38s %9.0f  %11s %10s %9lld  %11s  %11s %-5s  %s\n", Label(configs[index]).c_str(), r.rate,
              Bytes(r.peak_bytes).c_str(), r.peak_bytes <= r.budget_bytes ? "yes" : "NO",
              static_cast<long long>(r.throttles), Bytes(g_element_allocator.peak()).c_str(),
              growth < 0 ? "n/a" : Bytes(growth).c_str(),
              growth < 0                 ? ""
              : growth <= r.budget_bytes ? "yes"
                                         : "NO",
              Decisions(r).c_str());
  return 0;
}

int Main(int argc, char** argv) {
  double scale = 1.0;
  int runs = 3;
  int cpu_budget = AvailableCores();
  std::string cases = "cpu,io,cheap,doubling,memory";
  std::string only;
  int memory_child = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--seconds") == 0)
      scale = std::atof(argv[i + 1]);
    else if (std::strcmp(argv[i], "--runs") == 0)
      runs = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--cpu-budget") == 0)
      cpu_budget = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--cases") == 0)
      cases = argv[i + 1];
    else if (std::strcmp(argv[i], "--only") == 0)
      only = argv[i + 1];
    else if (std::strcmp(argv[i], "--memory-child") == 0)
      memory_child = std::atoi(argv[i + 1]);
    else
      Die(StrCat("unknown flag ", argv[i]));
  }
  if (memory_child >= 0) return MemoryChild(memory_child, cpu_budget, scale);
  auto wanted = [&cases](const std::string& name) {
    return ("," + cases + ",").find("," + name + ",") != std::string::npos;
  };

  std::printf("sluice autotune benchmark: cpu_budget=%d (cores available: %d), run length x%.2f, %d runs\n", cpu_budget,
              AvailableCores(), scale, runs);
  std::vector<Row> rows;
  for (const Case& c : {CpuCase(), IoCase(), CheapCase(), DoublingCase()}) {
    if (wanted(c.name)) rows.push_back(RunCase(c, runs, cpu_budget, scale, only));
  }

  if (!rows.empty()) {
    std::printf("\n%-9s %-22s %11s %11s %6s %6s  %-22s %10s  %s\n", "case", "best static", "static/s", "autotuned/s",
                "ratio", "whole", "peak buffered / budget", "RSS growth", "autotuner decisions (last run), rounds");
    for (const Row& r : rows) {
      const double ratio = r.auto_rate / r.best_rate;
      std::printf("%-9s %-22s %11.0f %11.0f %6.3f %6.3f  %-22s %10s  %s, %lld rounds%s\n", r.name.c_str(),
                  r.best.c_str(), r.best_rate, r.auto_rate, ratio, r.auto_whole / r.best_whole, r.peak.c_str(),
                  r.rss.c_str(), r.decisions.c_str(), static_cast<long long>(r.rounds),
                  ratio >= 0.95 ? "" : "  (below 0.95)");
    }
    std::printf(
        "ratio: autotuned / best static, medians over the measured windows; whole: the same over whole runs.\n"
        "peak buffered, RSS growth: the autotuned runs' largest. Decisions: stage=parallelism (its measured\n"
        "time per element); prefetch=buffer size, 0 = none (its producer's / consumer's time per element).\n");
  }

  if (wanted("memory")) {
    // A fresh process per configuration: VmHWM is a process-lifetime peak.
    char exe[4096];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) Die("readlink /proc/self/exe failed");
    exe[n] = '\0';
    const Case c = MemoryCase();
    std::printf("\n== memory: elements of 256 KiB, RAM budget %s, one fresh process per row\n",
                Bytes(c.ram_budget).c_str());
    std::printf("  %-38s %9s  %11s %10s %9s  %11s  %11s %-5s  %s\n", "config", "elem/s", "peak buffer", "<= budget",
                "throttles", "peak live", "RSS growth", "<=", "autotuner decisions");
    std::fflush(stdout);
    for (size_t i = 0; i < MemoryRows(c).size(); ++i) {
      const std::string command =
          StrCat("'", exe, "' --memory-child ", i, " --cpu-budget ", cpu_budget, " --seconds ", scale);
      if (std::system(command.c_str()) != 0) Die("memory child failed: " + command);
    }
  }
  return 0;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) { return sluice::Main(argc, argv); }
