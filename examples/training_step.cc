// A training loop written with the executor's pieces directly: ops recorded
// on a GradientTape, an optimizer step, and the input through
// PrefetchToDevice. The same code runs on a GPU with `device` set to
// Device{DeviceType::kCuda, 0} in a program that links sluice_cuda and calls
// RegisterCudaBackend() (model/cuda_backend.h); on the host (the default)
// batches pass through unchanged. Fits y = 3x + 1 and checks the weights it
// finds.
#include <cmath>
#include <cstdio>
#include <random>

#include "sluice/dataset/pipeline.h"
#include "sluice/executor/device_copy.h"
#include "sluice/executor/device_prefetcher.h"
#include "sluice/executor/gradient_tape.h"
#include "sluice/model/sgd.h"
#include "sluice/ops/binary_ops.h"
#include "sluice/ops/matmul.h"
#include "sluice/ops/reduce_ops.h"

using namespace sluice;

namespace {

Status Train(Device device) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<float> xs(256), ys(256);
  for (size_t i = 0; i < xs.size(); ++i) ys[i] = 3 * (xs[i] = uniform(rng)) + 1;
  SLUICE_ASSIGN_OR_RETURN(
      DatasetPtr dataset,
      Pipeline::FromSlices({{"x", Tensor::FromVector(xs, Shape{256, 1})}, {"y", Tensor::FromVector(ys, Shape{256, 1})}})
          .Shuffle({.buffer_size = 256, .seed = 1})
          .Batch({.batch_size = 32, .drop_remainder = true})
          .Repeat(40)
          .Prefetch(kAutotune)
          .Build());

  Variable w("w", ToDevice(Tensor::FromVector<float>({0}, Shape{1, 1}), device).value());
  Variable b("b", ToDevice(Tensor::FromVector<float>({0}, Shape{1, 1}), device).value());
  Variable* variables[] = {&w, &b};
  Sgd sgd({.learning_rate = std::make_shared<ConstantLearningRate>(0.1)}, {.momentum = 0.9});
  SLUICE_ASSIGN_OR_RETURN(auto batches, PrefetchToDevice(dataset->MakeIterator(), {.device = device, .depth = 2}));
  while (true) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> batch, batches->GetNext());
    if (!batch) break;
    GradientTape tape;
    tape.Watch(w);
    tape.Watch(b);
    SLUICE_ASSIGN_OR_RETURN(Tensor xw, MatMul((*batch)[0], w.value()));
    SLUICE_ASSIGN_OR_RETURN(Tensor prediction, Add(xw, b.value()));
    SLUICE_ASSIGN_OR_RETURN(Tensor error, Sub(prediction, (*batch)[1]));
    SLUICE_ASSIGN_OR_RETURN(Tensor squared, Mul(error, error));
    SLUICE_ASSIGN_OR_RETURN(Tensor loss, Mean(squared));
    SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> gradients, tape.Gradient(loss, variables));
    SLUICE_RETURN_IF_ERROR(sgd.Apply(variables, gradients));
  }
  SLUICE_ASSIGN_OR_RETURN(Tensor w_host, ToHost(w.value()));
  SLUICE_ASSIGN_OR_RETURN(Tensor b_host, ToHost(b.value()));
  const float w_value = w_host.data<float>()[0], b_value = b_host.data<float>()[0];
  std::printf("fitted y = %.3f x + %.3f after %lld steps\n", w_value, b_value, static_cast<long long>(sgd.iterations()));
  if (std::abs(w_value - 3) > 0.01 || std::abs(b_value - 1) > 0.01) return InternalError("did not converge");
  return OkStatus();
}

}  // namespace

int main() {
  const Status status = Train(Device{});
  if (!status.ok()) std::printf("%s\n", status.ToString().c_str());
  return status.ok() ? 0 : 1;
}
