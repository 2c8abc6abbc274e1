// Parallel ops under one traversal's budgets: an autotuned parallel map, a
// parallel batch and an autotuned prefetch, run within a CPU budget of 2
// threads and a RAM budget of 64 MiB. Prints the order check, what the
// autotuner chose and the RAM budget's high-water mark.
#include <cstdio>
#include <numeric>

#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/pipeline.h"

using namespace sluice;

int main() {
  std::vector<float> values(10000 * 8);
  std::iota(values.begin(), values.end(), 0.0f);
  Tensor x = Tensor::FromVector<float>(values, Shape{10000, 8});

  auto pipeline = Pipeline::FromSlices({{"x", x}})
                      .Map(MakeScaleShiftFunction("x", /*scale=*/2.0, /*shift=*/0.0),
                           {.num_parallel_calls = kAutotune})
                      .Batch({.batch_size = 64, .num_parallel_calls = 2})
                      .Prefetch(kAutotune);
  IteratorContext ctx;  // optional: budgets and the default order for the whole traversal
  ctx.runtime = Runtime::Create({.cpu_budget = 2, .ram_budget_bytes = int64_t{64} << 20, .deterministic = true});
  auto dataset = pipeline.Build();
  if (!dataset.ok()) return std::printf("%s\n", dataset.status().ToString().c_str()), 1;
  auto it = (*dataset)->MakeIterator(ctx);

  // Deterministic (the default): the sequential order, whatever the parallelism.
  float expected = 0;
  int64_t batches = 0;
  while (true) {
    Result<std::optional<Element>> batch = it->GetNext();
    if (!batch.ok()) return std::printf("%s\n", batch.status().ToString().c_str()), 1;
    if (!batch->has_value()) break;
    const Tensor& rows = (**batch)[0];
    for (int64_t i = 0; i < rows.NumElements(); ++i) {
      if (rows.data<float>()[i] != 2 * expected++) return std::printf("out of order at batch %lld\n", (long long)batches), 1;
    }
    ++batches;
  }
  std::printf("%lld batches in order\n", static_cast<long long>(batches));
  for (const AutotuneDecision& decision : ctx.runtime->autotuner().Decisions()) {
    std::printf("autotuner: %s = %lld\n", decision.name.c_str(), static_cast<long long>(decision.value));
  }
  std::printf("RAM budget peak: %lld of %lld bytes\n", static_cast<long long>(ctx.runtime->ram_budget().peak()),
              static_cast<long long>(ctx.runtime->ram_budget().limit()));
  return batches == 157 ? 0 : 1;
}
