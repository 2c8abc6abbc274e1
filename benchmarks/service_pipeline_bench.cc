// The data service against the same pipeline in-process, as a table of
// medians, all in one run on loopback:
//
//   range(N) -> map(cast float32) -> map(scale_shift) -> batch(16384) -> prefetch(4)   (64 KiB batches)
//
// Rows: in-process; a raw loopback TCP stream of the same bytes in 64 KiB
// writes (benchmarks/raw_loopback_stream.h), the transport's ceiling;
// through `sluice serve` (one worker, one consumer, distributed_epoch); the
// same with 8 splits instead of the default 64 (--rows-per-split: each split
// costs its setup on the worker); the same with zstd on the wire; a
// dispatcher with two `sluice worker` processes; each with its rate as a
// share of in-process and of raw.
// Recovery: with two workers, one is SIGKILLed mid-epoch, and the table
// gives the consumer's stall (time from the kill to its next batch) and the
// epoch's delay (how much longer than without the failure: the dead
// worker's unfinished splits are re-issued once the dispatcher has missed
// its heartbeats, 1.5 s). Every epoch's batches are checked: all values once.
// A last table sends the same pipeline without its batch, one float32
// scalar at a time (--unbatched N elements), in-process and through `sluice
// serve`: the cost of each element's trip through the service.
//
// Usage: service_pipeline_bench [--elements N (4194304, at most 2^23: each
// float32 value must name its element exactly)] [--unbatched N (262144)]
// [--runs R (5)]
// (benchmarks/run_service.sh builds and runs it).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "raw_loopback_stream.h"
#include "service/cli_process.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/service/service_dataset.h"

namespace sluice::service {
namespace {

using Seconds = std::chrono::duration<double>;
using SteadyClock = std::chrono::steady_clock;
constexpr int64_t kBatch = 16384;  // float32: 64 KiB

// With batched = false, the pipeline without its batch and prefetch: one
// float32 scalar per element.
spec::Pipeline Spec(int64_t n, bool batched = true) {
  spec::Pipeline pipeline;
  pipeline.add_ops()->mutable_range()->set_stop(n);
  spec::ElementFunction* cast = pipeline.add_ops()->mutable_map()->mutable_fn();
  cast->mutable_cast()->set_dtype("float32");
  spec::ElementFunction* scale = pipeline.add_ops()->mutable_map()->mutable_fn();
  scale->mutable_scale_shift()->set_scale(0.5);
  scale->mutable_scale_shift()->set_shift(1.0);
  if (!batched) return pipeline;
  pipeline.add_ops()->mutable_batch()->set_batch_size(kBatch);
  // In-process, the pipeline runs ahead of its consumer as on a worker.
  pipeline.add_ops()->mutable_prefetch()->set_buffer_size(4);
  return pipeline;
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "error: %s\n", what.c_str());
  std::exit(1);
}

// Called with each batch's first value as it arrives.
using OnBatch = std::function<void(int64_t first_value)>;

// Reads one epoch; returns seconds. Checks that every value came once.
double TimeEpoch(const DatasetPtr& dataset, int64_t n, const OnBatch& on_batch = nullptr) {
  const auto start = SteadyClock::now();
  auto iterator = dataset->MakeIterator();
  std::vector<bool> seen(static_cast<size_t>(n));
  int64_t count = 0;
  for (;;) {
    Result<std::optional<Element>> next = iterator->GetNext();
    if (!next.ok()) Die(next.status().ToString());
    if (!next->has_value()) break;
    const Tensor& batch = (**next)[0];  // [k], or a scalar unbatched
    const float* values = batch.data<float>();
    const int64_t size = batch.NumElements();
    for (int64_t i = 0; i < size; ++i) {
      const auto value = static_cast<int64_t>((values[i] - 1.0f) * 2.0f);
      if (value < 0 || value >= n || seen[value]) Die(StrCat("value ", value, " is out of range or repeated"));
      seen[value] = true;
    }
    count += size;
    if (on_batch) on_batch(static_cast<int64_t>((values[0] - 1.0f) * 2.0f));
  }
  const double seconds = Seconds(SteadyClock::now() - start).count();
  if (count != n) Die(StrCat("read ", count, " values, expected ", n));
  return seconds;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::string Address(CliProcess& process, const std::string& what) {
  std::optional<std::string> address = process.ReadAddress();
  if (!address.has_value()) Die(what + " did not start");
  return *address;
}

DatasetPtr ServiceDataset(const std::string& address, const spec::Pipeline& pipeline,
                          Compression compression = COMPRESSION_NONE) {
  Result<DatasetPtr> dataset = MakeServiceDataset({.address = address,
                                                   .spec = pipeline,
                                                   .compression = compression,
                                                   .timeout = std::chrono::seconds(30)});
  if (!dataset.ok()) Die(dataset.status().ToString());
  return *dataset;
}

struct Row {
  std::string name;
  std::vector<double> seconds;
};

int Main(int argc, char** argv) {
  int64_t n = int64_t{1} << 22;
  int64_t unbatched = int64_t{1} << 18;
  int runs = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--elements") == 0) n = std::atoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--unbatched") == 0) unbatched = std::atoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::atoi(argv[i + 1]);
  }
  if (n < kBatch || n > (int64_t{1} << 23) || unbatched < 1 || unbatched > (int64_t{1} << 23) || runs < 1) {
    Die(StrCat("--elements must be in [", kBatch, ", 2^23] (found ", n, "), --unbatched in [1, 2^23] (found ",
               unbatched, ") and --runs at least 1 (found ", runs, ")"));
  }
  const spec::Pipeline pipeline = Spec(n);
  const std::string dir = std::filesystem::temp_directory_path() / "sluice_service_pipeline_bench";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string spec_path = dir + "/spec.pbtxt";
  std::ofstream(spec_path) << SpecToText(pipeline);

  Row local{"in-process"}, raw{"raw loopback socket, same bytes"}, one{"sluice serve: 1 worker"},
      eight_splits{"sluice serve: 1 worker, 8 splits"}, zstd{"sluice serve: 1 worker, zstd"},
      two{"dispatcher + 2 workers"};
  Row local_scalars{"in-process, unbatched"}, one_scalars{"sluice serve: 1 worker, unbatched"};
  const spec::Pipeline scalars = Spec(unbatched, /*batched=*/false);
  std::vector<double> stalls, delays;
  Result<DatasetPtr> in_process = DatasetFromSpec(pipeline);
  if (!in_process.ok()) Die(in_process.status().ToString());
  {
    CliProcess serve({"serve", spec_path, "--port", "0"});
    const std::string address = Address(serve, "sluice serve");
    CliProcess serve_eight({"serve", spec_path, "--port", "0", "--rows-per-split", std::to_string(n / 8)});
    const DatasetPtr eight = ServiceDataset(Address(serve_eight, "sluice serve --rows-per-split"), pipeline);
    const DatasetPtr plain = ServiceDataset(address, pipeline);
    const DatasetPtr compressed = ServiceDataset(address, pipeline, COMPRESSION_ZSTD);
    Result<DatasetPtr> scalars_in_process = DatasetFromSpec(scalars);
    if (!scalars_in_process.ok()) Die(scalars_in_process.status().ToString());
    const DatasetPtr scalars_served = ServiceDataset(address, scalars);
    for (int run = 0; run < runs; ++run) {
      local.seconds.push_back(TimeEpoch(*in_process, n));
      raw.seconds.push_back(RawLoopbackStream(static_cast<uint64_t>(n) * 4, kBatch * 4));
      one.seconds.push_back(TimeEpoch(plain, n));
      eight_splits.seconds.push_back(TimeEpoch(eight, n));
      zstd.seconds.push_back(TimeEpoch(compressed, n));
      local_scalars.seconds.push_back(TimeEpoch(*scalars_in_process, unbatched));
      one_scalars.seconds.push_back(TimeEpoch(scalars_served, unbatched));
    }
  }
  {
    CliProcess dispatcher({"dispatcher", "--port", "0", "--work-dir", dir + "/journal"});
    const std::string address = Address(dispatcher, "sluice dispatcher");
    CliProcess first({"worker", "--dispatcher", address}), second({"worker", "--dispatcher", address});
    Address(first, "sluice worker");
    Address(second, "sluice worker");
    const DatasetPtr dataset = ServiceDataset(address, pipeline);
    for (int run = 0; run < runs; ++run) two.seconds.push_back(TimeEpoch(dataset, n));
  }
  for (int run = 0; run < runs; ++run) {
    std::filesystem::remove_all(dir + "/journal");
    CliProcess dispatcher({"dispatcher", "--port", "0", "--work-dir", dir + "/journal"});
    const std::string address = Address(dispatcher, "sluice dispatcher");
    auto victim = std::make_unique<CliProcess>(std::vector<std::string>{"worker", "--dispatcher", address});
    CliProcess survivor({"worker", "--dispatcher", address});
    Address(*victim, "sluice worker");
    Address(survivor, "sluice worker");
    const DatasetPtr dataset = ServiceDataset(address, pipeline);
    // The consumer's stall: from the kill to its next batch. The epoch's
    // delay: how much longer it took than without a failure (the dead
    // worker's splits wait for the dispatcher to miss its heartbeats).
    std::optional<SteadyClock::time_point> killed;
    double stall = -1;
    int64_t batches = 0;
    const double seconds = TimeEpoch(dataset, n, [&](int64_t) {
      if (killed.has_value()) {
        if (stall < 0) stall = Seconds(SteadyClock::now() - *killed).count();
      } else if (++batches == n / kBatch / 4) {
        victim->Signal(SIGKILL);
        killed = SteadyClock::now();
      }
    });
    stalls.push_back(stall);
    delays.push_back(seconds - Median(two.seconds));
  }

  const double bytes = static_cast<double>(n) * 4;
  const double base = Median(local.seconds), ceiling = Median(raw.seconds);
  std::printf("%-34s %10s %10s %12s %8s\n", "64 KiB batches, median of runs", "MB/s", "batches/s", "/in-process",
              "/raw");
  for (const Row* row : {&local, &raw, &one, &eight_splits, &zstd, &two}) {
    const double s = Median(row->seconds);
    std::printf("%-34s %10.1f %10.1f %11.2fx %7.2fx\n", row->name.c_str(), bytes / s / 1e6,
                static_cast<double>(n / kBatch) / s, base / s, ceiling / s);
  }
  std::printf("worker SIGKILLed mid-epoch (2 workers): consumer's stall %.3f s, epoch delayed %.3f s (medians of %d)\n",
              Median(stalls), Median(delays), runs);
  const double scalars_base = Median(local_scalars.seconds);
  std::printf("\n%-34s %10s %12s\n", "float32 scalars, median of runs", "elements/s", "/in-process");
  for (const Row* row : {&local_scalars, &one_scalars}) {
    const double s = Median(row->seconds);
    std::printf("%-34s %10.0f %11.3fx\n", row->name.c_str(), static_cast<double>(unbatched) / s, scalars_base / s);
  }
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace sluice::service

int main(int argc, char** argv) { return sluice::service::Main(argc, argv); }
