// The GPU benchmarks of scripts/gpu_check.sh, on device 0:
//  1. samples/s of MLP training steps (Sluice's ops, tape and Adam on the
//     GPU): the 5-class MLP 32-64-32-5 at batch 64 and 1024-4096-4096-1000
//     at batch 1024; batches already on the device. gpu_check/torch_mlp.py
//     times the same models in PyTorch.
//  2. overlap of prefetch_to_device: a host input stage of cost I per batch
//     (on a producer thread, as a pipeline's prefetch runs it) feeding a
//     compute step of cost C (a kernel that reads the batch and spins for C,
//     then a wait, as reading the loss does); step time / max(I, C) and the
//     share of wall time the GPU sat idle, with and without the prefetcher.
//  3. mixed precision: the large MLP's GEMMs (forward and both backward
//     products per layer) in bfloat16 (float32 accumulation) against
//     float32, through cuBLAS: the speed-up available to a bf16 policy.
// Prints "RESULT <name> <value>" lines, then a table.
#include <cuda_bf16.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>

#include "sluice/executor/cuda_gpu_backend.h"
#include "sluice/executor/device_context.h"
#include "sluice/executor/device_copy.h"
#include "sluice/executor/device_prefetcher.h"
#include "mlp.h"
#include "sluice/model/adam.h"
#include "sluice/model/cuda_backend.h"
#include "sluice/model/learning_rate_schedule.h"
#include "sluice/ops/cuda_status.h"

namespace sluice {
namespace {

constexpr Device kGpu{DeviceType::kCuda, 0};

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void Report(const std::string& name, double value) { std::printf("RESULT %s %.4g\n", name.c_str(), value); }

// Exits with the status when a setup step fails: a benchmark has no way on.
template <typename T>
T Must(Result<T> result, const char* what) {
  if (!result.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, result.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(*result);
}

void Must(const Status& status, const char* what) {
  if (!status.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, status.ToString().c_str());
    std::exit(1);
  }
}

double TrainSamplesPerSecond(const std::vector<int64_t>& widths, int64_t batch, int steps) {
  Mlp mlp(widths, 1, kGpu);
  Adam adam(OptimizerOptions{.learning_rate = std::make_shared<ConstantLearningRate>(1e-3)});
  std::vector<std::pair<Tensor, Tensor>> batches;
  for (int i = 0; i < 4; ++i) {
    auto [x, y] = RandomBatch(batch, widths.front(), widths.back(), i);
    batches.emplace_back(Must(ToDevice(x, kGpu), "copy"), Must(ToDevice(y, kGpu), "copy"));
  }
  DeviceContext* context = Must(DeviceContext::Get(0), "device");
  for (int i = 0; i < 5; ++i) Must(mlp.TrainStep(adam, batches[i % 4].first, batches[i % 4].second), "warm-up");
  Must(context->Synchronize(), "sync");
  const double start = Now();
  for (int i = 0; i < steps; ++i) Must(mlp.TrainStep(adam, batches[i % 4].first, batches[i % 4].second), "step");
  Must(context->Synchronize(), "sync");
  return static_cast<double>(batch * steps) / (Now() - start);
}

// Busy for `ns` nanoseconds of GPU time after reading the batch.
__global__ void ComputeStage(const float* x, int64_t ns, float* out) {
  uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < static_cast<uint64_t>(ns));
  out[0] = x[0];
}

void SpinFor(double seconds) {
  const double until = Now() + seconds;
  while (Now() < until) {
  }
}

// Batches of 8 MiB made by a producer thread at `input_ms` each, at most 4
// ahead (a pipeline ending in prefetch), then the end (nullopt).
class SlowInput {
 public:
  SlowInput(double input_ms, int batches)
      : batch_(RandomBatch(2048, 1024, 10, 0).first),
        thread_([this, input_ms, batches] { Produce(input_ms, batches); }) {}
  ~SlowInput() { thread_.join(); }

  std::optional<Element> Next() {
    std::unique_lock lock(mu_);
    ready_.wait(lock, [&] { return !queue_.empty(); });
    std::optional<Element> next = std::move(queue_.front());
    queue_.pop_front();
    space_.notify_one();
    return next;
  }

 private:
  void Produce(double input_ms, int batches) {
    for (int i = 0; i <= batches; ++i) {
      std::optional<Element> batch;
      if (i < batches) {
        SpinFor(input_ms / 1000);
        batch = Element{batch_};
      }
      std::unique_lock lock(mu_);
      space_.wait(lock, [&] { return queue_.size() < 4; });
      queue_.push_back(std::move(batch));
      ready_.notify_one();
    }
  }

  std::mutex mu_;
  std::condition_variable ready_, space_;
  std::deque<std::optional<Element>> queue_;
  const Tensor batch_;
  std::thread thread_;
};

struct Overlap {
  double step_ms;
  double ratio;       // step / max(I, C)
  double idle_share;  // of wall time, GPU not running the compute stage
};

Overlap MeasureOverlap(double input_ms, double compute_ms, bool prefetch) {
  constexpr int kSteps = 40, kWarmup = 4;
  DeviceContext* context = Must(DeviceContext::Get(0), "device");
  cudaStream_t stream = context->compute_stream();
  SlowInput input(input_ms, kSteps + kWarmup);
  std::unique_ptr<DevicePrefetcher> prefetcher;
  if (prefetch) {
    prefetcher = Must(MakeCudaPrefetcher([&]() -> Result<std::optional<Element>> { return input.Next(); },
                                         {.device = kGpu, .depth = 2}),
                      "prefetcher");
  }
  Tensor out = Must(ToDevice(Tensor::Allocate(DType::kFloat32, Shape{1}), kGpu), "out");
  cudaEvent_t begin, end;
  Must(CudaStatus(cudaEventCreate(&begin), "cudaEventCreate"), "event");
  Must(CudaStatus(cudaEventCreate(&end), "cudaEventCreate"), "event");
  double start = 0, busy_ms = 0;
  for (int step = 0; step < kSteps + kWarmup; ++step) {
    if (step == kWarmup) start = Now();
    Tensor x;
    if (prefetch) {
      x = (*Must(prefetcher->GetNext(), "batch"))[0];
    } else {
      x = Must(ToDevice((*input.Next())[0], kGpu), "copy");
    }
    Must(CudaStatus(cudaEventRecord(begin, stream), "cudaEventRecord"), "event");
    ComputeStage<<<1, 1, 0, stream>>>(x.data<float>(), static_cast<int64_t>(compute_ms * 1e6), out.mutable_data<float>());
    Must(CudaStatus(cudaEventRecord(end, stream), "cudaEventRecord"), "event");
    Must(CudaStatus(cudaStreamSynchronize(stream), "cudaStreamSynchronize"), "sync");  // as reading the loss
    float ms = 0;
    Must(CudaStatus(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime"), "event");
    if (step >= kWarmup) busy_ms += ms;
  }
  const double wall_ms = (Now() - start) * 1000;
  if (prefetch) (void)prefetcher->GetNext();  // drain the end marker
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  const double step_ms = wall_ms / kSteps;
  return {step_ms, step_ms / std::max(input_ms, compute_ms), 1 - busy_ms / wall_ms};
}

// Milliseconds per pass over the large MLP's GEMMs in float32 or bfloat16.
double GemmPassMs(bool bf16) {
  const int batch = 1024;
  const std::vector<std::pair<int, int>> layers = {{1024, 4096}, {4096, 4096}, {4096, 1000}};
  cublasHandle_t handle;
  Must(CublasStatus(cublasCreate(&handle), "cublasCreate"), "cublas");
  const size_t elements = size_t{4096} * 4096;
  const size_t size = bf16 ? 2 : 4;
  void *a, *b, *c;
  Must(CudaStatus(cudaMalloc(&a, elements * size), "cudaMalloc"), "alloc");
  Must(CudaStatus(cudaMalloc(&b, elements * size), "cudaMalloc"), "alloc");
  Must(CudaStatus(cudaMalloc(&c, elements * size), "cudaMalloc"), "alloc");
  Must(CudaStatus(cudaMemset(a, 0x3c, elements * size), "cudaMemset"), "fill");
  Must(CudaStatus(cudaMemset(b, 0x3c, elements * size), "cudaMemset"), "fill");
  const cudaDataType type = bf16 ? CUDA_R_16BF : CUDA_R_32F;
  const float one = 1, zero = 0;
  auto gemm = [&](cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k) {
    Must(CublasStatus(cublasGemmEx(handle, ta, tb, m, n, k, &one, a, type, ta == CUBLAS_OP_N ? m : k, b, type,
                                   tb == CUBLAS_OP_N ? k : n, &zero, c, type, m, CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT),
                      "cublasGemmEx"),
         "gemm");
  };
  auto pass = [&] {
    for (const auto& [in, out] : layers) {
      gemm(CUBLAS_OP_N, CUBLAS_OP_N, out, batch, in);  // forward
      gemm(CUBLAS_OP_T, CUBLAS_OP_N, in, batch, out);  // d input
      gemm(CUBLAS_OP_N, CUBLAS_OP_T, out, in, batch);  // d weights
    }
  };
  for (int i = 0; i < 3; ++i) pass();
  Must(CudaStatus(cudaDeviceSynchronize(), "cudaDeviceSynchronize"), "sync");
  const int reps = 20;
  const double start = Now();
  for (int i = 0; i < reps; ++i) pass();
  Must(CudaStatus(cudaDeviceSynchronize(), "cudaDeviceSynchronize"), "sync");
  const double ms = (Now() - start) * 1000 / reps;
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cublasDestroy(handle);
  return ms;
}

int Run() {
  RegisterCudaBackend();
  if (auto count = CudaDeviceCount(); !count.ok()) {
    std::printf("no CUDA device: %s\n", count.status().message().c_str());
    return 2;
  }
  const double small = TrainSamplesPerSecond({32, 64, 32, 5}, 64, 300);
  Report("mlp_small_sluice_samples_per_s", small);
  const double large = TrainSamplesPerSecond({1024, 4096, 4096, 1000}, 1024, 30);
  Report("mlp_large_sluice_samples_per_s", large);

  struct Case {
    double input_ms, compute_ms;
  };
  std::printf("\n%-12s %-12s %-10s %-14s %-10s %-14s\n", "I (ms)", "C (ms)", "prefetch", "step (ms)", "step/max",
              "GPU idle");
  for (const Case& c : {Case{2, 4}, Case{4, 4}, Case{4, 2}}) {
    for (bool prefetch : {false, true}) {
      const Overlap o = MeasureOverlap(c.input_ms, c.compute_ms, prefetch);
      std::printf("%-12.1f %-12.1f %-10s %-14.3f %-10.3f %-14.1f%%\n", c.input_ms, c.compute_ms,
                  prefetch ? "depth 2" : "none", o.step_ms, o.ratio, 100 * o.idle_share);
      const std::string name = StrCat("overlap_I", c.input_ms, "_C", c.compute_ms, prefetch ? "_prefetch" : "_none");
      Report(name + "_ratio", o.ratio);
      Report(name + "_gpu_idle", o.idle_share);
    }
  }

  const double fp32 = GemmPassMs(false), bf16 = GemmPassMs(true);
  Report("gemm_pass_fp32_ms", fp32);
  Report("gemm_pass_bf16_ms", bf16);
  Report("gemm_bf16_speedup", fp32 / bf16);
  return 0;
}

}  // namespace
}  // namespace sluice

int main() { return sluice::Run(); }
