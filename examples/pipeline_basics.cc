// A first Sluice pipeline: the code in the README, as a program to copy.
//
// Builds features/labels in memory, shuffles, normalises with a built-in
// function, batches and prefetches, then reads one epoch with range-for.
#include <cstdio>

#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/pipeline.h"

using namespace sluice;

int main() {
  Tensor x = Tensor::FromVector<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape{5, 2});
  Tensor y = Tensor::FromVector<int64_t>({0, 1, 0, 1, 1});

  auto pipeline = Pipeline::FromSlices({{"x", x}, {"y", y}})
                      .Shuffle({.buffer_size = 5, .seed = 42})
                      .Map(MakeScaleShiftFunction("x", /*scale=*/0.1, /*shift=*/-0.5))
                      .Batch({.batch_size = 2})
                      .Prefetch(kAutotune);

  const Result<DatasetPtr>& dataset = pipeline.Build();
  if (!dataset.ok()) {
    std::fprintf(stderr, "%s\n", dataset.status().ToString().c_str());
    return 1;
  }
  std::printf("%s", DescribeGraph(**dataset).c_str());

  auto batches = pipeline.Elements();
  for (const Element& batch : batches) {
    std::printf("%s\n", ElementToJson((*dataset)->element_spec(), batch).c_str());
  }
  if (!batches.status().ok()) {
    std::fprintf(stderr, "%s\n", batches.status().ToString().c_str());
    return 1;
  }
  return 0;
}
