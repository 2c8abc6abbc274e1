// Training throughput of small models, as a table of medians: the PyTorch
// side is /work/shared/bench/torch_train.py, and benchmarks/run_train.sh runs
// both in one invocation.
//
// Cases (Adam; random data cycled from 256 pre-made batches; a warm-up,
// then --reps timed blocks; the table shows medians and min..max):
//   a  MLP 32-64-32-5, relu between, sparse softmax cross entropy, batch 64,
//      1 thread, Adam lr 1e-3 (torch_train.py mlp's defaults)
//   b  the demo model 2-16(relu)-1, binary cross entropy on logits, batch 32,
//      Adam lr 1e-2 (torch_train.py seed), 1 thread
//   c  GEMM-bound MLP 512-1024-1024-10, batch 256, 2 threads; also times
//      cblas_sgemm alone on 256x1024x1024 and gives the step's GFLOP/s
//      (6 * batch * sum(in * out) flops: forward + two backward GEMMs)
// Each case runs two ways:
//   trainstep  Trainer::TrainStep(batch, spec), the path Fit takes (no metrics)
//   direct     GradientTape + Model::CallSingle + loss + Optimizer::Apply,
//              without the trainer's bookkeeping
// OpenBLAS and oneTBB are both limited to the case's thread count.
//
// Output: a human table, plus one "RESULT <case> <variant> <steps/s>
// <samples/s>" line per row for scripts.
//
// Usage: train_bench [--case a|b|c|all] [--reps R] [--steps-scale S]
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <tbb/global_control.h>

#include "sluice/executor/gradient_tape.h"
#include "sluice/model/adam.h"
#include "sluice/model/dense.h"
#include "sluice/model/losses.h"
#include "sluice/model/model.h"
#include "sluice/model/trainer.h"
#include "sluice/benchmarks/bench_util.h"

namespace sluice {
namespace {

using Clock = std::chrono::steady_clock;

struct Case {
  const char* id;
  const char* title;
  std::vector<int64_t> widths;  // input, hidden..., output
  int64_t batch;
  int threads;
  bool binary;          // BinaryCrossentropy on one logit, else sparse softmax CE
  double learning_rate;
  int64_t steps;        // per timed block
};

// The rates of `reps` blocks of `steps` calls of `step` (after `warm` calls).
std::vector<double> TimeSteps(const std::function<void(int64_t)>& step, int64_t warm, int64_t steps, int reps) {
  int64_t i = 0;
  for (; i < warm; ++i) step(i);
  std::vector<double> rates;
  for (int r = 0; r < reps; ++r) {
    const Clock::time_point start = Clock::now();
    for (int64_t k = 0; k < steps; ++k, ++i) step(i);
    rates.push_back(static_cast<double>(steps) / std::chrono::duration<double>(Clock::now() - start).count());
  }
  return rates;
}

void PrintRow(const Case& c, const char* variant, const std::vector<double>& rates) {
  const double median = Median(rates);
  const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
  std::printf("%-4s %-34s %-10s %10.0f %12.0f   (%.0f .. %.0f steps/s)\n", c.id, c.title, variant, median,
              median * static_cast<double>(c.batch), *lo, *hi);
  std::printf("RESULT %s %s %.2f %.2f\n", c.id, variant, median, median * static_cast<double>(c.batch));
  std::fflush(stdout);
}

struct Setup {
  std::unique_ptr<Model> model;
  std::unique_ptr<Loss> loss;
  std::unique_ptr<Optimizer> optimizer;
  std::vector<Element> batches;
  ElementSpec spec;
};

Setup MakeSetup(const Case& c) {
  Setup s;
  std::vector<std::unique_ptr<Layer>> layers;
  for (size_t i = 1; i < c.widths.size(); ++i) {
    const bool last = i + 1 == c.widths.size();
    layers.push_back(std::make_unique<Dense>(
        StrCat("dense_", i), DenseOptions{.units = c.widths[i], .activation = last ? Activation::kLinear : Activation::kRelu}));
  }
  auto model = Model::Sequential({"x", DType::kFloat32, Shape{c.widths.front()}}, std::move(layers), /*seed=*/0);
  Die(model, "building the model");
  s.model = *std::move(model);
  if (c.binary) {
    s.loss = std::make_unique<BinaryCrossentropy>(/*from_logits=*/true);
  } else {
    s.loss = std::make_unique<SparseCategoricalCrossentropy>(/*from_logits=*/true);
  }
  s.optimizer = std::make_unique<Adam>(
      OptimizerOptions{.learning_rate = std::make_shared<ConstantLearningRate>(c.learning_rate)});

  constexpr int kBatches = 256;  // as torch_train.py
  std::mt19937 rng(0);
  std::normal_distribution<float> normal;
  const int64_t features = c.widths.front(), classes = c.widths.back();
  for (int b = 0; b < kBatches; ++b) {
    Tensor x = Tensor::AllocateUninitialized(DType::kFloat32, Shape{c.batch, features});
    float* xs = x.mutable_data<float>();
    for (int64_t i = 0; i < c.batch * features; ++i) xs[i] = normal(rng);
    Tensor y;
    if (c.binary) {
      // The demo's labels: x0 + x1 > 0, as float [batch, 1].
      y = Tensor::Allocate(DType::kFloat32, Shape{c.batch, 1});
      for (int64_t i = 0; i < c.batch; ++i) y.mutable_data<float>()[i] = xs[i * features] + xs[i * features + 1] > 0;
    } else {
      y = Tensor::Allocate(DType::kInt64, Shape{c.batch});
      for (int64_t i = 0; i < c.batch; ++i) y.mutable_data<int64_t>()[i] = static_cast<int64_t>(rng() % classes);
    }
    s.batches.push_back(Element{x, y});
  }
  s.spec = ElementSpec{{"x", DType::kFloat32, PartialShape(Shape{c.batch, features})},
                       {"label", s.batches[0][1].dtype(), PartialShape(s.batches[0][1].shape())}};
  return s;
}

// 256 x 1024 x 1024 sgemm alone, GFLOP/s (median of reps).
double SgemmGflops(int reps) {
  const int m = 256, n = 1024, k = 1024;
  std::vector<float> a(static_cast<size_t>(m) * k, 0.5f), b(static_cast<size_t>(k) * n, 0.25f),
      out(static_cast<size_t>(m) * n);
  auto call = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
                out.data(), n);
  };
  for (int i = 0; i < 5; ++i) call();
  std::vector<double> gflops;
  const int calls = 40;
  for (int r = 0; r < reps; ++r) {
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < calls; ++i) call();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    gflops.push_back(2.0 * m * n * k * calls / seconds / 1e9);
  }
  return Median(gflops);
}

void RunCase(const Case& c, int reps, double steps_scale) {
  openblas_set_num_threads(c.threads);
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(c.threads));
  const int64_t steps = std::max<int64_t>(10, static_cast<int64_t>(static_cast<double>(c.steps) * steps_scale));
  const int64_t warm = std::max<int64_t>(5, steps / 4);
  double trainstep_rate = 0;

  {
    Setup s = MakeSetup(c);
    Trainer trainer(*s.model, *s.loss, *s.optimizer);
    auto step = [&](int64_t i) { Die(trainer.TrainStep(s.batches[i % s.batches.size()], s.spec), "TrainStep"); };
    const std::vector<double> rates = TimeSteps(step, warm, steps, reps);
    PrintRow(c, "trainstep", rates);
    trainstep_rate = Median(rates);
  }
  double direct_rate = 0;
  {
    Setup s = MakeSetup(c);
    std::vector<Variable*> trainable = s.model->trainable_variables();
    auto step = [&](int64_t i) {
      const Element& batch = s.batches[i % s.batches.size()];
      std::vector<Tensor> gradients;
      {
        GradientTape tape;
        for (Variable* variable : trainable) tape.Watch(*variable);
        const Tensor inputs[] = {batch[0]};
        Result<Tensor> predictions = s.model->CallSingle(inputs, /*training=*/true);
        Die(predictions, "model call");
        Result<Tensor> loss = (*s.loss)(batch[1], *predictions);
        Die(loss, "loss");
        Result<std::vector<Tensor>> grads = tape.Gradient(*loss, trainable);
        Die(grads, "gradient");
        gradients = *std::move(grads);
      }
      Die(s.optimizer->Apply(trainable, gradients), "Adam");
    };
    const std::vector<double> rates = TimeSteps(step, warm, steps, reps);
    PrintRow(c, "direct", rates);
    direct_rate = Median(rates);
  }
  if (std::strcmp(c.id, "c") == 0) {
    double flops_per_step = 0;
    for (size_t i = 1; i < c.widths.size(); ++i) {
      flops_per_step += 6.0 * static_cast<double>(c.batch * c.widths[i - 1] * c.widths[i]);
    }
    const double sgemm = SgemmGflops(reps);
    const double step = trainstep_rate * flops_per_step / 1e9;
    std::printf("%-4s cblas_sgemm 256x1024x1024 alone: %.1f GFLOP/s; whole TrainStep: %.1f GFLOP/s (%.0f%% of sgemm; "
                "direct: %.1f)\n",
                c.id, sgemm, step, 100 * step / sgemm, direct_rate * flops_per_step / 1e9);
    std::printf("RESULT c sgemm_gflops %.2f\n", sgemm);
    std::printf("RESULT c step_gflops %.2f\n", step);
  }
}

int Main(int argc, char** argv) {
  std::string which = "all";
  int reps = 7;
  double steps_scale = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--case") == 0) which = argv[i + 1];
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--steps-scale") == 0) steps_scale = std::atof(argv[i + 1]);
  }
  const std::vector<Case> cases = {
      {"a", "MLP 32-64-32-5 bs64 1 thread", {32, 64, 32, 5}, 64, 1, false, 1e-3, 2000},
      {"b", "demo 2-16-1 bs32 1 thread", {2, 16, 1}, 32, 1, true, 1e-2, 2000},
      {"c", "MLP 512-1024-1024-10 bs256 2 threads", {512, 1024, 1024, 10}, 256, 2, false, 1e-3, 50},
  };
  std::printf("%-4s %-34s %-10s %10s %12s\n", "case", "model", "variant", "steps/s", "samples/s");
  for (const Case& c : cases) {
    if (which == "all" || which == c.id) RunCase(c, reps, steps_scale);
  }
  return 0;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) { return sluice::Main(argc, argv); }
