// A program built outside the Sluice tree against an installed Sluice
// (docs/install.md): range(10) in batches of 4 through a prefetch thread,
// summed, and the graph as a pipeline spec (a generated protobuf message).
// Prints "3 batches, sum 45, a spec of 3 ops".
#include <cstdint>
#include <cstdio>

#include <sluice/dataset/pipeline.h>
#include <sluice/dataset/pipeline_spec_io.h>

int main() {
  const sluice::Pipeline pipeline =
      sluice::Pipeline::Range(10).Batch({.batch_size = 4}).Prefetch(sluice::kAutotune);

  int batches = 0;
  int64_t sum = 0;
  auto elements = pipeline.Elements();
  for (const sluice::Element& batch : elements) {
    const sluice::Tensor& values = batch.components[0];
    for (int64_t i = 0; i < values.NumElements(); ++i) sum += values.data<int64_t>()[i];
    ++batches;
  }
  if (!elements.status().ok()) {
    std::fprintf(stderr, "%s\n", elements.status().ToString().c_str());
    return 1;
  }

  const sluice::Result<sluice::spec::Pipeline> spec = sluice::DatasetToSpec(**pipeline.Build());
  if (!spec.ok()) {
    std::fprintf(stderr, "%s\n", spec.status().ToString().c_str());
    return 1;
  }
  std::printf("%d batches, sum %lld, a spec of %d ops\n", batches, static_cast<long long>(sum), spec->ops_size());
  return 0;
}
