// Data-parallel training throughput: one rank of Sluice's Trainer with
// MpiCollectives (model/trainer.h), run alone or as `mpirun -np N
// data_parallel_bench`; benchmarks/run_data_parallel.sh runs it on 1 and 2
// ranks beside PyTorch DistributedDataParallel with gloo
// (benchmarks/ddp_bench.py) in one invocation.
//
// The GEMM-bound MLP 512-1024-1024-10 (relu between), sparse softmax cross
// entropy, SGD (lr 0.01), global batch --global-batch (512) split evenly
// over the ranks, one OpenBLAS and oneTBB thread per rank, random batches
// cycled from 16 pre-made ones per rank. Alone, the Trainer has no
// collectives (the one-process baseline); under mpirun every rank runs the
// same steps and gradients are all-reduced in buckets during the backward
// pass. A warm-up, then --reps timed blocks of --steps steps, each started
// after a barrier.
//
// Output (rank 0): the median global samples/s with min..max, and the
// share of step time spent waiting for all-reduces after the backward pass
// (all-reduce not hidden behind it), plus a "RESULT sluice <ranks>
// <samples/s> <unhidden share>" line for scripts.
//
// Usage: data_parallel_bench [--global-batch B] [--steps S] [--reps R]
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <tbb/global_control.h>

#include "sluice/executor/mpi_collectives.h"
#include "sluice/model/dense.h"
#include "sluice/model/losses.h"
#include "sluice/model/model.h"
#include "sluice/model/sgd.h"
#include "sluice/model/trainer.h"
#include "sluice/benchmarks/bench_util.h"

namespace sluice {
namespace {

using Clock = std::chrono::steady_clock;

int64_t Flag(int argc, char** argv, const char* name, int64_t fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::atoll(argv[i + 1]);
  }
  return fallback;
}

int Run(int argc, char** argv) {
  const int64_t global_batch = Flag(argc, argv, "--global-batch", 512);
  const int64_t steps = Flag(argc, argv, "--steps", 20);
  const int reps = static_cast<int>(Flag(argc, argv, "--reps", 5));
  openblas_set_num_threads(1);
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism, 1);

  std::unique_ptr<MpiCollectives> world;
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) {
    Result<std::unique_ptr<MpiCollectives>> joined = MpiCollectives::Join();
    Die(joined.status(), "joining the MPI world");
    world = *std::move(joined);
  }
  const int ranks = world ? world->size() : 1;
  const int rank = world ? world->rank() : 0;
  if (global_batch % ranks != 0) Die(InvalidArgumentError("the global batch must divide by the ranks"), "flags");
  const int64_t batch = global_batch / ranks;

  const int64_t widths[] = {512, 1024, 1024, 10};
  std::vector<std::unique_ptr<Layer>> layers;
  for (size_t i = 1; i < 4; ++i) {
    const Activation activation = i == 3 ? Activation::kLinear : Activation::kRelu;
    layers.push_back(
        std::make_unique<Dense>(StrCat("dense_", i), DenseOptions{.units = widths[i], .activation = activation}));
  }
  Result<std::unique_ptr<Model>> model = Model::Sequential({"x", DType::kFloat32, Shape{512}}, std::move(layers), 0);
  Die(model.status(), "building the model");
  SparseCategoricalCrossentropy loss(/*from_logits=*/true);
  Sgd sgd({.learning_rate = std::make_shared<ConstantLearningRate>(0.01)});
  Trainer trainer(**model, loss, sgd, {.collectives = world.get()});

  std::mt19937 rng(static_cast<uint32_t>(rank));
  std::normal_distribution<float> normal;
  std::vector<Element> batches;
  for (int b = 0; b < 16; ++b) {
    Tensor x = Tensor::AllocateUninitialized(DType::kFloat32, Shape{batch, 512});
    for (int64_t i = 0; i < batch * 512; ++i) x.mutable_data<float>()[i] = normal(rng);
    Tensor y = Tensor::Allocate(DType::kInt64, Shape{batch});
    for (int64_t i = 0; i < batch; ++i) y.mutable_data<int64_t>()[i] = static_cast<int64_t>(rng() % 10);
    batches.push_back(Element{x, y});
  }
  const ElementSpec spec{{"x", DType::kFloat32, PartialShape(Shape{batch, 512})},
                         {"label", DType::kInt64, PartialShape(Shape{batch})}};

  int64_t i = 0;
  const auto step = [&] { Die(trainer.TrainStep(batches[i++ % batches.size()], spec).status(), "TrainStep"); };
  for (int64_t k = 0; k < std::max<int64_t>(3, steps / 4); ++k) step();
  std::vector<double> rates;
  std::vector<double> shares;
  for (int r = 0; r < reps; ++r) {
    if (world) Die(world->Barrier(), "MPI_Barrier");
    const Clock::duration waited = trainer.all_reduce_wait();
    const Clock::time_point start = Clock::now();
    for (int64_t k = 0; k < steps; ++k) step();
    const Clock::duration took = Clock::now() - start;
    rates.push_back(static_cast<double>(global_batch * steps) / std::chrono::duration<double>(took).count());
    shares.push_back(std::chrono::duration<double>(trainer.all_reduce_wait() - waited).count() /
                     std::chrono::duration<double>(took).count());
  }
  if (rank == 0) {
    const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
    std::printf("sluice  %d rank(s), batch %lld per rank: %8.0f samples/s (%.0f .. %.0f), "
                "all-reduce not hidden %.1f%%\n",
                ranks, static_cast<long long>(batch), Median(rates), *lo, *hi, 100 * Median(shares));
    std::printf("RESULT sluice %d %.1f %.4f\n", ranks, Median(rates), Median(shares));
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) { return sluice::Run(argc, argv); }
