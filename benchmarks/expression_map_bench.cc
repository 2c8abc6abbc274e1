// An expression map against the same function as a C++ lambda, in one run:
//
//   from_slices(N x 32 float32) -> map(y = x * 0.5 + 1) -> batch(B)
//
// Variants: the expression (dataset/expression_functions.h, row-wise, so
// map evaluates it once per run of elements); a lambda called per element;
// the same lambda declared row-wise. Epochs of the variants alternate, so a
// busy machine slows them alike; the table shows each variant's median of
// --epochs epochs and its time relative to the per-element lambda.
//
// Usage: expression_map_bench [--elements N (1000000)] [--epochs E (7)] [--batch-size B (64)]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pipeline_epoch.h"
#include "sluice/dataset/expression_functions.h"
#include "sluice/dataset/pipeline.h"

namespace sluice {
namespace {

constexpr int64_t kWidth = 32;

// y = x * 0.5 + 1 over whatever leading dims the tensor has.
Result<Element> ScaleShiftLambda(Element element) {
  const Tensor& x = element[0];
  Tensor y = Tensor::AllocateUninitialized(DType::kFloat32, x.shape());
  const float* in = x.data<float>();
  float* out = y.mutable_data<float>();
  const int64_t n = x.NumElements();
  for (int64_t i = 0; i < n; ++i) out[i] = in[i] * 0.5f + 1.0f;
  return Element{{y}};
}


int Main(int argc, char** argv) {
  int64_t n = 1'000'000;
  int epochs = 7;
  int64_t batch_size = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--elements") == 0) n = std::atoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--epochs") == 0) epochs = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--batch-size") == 0) batch_size = std::atoll(argv[i + 1]);
  }
  if (n <= 0 || epochs <= 0 || batch_size <= 0) {
    std::fprintf(stderr, "usage: expression_map_bench [--elements N] [--epochs E] [--batch-size B], all > 0\n");
    return 2;
  }
  Tensor x = Tensor::Allocate(DType::kFloat32, Shape{n, kWidth});
  for (int64_t i = 0; i < n * kWidth; ++i) x.mutable_data<float>()[i] = static_cast<float>(i % 1000) / 7.0f;
  const Pipeline source = Pipeline::FromSlices({{"x", x}});
  const ElementSpec out_spec{{"y", DType::kFloat32, Shape{kWidth}}};
  const BatchOptions batch{.batch_size = batch_size};
  struct Variant {
    std::string name;
    Pipeline pipeline;
    std::vector<double> seconds;
  };
  std::vector<Variant> variants = {
      {"expression y = x * 0.5 + 1", source.Map(MakeExpressionFunction({{"y", "x * 0.5 + 1"}})).Batch(batch), {}},
      {"lambda, per element", source.Map(ScaleShiftLambda, {.output_spec = out_spec}).Batch(batch), {}},
      {"lambda, row-wise", source.Map(ScaleShiftLambda, {.output_spec = out_spec, .row_wise = true}).Batch(batch), {}},
  };
  for (Variant& v : variants) Die(v.pipeline.Build(), v.name.c_str());
  // A warm-up epoch each, then alternating timed epochs.
  for (Variant& v : variants) TimeEpoch(v.pipeline, n);
  for (int e = 0; e < epochs; ++e) {
    for (Variant& v : variants) v.seconds.push_back(TimeEpoch(v.pipeline, n));
  }
  std::printf("from_slices(%lld x %lld float32) -> map -> batch(%lld); median of %d epochs\n",
              static_cast<long long>(n), static_cast<long long>(kWidth), static_cast<long long>(batch_size), epochs);
  std::printf("%-28s %14s %12s %18s\n", "map function", "elements/s", "ns/element", "time vs lambda");
  const double lambda_seconds = Median(variants[1].seconds);
  for (const Variant& v : variants) {
    const double seconds = Median(v.seconds);
    std::printf("%-28s %14.0f %12.1f %17.2fx\n", v.name.c_str(), n / seconds, seconds * 1e9 / n,
                seconds / lambda_seconds);
  }
  return 0;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) { return sluice::Main(argc, argv); }
