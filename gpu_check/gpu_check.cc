// The toolkit-only GPU check (see CMakeLists.txt): every CUDA kernel against
// its CPU kernel on the parity cases, the device's allocators and copies,
// prefetch_to_device, fused optimizer updates, and an MLP trained on the GPU
// against the same MLP on the CPU. Prints each failure and, last,
// "N passed, N failed"; exits 0 only when all passed (2 without a GPU).
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "sluice/executor/cuda_device.h"
#include "sluice/executor/cuda_gpu_backend.h"
#include "sluice/executor/device_context.h"
#include "sluice/executor/device_copy.h"
#include "sluice/executor/device_prefetcher.h"
#include "mlp.h"
#include "sluice/model/adam.h"
#include "sluice/model/cuda_backend.h"
#include "sluice/model/learning_rate_schedule.h"
#include "sluice/model/sgd.h"
#include "sluice/tests/ops/cuda_parity_cases.h"

namespace sluice {
namespace {

constexpr Device kGpu{DeviceType::kCuda, 0};

struct Tally {
  int passed = 0;
  int failed = 0;
  // Counts one check; prints it when it failed.
  void Check(bool ok, const std::string& what, const std::string& detail = "") {
    if (ok) {
      ++passed;
    } else {
      ++failed;
      std::printf("FAIL %s%s%s\n", what.c_str(), detail.empty() ? "" : ": ", detail.c_str());
    }
  }
};

void CheckKernels(Tally& tally) {
  for (const OpDef* def : OpRegistry::Global().All()) {
    if (def->cpu_kernel != nullptr) tally.Check(def->cuda_kernel != nullptr, StrCat("CUDA kernel of ", def->name));
  }
  for (const testing::ParityCase& c : testing::Cases()) {
    auto cpu = testing::RunOn(Device{}, c);
    auto gpu = testing::RunOn(kGpu, c);
    if (!cpu.ok() || !gpu.ok()) {
      tally.Check(false, "parity " + c.label, (cpu.ok() ? gpu : cpu).status().ToString());
      continue;
    }
    std::string differences;
    for (size_t i = 0; i < cpu->size(); ++i) differences += testing::CompareOutputs((*cpu)[i], (*gpu)[i], c.tolerance);
    tally.Check(differences.empty(), "parity " + c.label, differences);
  }
  testing::ParityCase bad{"bad label", "sparse_softmax_cross_entropy_with_logits",
                          {Tensor::FromVector<int64_t>({0, 3, -1}), testing::Random({3, 3})}};
  auto cpu = testing::RunOn(Device{}, bad);
  auto gpu = testing::RunOn(kGpu, bad);
  tally.Check(!cpu.ok() && !gpu.ok() && cpu.status() == gpu.status(), "out-of-range label error",
              gpu.status().ToString());
}

void CheckMemory(Tally& tally) {
  const Tensor host = testing::Random({256, 33});
  DeviceContext* context = DeviceContext::Get(0).value();
  const BlockCacheStats before = context->allocator().stats();
  bool round_trips = true;
  for (int step = 0; step < 20; ++step) {
    auto back = ToHost(DeepCopy(ToDevice(host, kGpu).value()).value());
    round_trips = round_trips && back.ok() && back->Equals(host);
  }
  tally.Check(round_trips, "host -> device -> device -> host copies");
  const BlockCacheStats after = context->allocator().stats();
  tally.Check(after.misses - before.misses <= 2, "device allocator serves repeated steps from its cache",
              StrCat(after.misses - before.misses, " misses"));
  void* pinned = PinnedAllocator()->Allocate(1 << 20);
  tally.Check(pinned != nullptr, "pinned host allocation", PinnedAllocator()->last_error());
  if (pinned != nullptr) PinnedAllocator()->Deallocate(pinned, 1 << 20);
}

void CheckPrefetch(Tally& tally) {
  std::vector<Element> batches;
  for (int i = 0; i < 9; ++i) {
    auto [x, y] = RandomBatch(64, 32, 5, i);
    batches.push_back(Element{x, y});
  }
  size_t next = 0;
  auto prefetcher = MakeCudaPrefetcher(
      [&]() -> Result<std::optional<Element>> {
        if (next == batches.size()) return std::optional<Element>();
        return std::optional<Element>(batches[next++]);
      },
      {.device = kGpu, .depth = 2});
  if (!prefetcher.ok()) return tally.Check(false, "prefetch_to_device", prefetcher.status().ToString());
  const int64_t pinned_misses = PinnedAllocator()->stats().misses;
  size_t seen = 0;
  bool same = true;
  while (true) {
    auto batch = (*prefetcher)->GetNext();
    if (!batch.ok() || !batch->has_value()) break;
    for (size_t c = 0; c < 2; ++c) {
      same = same && (**batch)[c].device() == kGpu && ToHost((**batch)[c])->Equals(batches[seen][c]);
    }
    ++seen;
  }
  tally.Check(seen == batches.size() && same, "prefetch_to_device delivers every batch on the device",
              StrCat(seen, " of ", batches.size()));
  tally.Check(PinnedAllocator()->stats().misses - pinned_misses <= 4, "prefetch staging buffers are reused");
}

// The 5-class MLP trained 30 steps with `make_optimizer` on the CPU and on
// the GPU from the same weights and batches: the losses agree within 1e-3.
void CheckTraining(Tally& tally, const char* name, const std::function<std::unique_ptr<Optimizer>()>& make_optimizer) {
  Mlp cpu({32, 64, 32, 5}, 1, Device{});
  Mlp gpu({32, 64, 32, 5}, 1, kGpu);
  auto cpu_optimizer = make_optimizer();
  auto gpu_optimizer = make_optimizer();
  double worst = 0, first = 0, last = 0;
  for (int step = 0; step < 30; ++step) {
    auto [x, y] = RandomBatch(64, 32, 5, 100 + step % 4);
    auto cpu_loss = cpu.TrainStep(*cpu_optimizer, x, y);
    auto gpu_loss = gpu.TrainStep(*gpu_optimizer, ToDevice(x, kGpu).value(), ToDevice(y, kGpu).value());
    if (!cpu_loss.ok() || !gpu_loss.ok()) {
      return tally.Check(false, StrCat("training with ", name), (cpu_loss.ok() ? gpu_loss : cpu_loss).status().ToString());
    }
    const double a = cpu_loss->scalar<float>(), b = ToHost(*gpu_loss)->scalar<float>();
    worst = std::max(worst, std::abs(a - b) / (1 + std::abs(a)));
    if (step == 0) first = a;
    last = a;
  }
  tally.Check(worst < 1e-3, StrCat("GPU training with ", name, " matches the CPU"), StrCat("worst loss gap ", worst));
  tally.Check(last < first, StrCat("training with ", name, " lowers the loss"), StrCat(first, " -> ", last));
}

int Run() {
  RegisterCudaBackend();
  auto devices = ListCudaDevices();
  if (!devices.ok()) {
    std::printf("no CUDA device: %s\n0 passed, 1 failed\n", devices.status().message().c_str());
    return 2;
  }
  for (const CudaDeviceInfo& device : *devices) std::printf("%s\n", device.ToString().c_str());
  Tally tally;
  CheckKernels(tally);
  CheckMemory(tally);
  CheckPrefetch(tally);
  auto rate = std::make_shared<ConstantLearningRate>(0.01);
  CheckTraining(tally, "SGD + momentum", [&] { return std::make_unique<Sgd>(OptimizerOptions{.learning_rate = rate}, SgdOptions{.momentum = 0.9}); });
  CheckTraining(tally, "Adam", [&] { return std::make_unique<Adam>(OptimizerOptions{.learning_rate = rate}); });
  CheckTraining(tally, "clipped Adam", [&] {
    return std::make_unique<Adam>(OptimizerOptions{.learning_rate = rate, .clip_global_norm = 0.1});
  });
  std::printf("%d passed, %d failed\n", tally.passed, tally.failed);
  return tally.failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace sluice

int main() { return sluice::Run(); }
