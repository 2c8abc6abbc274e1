// Runtime: what the ops of one traversal share to run in parallel: the CPU
// pool for element work (dataset/cpu_pool.h), the RAM budget every buffer
// draws from (dataset/ram_budget.h), the autotuner (dataset/autotuner.h)
// and the pipeline-wide defaults below.
//
//   IteratorContext ctx;
//   ctx.runtime = Runtime::Create({.cpu_budget = 4, .ram_budget_bytes = 1 << 30});
//   auto it = dataset->MakeIterator(ctx);
//
// Dataset::MakeIterator makes one with default options when the context has
// none. Thread safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/core/status.h"

#include "sluice/dataset/autotuner.h"
#include "sluice/dataset/cpu_pool.h"
#include "sluice/dataset/ram_budget.h"

namespace sluice {

// Whether a parallel op keeps its sequential version's order. kDefault takes
// the traversal's RuntimeOptions::deterministic.
enum class Determinism { kDefault, kDeterministic, kNondeterministic };
// "default", "true" or "false", as descriptions spell it.
std::string_view DeterminismName(Determinism determinism);

// For ops with a num_parallel_calls option (0 = sequential, N >= 1, or
// kAutotune): InvalidArgument naming `op` for other values; and the
// DebugParams suffix ", num_parallel_calls=..., deterministic=..." (empty
// when sequential).
Status CheckNumParallelCalls(std::string_view op, int64_t num_parallel_calls);
std::string ParallelParams(int64_t num_parallel_calls, Determinism determinism);

struct RuntimeOptions {
  // Threads for CPU-bound element work; 0 = the cores this process may use.
  int cpu_budget = 0;
  // Hard limit on buffered bytes; 0 = half of the available memory.
  int64_t ram_budget_bytes = 0;
  // The order of parallel ops whose own option is Determinism::kDefault:
  // true = their sequential order; false = elements as they are ready.
  bool deterministic = true;
};

class Runtime {
 public:
  static std::shared_ptr<Runtime> Create(RuntimeOptions options = {});
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const RuntimeOptions& options() const { return options_; }  // budgets resolved
  CpuPool& cpu_pool() { return cpu_pool_; }
  RamBudget& ram_budget() { return ram_budget_; }
  Autotuner& autotuner() { return autotuner_; }
  bool IsDeterministic(Determinism determinism) const {
    return determinism == Determinism::kDefault ? options_.deterministic
                                                : determinism == Determinism::kDeterministic;
  }

 private:
  explicit Runtime(RuntimeOptions options);

  const RuntimeOptions options_;
  CpuPool cpu_pool_;
  RamBudget ram_budget_;
  Autotuner autotuner_;  // last: its thread reads the budget
};

}  // namespace sluice
