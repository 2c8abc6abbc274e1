// Snapshot read speed against the verified-read limit, side by side in one
// run, as medians (MB/s of segment file bytes, and elements/s):
//
//   limit         read() + frame split + CRC32C of every record of the
//                 segment file (benchmarks/verified_read_limit.h)
//   load          Pipeline::Load(dir): records verified and decoded into
//                 elements (numeric values copied out, strings viewed)
//   snapshot      Range(n).Map(...).Snapshot(...) reading its finished
//                 snapshot (the map never runs)
//   load+batch    Pipeline::Load(dir).Batch(64)
//
// for elements of (features: float32[k], label: int64) with k = 64, 256,
// 4096, and of one 1 KiB string; each snapshot one uncompressed segment of
// about --megabytes, saved before timing and read once to warm the page
// cache.
//
// Usage: snapshot_read_bench [--megabytes M] [--runs R] [--dir D]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "sluice/benchmarks/verified_read_limit.h"
#include "sluice/dataset/pipeline.h"

namespace sluice {
namespace {

using bench::Die;

// One kind of element: how to make element i, and its spec.
struct Kind {
  std::string name;
  ElementSpec spec;
  std::function<Element(int64_t)> make;
  int64_t record_bytes;  // data bytes of one record
};

Kind Features(int64_t k) {
  return {StrCat("float32[", k, "] + int64"),
          ElementSpec{{"features", DType::kFloat32, PartialShape{k}}, {"label", DType::kInt64, PartialShape{}}},
          [k](int64_t i) {
            std::vector<float> values(k);
            for (int64_t j = 0; j < k; ++j) values[j] = static_cast<float>(i + j) * 0.25f;
            return Element{Tensor::FromVector(values), Tensor::Scalar<int64_t>(i)};
          },
          k * 4 + 8};
}

Kind Strings(int64_t bytes) {
  return {StrCat("string of ", bytes, " B"), ElementSpec{{"text", DType::kString, PartialShape{}}},
          [bytes](int64_t i) { return Element{Tensor::Scalar(std::string(bytes, static_cast<char>('a' + i % 26)))}; },
          bytes + 8};
}

Pipeline Source(const Kind& kind, int64_t n) {
  auto make = kind.make;
  return Pipeline::Range(n).Map([make](Element e) -> Result<Element> { return make(e[0].scalar<int64_t>()); },
                                {.output_spec = kind.spec});
}

// Elements read, to the end; a batched pipeline's are its batches' rows.
int64_t Drain(const Pipeline& pipeline, bool batched = false) {
  auto it = *pipeline.MakeIterator();
  int64_t elements = 0;
  while (true) {
    auto next = it->GetNext();
    if (!next.ok()) Die(next.status().ToString());
    if (!next->has_value()) return elements;
    elements += batched ? (**next)[0].dim(0) : 1;
  }
}

struct Row {
  std::string name;
  std::function<int64_t()> run;  // elements read (limit: 0)
  std::vector<double> seconds;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Main(int argc, char** argv) {
  size_t megabytes = 128;
  int runs = 7;
  std::string dir = "/tmp";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--megabytes")) megabytes = std::strtoul(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--runs")) runs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--dir")) dir = argv[i + 1];
    else Die(std::string("unknown flag ") + argv[i]);
  }
  std::printf("%-24s %9s %9s %9s %9s %12s %9s %9s\n", "element, MB/s", "limit", "load", "snapshot", "ld+batch",
              "load el/s", "ld/limit", "snap/lim");
  for (const Kind& kind : {Features(64), Features(256), Features(4096), Strings(1024)}) {
    const int64_t n = static_cast<int64_t>((megabytes << 20) / (kind.record_bytes + 16));
    const std::string saved = dir + "/sluice_snapshot_bench_saved";
    const std::string snapshots = dir + "/sluice_snapshot_bench_snapshots";
    std::filesystem::remove_all(saved);
    std::filesystem::remove_all(snapshots);
    if (!Source(kind, n).Save(saved).ok()) Die("save failed");
    const Pipeline snapshot = Source(kind, n).Snapshot({.path = snapshots, .fingerprint = "bench"});
    if (Drain(snapshot) != n) Die("the snapshot's first pass lost elements");  // writes it
    const std::string segment = saved + "/shard-00000-00000";
    const double file_bytes = static_cast<double>(std::filesystem::file_size(segment));
    std::vector<Row> rows = {
        {"limit", [&] { return static_cast<int64_t>(bench::VerifiedReadLimit(segment) > 0 ? n : 0); }},
        {"load", [&] { return Drain(Pipeline::Load({.path = saved})); }},
        {"snapshot", [&] { return Drain(snapshot); }},
        {"load+batch", [&] { return Drain(Pipeline::Load({.path = saved}).Batch({.batch_size = 64}), /*batched=*/true); }}};
    for (Row& row : rows) {
      if (row.run() != n) Die(row.name + " read the wrong number of elements");
    }
    for (int r = 0; r < runs; ++r) {
      for (Row& row : rows) {
        const auto start = std::chrono::steady_clock::now();
        row.run();
        row.seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    }
    auto mbps = [&](const Row& row) { return file_bytes / Median(row.seconds) / 1e6; };
    std::printf("%-24s %9.0f %9.0f %9.0f %9.0f %12.3g %9.2f %9.2f\n", kind.name.c_str(), mbps(rows[0]), mbps(rows[1]),
                mbps(rows[2]), mbps(rows[3]), n / Median(rows[1].seconds), mbps(rows[1]) / mbps(rows[0]),
                mbps(rows[2]) / mbps(rows[0]));
    std::filesystem::remove_all(saved);
    std::filesystem::remove_all(snapshots);
  }
  return 0;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) { return sluice::Main(argc, argv); }
