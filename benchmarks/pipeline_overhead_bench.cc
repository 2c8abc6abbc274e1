// Per-element overhead of the dataset graph, as a table of medians.
//
//   from_slices(N x 32 float32, int64 labels) -> [map(identity)] -> batch(B) -> prefetch
//
// Variants: no map; map with a row-wise identity (passes whole runs); map
// with a per-element identity (one call per element). Each epoch reads every
// batch; the table shows the median of --epochs epochs in elements/s and ns
// per element. benchmarks/run_pipeline_overhead.sh runs it beside the
// PyTorch DataLoader doing the same work, and
// benchmarks/python_pipeline_bench.py beside Python iterating the same
// pipelines (B = 64 and 512).
//
// Usage: pipeline_overhead_bench [--elements N] [--epochs E] [--batch-size B (64)]
//                                [--prefetch P (autotuned; the rows then say prefetch(P))]
//                                [--only NAME (just the row of that name, e.g. under callgrind)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "pipeline_epoch.h"
#include "sluice/dataset/pipeline.h"

namespace sluice {
namespace {

struct Variant {
  std::string name;
  Pipeline pipeline;
};


int Main(int argc, char** argv) {
  int64_t n = 1'000'000;
  int epochs = 7;
  int64_t batch_size = 64;
  int64_t prefetch = kAutotune;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--elements") == 0) n = std::atoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--epochs") == 0) epochs = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--batch-size") == 0) batch_size = std::atoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--prefetch") == 0) prefetch = std::atoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--only") == 0) only = argv[i + 1];
  }
  Tensor features = Tensor::Allocate(DType::kFloat32, Shape{n, 32});
  Tensor labels = Tensor::Allocate(DType::kInt64, Shape{n});
  std::mt19937 rng(0);
  std::normal_distribution<float> normal;
  for (int64_t i = 0; i < n * 32; ++i) features.mutable_data<float>()[i] = normal(rng);
  for (int64_t i = 0; i < n; ++i) labels.mutable_data<int64_t>()[i] = static_cast<int64_t>(rng() % 5);

  const Pipeline source = Pipeline::FromSlices({{"x", features}, {"y", labels}});
  auto identity = [](Element e) -> Result<Element> { return e; };
  const BatchOptions batch{.batch_size = batch_size};
  const std::string b = StrCat("batch(", batch_size, ")");
  const std::string p = prefetch == kAutotune ? "prefetch" : StrCat("prefetch(", prefetch, ")");
  const std::vector<Variant> variants = {
      {StrCat("from_slices -> ", b), source.Batch(batch)},
      {StrCat("from_slices -> map(identity) -> ", b), source.Map(identity).Batch(batch)},
      {StrCat("from_slices -> ", b, " -> ", p), source.Batch(batch).Prefetch(prefetch)},
      {StrCat("from_slices -> map(identity, row_wise) -> ", b, " -> ", p),
       source.Map(identity, {.row_wise = true}).Batch(batch).Prefetch(prefetch)},
      {StrCat("from_slices -> map(identity) -> ", b, " -> ", p), source.Map(identity).Batch(batch).Prefetch(prefetch)},
  };

  std::printf("sluice pipeline overhead: %lld elements of 32 float32 + int64 label, median of %d epochs\n",
              static_cast<long long>(n), epochs);
  std::printf("%-66s %14s %10s\n", "pipeline", "elements/s", "ns/elem");
  for (const Variant& v : variants) {
    if (!only.empty() && v.name != only) continue;
    TimeEpoch(v.pipeline, n);  // warm-up
    std::vector<double> seconds;
    for (int e = 0; e < epochs; ++e) seconds.push_back(TimeEpoch(v.pipeline, n));
    const double median = Median(seconds);
    std::printf("%-66s %14.0f %10.1f\n", v.name.c_str(), n / median, median * 1e9 / n);
  }
  return 0;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) { return sluice::Main(argc, argv); }
