#include "sluice/dataset/runtime.h"

#include "sluice/dataset/dataset.h"

namespace sluice {
namespace {

RuntimeOptions Resolve(RuntimeOptions options) {
  if (options.cpu_budget <= 0) options.cpu_budget = AvailableCores();
  if (options.ram_budget_bytes <= 0) options.ram_budget_bytes = DefaultRamBudget();
  return options;
}

}  // namespace

std::string_view DeterminismName(Determinism determinism) {
  switch (determinism) {
    case Determinism::kDefault: return "default";
    case Determinism::kDeterministic: return "true";
    case Determinism::kNondeterministic: return "false";
  }
  return "default";
}

Status CheckNumParallelCalls(std::string_view op, int64_t num_parallel_calls) {
  if (num_parallel_calls >= 0 || num_parallel_calls == kAutotune) return OkStatus();
  return InvalidArgumentError(op, ": num_parallel_calls must be >= 1, 0 (sequential) or ", kAutotune,
                              " (autotune), got ", num_parallel_calls);
}

std::string ParallelParams(int64_t num_parallel_calls, Determinism determinism) {
  if (num_parallel_calls == 0) return "";
  return StrCat(", num_parallel_calls=",
                num_parallel_calls == kAutotune ? "autotune" : std::to_string(num_parallel_calls),
                ", deterministic=", DeterminismName(determinism));
}

std::shared_ptr<Runtime> Runtime::Create(RuntimeOptions options) {
  return std::shared_ptr<Runtime>(new Runtime(options));
}

Runtime::Runtime(RuntimeOptions options)
    : options_(Resolve(options)),
      cpu_pool_(options_.cpu_budget),
      ram_budget_(options_.ram_budget_bytes),
      autotuner_({.cpu_budget = options_.cpu_budget,
                  .ram_budget = &ram_budget_,
                  .pool_cpu_seconds = [this] { return cpu_pool_.CpuSeconds(); }}) {}

}  // namespace sluice
