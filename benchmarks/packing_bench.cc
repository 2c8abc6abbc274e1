// Packing efficiency of variable-length sequences, side by side in one run:
// the share of padding in the token slots each pipeline emits, and its
// throughput in real tokens per second, for
//
//   padded_batch 512   padded_batch(32, padded_shapes [512]): fixed-shape rows
//   padded_batch max   padded_batch(32): rows padded to the batch's longest
//   bucket             bucket_by_sequence_length(boundaries 17, 33, 65, 129,
//                      257; batch 32 each): padded to the batch's longest
//   pack               pack_sequences(512, max_open_rows R) -> batch(32)
//
// over the same sequences: lengths drawn from a log-normal (median 64 by
// default, sigma 1), clipped to [1, 512], random int32 tokens, read from
// memory. Each pipeline is read `--runs` times, alternately; rates are
// medians. The padding shares are exact counts and do not vary.
//
// Usage: packing_bench [--sequences N] [--runs R] [--median M] [--open-rows R]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "sluice/dataset/pipeline.h"

namespace sluice {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kSequenceLength = 512;
constexpr int64_t kBatchSize = 32;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "packing_bench: %s\n", message.c_str());
  std::exit(1);
}

struct Flags {
  int64_t sequences = 100000;
  int runs = 5;
  double median = 64;
  int64_t open_rows = 8;
};

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) Die(std::string("missing value after ") + argv[i]);
      return argv[++i];
    };
    if (std::strcmp(argv[i], "--sequences") == 0) {
      flags.sequences = std::atoll(value());
    } else if (std::strcmp(argv[i], "--runs") == 0) {
      flags.runs = std::atoi(value());
    } else if (std::strcmp(argv[i], "--median") == 0) {
      flags.median = std::atof(value());
    } else if (std::strcmp(argv[i], "--open-rows") == 0) {
      flags.open_rows = std::atoll(value());
    } else {
      Die(std::string("unknown flag ") + argv[i]);
    }
  }
  if (flags.sequences < 1 || flags.runs < 1 || flags.median < 1) Die("--sequences, --runs and --median must be >= 1");
  return flags;
}

// The sequences, and their total token count.
std::vector<Tensor> MakeSequences(const Flags& flags, int64_t* tokens) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> length(std::log(flags.median), 1.0);
  std::vector<Tensor> out;
  *tokens = 0;
  for (int64_t i = 0; i < flags.sequences; ++i) {
    const auto n = std::clamp<int64_t>(std::llround(length(rng)), 1, kSequenceLength);
    std::vector<int32_t> values(n);
    for (int32_t& v : values) v = static_cast<int32_t>(rng() % 32000) + 1;
    out.push_back(Tensor::FromVector(values));
    *tokens += n;
  }
  return out;
}

Pipeline Source(const std::vector<Tensor>& sequences) {
  return Pipeline::Range(static_cast<int64_t>(sequences.size()))
      .Map([&sequences](Element e) -> Result<Element> { return Element{sequences[e[0].scalar<int64_t>()]}; },
           {.output_spec = ElementSpec{{"tokens", DType::kInt32, PartialShape{-1}}}});
}

struct Case {
  std::string name;
  Pipeline pipeline;
  int64_t slots = 0;         // token slots emitted: the tokens' component elements
  std::vector<double> rate;  // real tokens per second, one per run
};

// Reads the pipeline once; returns the seconds it took and its token slots.
double TimeRun(const Pipeline& pipeline, int64_t* slots) {
  auto it = pipeline.MakeIterator();
  if (!it.ok()) Die(it.status().ToString());
  *slots = 0;
  const auto start = Clock::now();
  while (true) {
    Result<std::optional<Element>> next = (*it)->GetNext();
    if (!next.ok()) Die(next.status().ToString());
    if (!next->has_value()) break;
    *slots += (**next)[0].NumElements();
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Every real token of a packed batch has a non-zero segment id.
void CheckPackedTokens(const Pipeline& packed, int64_t tokens) {
  int64_t counted = 0;
  for (const Element& batch : packed.Elements()) {
    const Tensor& segment_ids = batch[1];
    const int32_t* ids = segment_ids.data<int32_t>();
    counted += std::count_if(ids, ids + segment_ids.NumElements(), [](int32_t id) { return id != 0; });
  }
  if (counted != tokens) Die("pack_sequences lost tokens: " + std::to_string(counted) + " of " + std::to_string(tokens));
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  using namespace sluice;
  const Flags flags = ParseFlags(argc, argv);
  int64_t tokens = 0;
  const std::vector<Tensor> sequences = MakeSequences(flags, &tokens);
  const Pipeline source = Source(sequences);
  std::vector<Case> cases;
  cases.push_back({"padded_batch 512", source.PaddedBatch({.batch_size = kBatchSize,
                                                           .padded_shapes = {PartialShape{kSequenceLength}}})});
  cases.push_back({"padded_batch max", source.PaddedBatch({.batch_size = kBatchSize})});
  cases.push_back({"bucket", source.BucketBySequenceLength({.bucket_boundaries = {17, 33, 65, 129, 257},
                                                            .bucket_batch_sizes = std::vector<int64_t>(6, kBatchSize)})});
  const Pipeline packed = source.PackSequences({.sequence_lengths = {kSequenceLength}, .max_open_rows = flags.open_rows})
                              .Batch({.batch_size = kBatchSize});
  cases.push_back({"pack", packed});
  CheckPackedTokens(packed, tokens);

  for (int run = 0; run < flags.runs; ++run) {
    for (Case& c : cases) {
      const double seconds = TimeRun(c.pipeline, &c.slots);
      c.rate.push_back(static_cast<double>(tokens) / seconds);
    }
  }
  std::printf("%lld sequences, %lld tokens (log-normal lengths, median %.0f, sigma 1, clipped to [1, %lld]); "
              "rows of %lld, batches of %lld; pack: max_open_rows %lld; median of %d runs\n",
              static_cast<long long>(flags.sequences), static_cast<long long>(tokens), flags.median,
              static_cast<long long>(kSequenceLength), static_cast<long long>(kSequenceLength),
              static_cast<long long>(kBatchSize), static_cast<long long>(flags.open_rows), flags.runs);
  std::printf("%-18s %14s %15s %9s %12s %16s\n", "pipeline", "token slots", "padding tokens", "padding",
              "x pack's", "real tokens/s");
  const int64_t pack_padding = cases.back().slots - tokens;
  for (const Case& c : cases) {
    const int64_t padding = c.slots - tokens;
    std::printf("%-18s %14lld %15lld %8.1f%% %11.1fx %16.3g\n", c.name.c_str(), static_cast<long long>(c.slots),
                static_cast<long long>(padding), 100.0 * static_cast<double>(padding) / static_cast<double>(c.slots),
                static_cast<double>(padding) / static_cast<double>(std::max<int64_t>(pack_padding, 1)),
                Median(c.rate));
  }
  return 0;
}
