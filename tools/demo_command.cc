// sluice demo: a real input pipeline on generated data, end to end.
//
// Generates the classic two-feature binary data (label = x0 + x1 > 0), then
// reads it for a few epochs through
//   from_slices -> shuffle -> map(scale_shift) -> filter -> batch -> prefetch
// and a ragged-text side pipeline (interleave -> padded_batch), printing
// the graph, a sample batch and per-epoch throughput.
#include <chrono>
#include <cstdio>
#include <random>

#include "dataset/builtin_functions.h"
#include "dataset/pipeline.h"
#include "tools/commands.h"

namespace sluice::cli {
namespace {

int64_t FlagOr(const CommandArgs& args, const std::string& flag, int64_t fallback) {
  auto it = args.flags.find(flag);
  return it == args.flags.end() ? fallback : std::stoll(it->second);
}

// features [n, 2] ~ N(0, 1); label = x0 + x1 > 0 (int64).
std::vector<NamedTensor> GenerateData(int64_t n, uint64_t seed) {
  Tensor features = Tensor::Allocate(DType::kFloat32, Shape{n, 2});
  Tensor labels = Tensor::Allocate(DType::kInt64, Shape{n});
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  float* x = features.mutable_data<float>();
  for (int64_t i = 0; i < n; ++i) {
    x[2 * i] = normal(rng);
    x[2 * i + 1] = normal(rng);
    labels.mutable_data<int64_t>()[i] = x[2 * i] + x[2 * i + 1] > 0 ? 1 : 0;
  }
  return {{"features", features}, {"label", labels}};
}

// Token ids of a ragged "sentence" per input element: range(0, 1 + x % 7).
Pipeline RaggedTokens() {
  return Pipeline::Range(12)
      .Interleave(
          [](const Element& e) -> Result<DatasetPtr> {
            return Pipeline::Range(1 + e[0].scalar<int64_t>() % 7).Batch({.batch_size = 8}).Build();
          },
          ElementSpec{{"", DType::kInt64, PartialShape{-1}}}, {.cycle_length = 3, .block_length = 1})
      .PaddedBatch({.batch_size = 4, .padding_values = {Tensor::Scalar<int64_t>(-1)}});
}

}  // namespace

Status DemoCommand(const CommandArgs& args) {
  const int64_t samples = FlagOr(args, "--samples", 200'000);
  const int64_t epochs = FlagOr(args, "--epochs", 3);
  const int64_t batch_size = 32;
  if (samples <= 0 || epochs <= 0) return InvalidArgumentError("--samples and --epochs must be positive");

  std::printf("Generating %lld samples: features ~ N(0, 1) in R^2, label = x0 + x1 > 0\n",
              static_cast<long long>(samples));
  const auto pipeline = Pipeline::FromSlices(GenerateData(samples, 42))
                            .Shuffle({.buffer_size = 10'000, .seed = 42})
                            .Map(MakeScaleShiftFunction("features", 0.5, 0.0))
                            .Filter(MakeComparePredicate("label", Comparison::kGreaterEqual, 0))
                            .Batch({.batch_size = batch_size, .drop_remainder = true})
                            .Prefetch(kAutotune);
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset, pipeline.Build());
  std::printf("\nPipeline (built lazily; nothing ran yet):\n%s", DescribeGraph(*dataset).c_str());

  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    int64_t batches = 0, elements = 0, positives = 0;
    auto it = dataset->MakeIterator();
    while (true) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> batch, it->GetNext());
      if (!batch) break;
      if (epoch == 1 && batches == 0) {
        std::printf("\nFirst batch of epoch 1, first two rows: %s\n",
                    ElementToJson(dataset->element_spec(),
                                  Element{(*batch)[0].Slice(0, 2), (*batch)[1].Slice(0, 2)})
                        .c_str());
      }
      ++batches;
      elements += (*batch)[1].dim(0);
      for (int64_t i = 0; i < (*batch)[1].dim(0); ++i) positives += (*batch)[1].data<int64_t>()[i];
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("epoch %lld: %lld batches, %lld samples (%.1f%% positive) in %.3f s = %.0f samples/s\n",
                static_cast<long long>(epoch), static_cast<long long>(batches), static_cast<long long>(elements),
                100.0 * positives / std::max<int64_t>(elements, 1), seconds, elements / seconds);
  }

  SLUICE_ASSIGN_OR_RETURN(DatasetPtr ragged, RaggedTokens().Build());
  std::printf("\nRagged side pipeline:\n%s", DescribeGraph(*ragged).c_str());
  auto elements = RaggedTokens().Elements();
  for (const Element& batch : elements) std::printf("  %s\n", ElementToJson(ragged->element_spec(), batch).c_str());
  SLUICE_RETURN_IF_ERROR(elements.status());
  std::printf("\nDone. Try `sluice run examples/specs/range_map_filter_batch.pbtxt` for a pipeline spec.\n");
  return OkStatus();
}

}  // namespace sluice::cli
