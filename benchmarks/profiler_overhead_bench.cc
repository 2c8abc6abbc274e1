// What the enabled profiler costs (issue 4: under 3 % of throughput), side
// by side in one run: each pipeline is read with and without a Profile in
// its IteratorContext, alternately, and the table shows the median rate of
// each and their ratio, and the ratio of the best runs' rates (what a
// machine loaded by other work disturbs least).
//
//   tfrecord     tfrecord(1 KiB records, from the page cache) -> batch(64) -> prefetch(2)
//   map 5us      range -> map(spin 5 us) -> batch(32) -> prefetch(2)
//   par map      range -> map(spin 20 us, num_parallel_calls = cpu budget) -> batch(32) -> prefetch(2)
//   tiny map     range -> map(identity, one call per element) -> batch(64) -> prefetch(2):
//                the worst case, ~0.1 us of work per element, where the
//                profiler's two clock reads per stage and element show
//
// Usage: profiler_overhead_bench [--runs R] [--scale S] [--dir D] [--only NAME]
// --scale multiplies every case's element count (1 = about 0.3 s a run);
// --only runs just the pipeline of that name ("tiny map"), as for perf.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/profile.h"
#include "sluice/dataset/cpu_pool.h"
#include "sluice/dataset/runtime.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "profiler_overhead_bench: %s\n", message.c_str());
  std::exit(1);
}

void Spin(Clock::duration length) {
  const auto end = Clock::now() + length;
  while (Clock::now() < end) {
  }
}

std::function<Result<Element>(Element)> SpinFor(Clock::duration length) {
  return [length](Element element) -> Result<Element> {
    Spin(length);
    return element;
  };
}

std::string WriteRecords(const std::string& path, int64_t count) {
  auto writer = RecordWriter::Open(path, {});
  if (!writer.ok()) Die(writer.status().ToString());
  std::mt19937_64 rng(1);
  std::string record(1024, ' ');
  for (int64_t i = 0; i < count; ++i) {
    for (char& c : record) c = static_cast<char>('a' + rng() % 12);
    if (!(*writer)->WriteRecord(record).ok()) Die("write failed");
  }
  if (!(*writer)->Close().ok()) Die("close failed");
  return path;
}

struct Case {
  std::string name;
  Pipeline pipeline;
  int64_t elements;  // input elements per run, for the rate
  std::vector<double> rate[2];  // elements/s: [0] profiler off, [1] on
};

// Reads the whole pipeline once; returns its input elements per second.
double TimeRun(const Case& c, int cpu_budget, bool profiled) {
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.cpu_budget = cpu_budget});
  if (profiled) ctx.profile = std::make_shared<Profile>();
  Result<DatasetPtr> dataset = c.pipeline.Build();
  if (!dataset.ok()) Die(dataset.status().ToString());
  const auto start = Clock::now();
  std::unique_ptr<Iterator> it = (*dataset)->MakeIterator(ctx);
  while (true) {
    Result<std::optional<Element>> next = it->GetNext();
    if (!next.ok()) Die(next.status().ToString());
    if (!next->has_value()) break;
  }
  it.reset();  // workers joined: the run is over
  return c.elements / std::chrono::duration<double>(Clock::now() - start).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double Best(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

int Main(int argc, char** argv) {
  int runs = 9;
  double scale = 1;
  std::string dir = "/tmp";
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--runs")) runs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--scale")) scale = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--dir")) dir = argv[i + 1];
    else if (!std::strcmp(argv[i], "--only")) only = argv[i + 1];
    else Die(std::string("unknown flag ") + argv[i]);
  }
  const int cpu_budget = static_cast<int>(AvailableCores());
  auto count = [scale](int64_t n) { return std::max<int64_t>(1, static_cast<int64_t>(n * scale)); };
  const int64_t records = count(200'000);
  const bool with_records = only.empty() || only == "tfrecord";
  const std::string path = dir + "/sluice_profiler_bench.tfrecord";
  if (with_records) WriteRecords(path, records);
  const int64_t spin5 = count(60'000), spin20 = count(15'000 * cpu_budget), tiny = count(2'000'000);
  std::vector<Case> cases;
  cases.push_back({"tfrecord", Pipeline::TFRecord({.files = {path}}).Batch({.batch_size = 64}).Prefetch(2), records});
  cases.push_back({"map 5us",
                   Pipeline::Range(spin5).Map(SpinFor(std::chrono::microseconds(5))).Batch({.batch_size = 32}).Prefetch(2),
                   spin5});
  cases.push_back({"par map", Pipeline::Range(spin20)
                                  .Map(SpinFor(std::chrono::microseconds(20)), {}, {.num_parallel_calls = cpu_budget})
                                  .Batch({.batch_size = 32})
                                  .Prefetch(2),
                   spin20});
  cases.push_back({"tiny map",
                   Pipeline::Range(tiny).Map([](Element e) -> Result<Element> { return e; }).Batch({.batch_size = 64}).Prefetch(2),
                   tiny});

  if (!only.empty()) {
    std::erase_if(cases, [&only](const Case& c) { return c.name != only; });
    if (cases.empty()) Die("no pipeline named " + only);
  }
  for (Case& c : cases) TimeRun(c, cpu_budget, true);  // page cache, allocator warm-up
  for (int r = 0; r < runs; ++r) {
    for (Case& c : cases) {
      // Alternate which goes first, so a drift in the machine's load hits both alike.
      for (int k = 0; k < 2; ++k) {
        const bool profiled = (r + k) % 2 == 1;
        c.rate[profiled].push_back(TimeRun(c, cpu_budget, profiled));
      }
    }
  }
  std::printf("cpu budget %d, %d runs each, medians\n", cpu_budget, runs);
  std::printf("%-10s %14s %14s %12s %10s %12s\n", "pipeline", "off, elem/s", "on, elem/s", "on / off", "cost",
              "best on/off");
  for (const Case& c : cases) {
    const double off = Median(c.rate[0]), on = Median(c.rate[1]);
    std::printf("%-10s %14.0f %14.0f %12.3f %9.1f%% %12.3f\n", c.name.c_str(), off, on, on / off, 100 * (1 - on / off),
                Best(c.rate[1]) / Best(c.rate[0]));
  }
  if (with_records) std::remove(path.c_str());
  return 0;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) { return sluice::Main(argc, argv); }
