#include "sluice/dataset/random_dataset.h"

#include <atomic>

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/seed_mix.h"

namespace sluice {
namespace {

class RandomDataset final : public Dataset {
 public:
  RandomDataset(RandomOptions options, uint64_t seed)
      : Dataset(ElementSpec{{"", DType::kInt64, Shape{}}}, kInfiniteCardinality), options_(options), seed_(seed) {}

  std::string_view op_name() const override { return "random"; }
  std::string DebugParams() const override {
    return StrCat(options_.seed ? StrCat("seed=", *options_.seed, ", ") : std::string(),
                  "rerandomize_each_iteration=", options_.rerandomize_each_iteration ? "true" : "false");
  }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext&) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    auto* node = pipeline->add_ops()->mutable_random();
    if (options_.seed) node->set_seed(*options_.seed);
    if (options_.rerandomize_each_iteration) node->set_rerandomize_each_iteration(true);
    return OkStatus();
  }

  // The seed of the next iterator's sequence.
  uint64_t NextSequenceSeed() const {
    if (!options_.rerandomize_each_iteration) return seed_;
    return MixSeed(seed_, iterations_.fetch_add(1, std::memory_order_relaxed));
  }

 private:
  const RandomOptions options_;
  const uint64_t seed_;  // options_.seed, or a random one
  mutable std::atomic<uint64_t> iterations_{0};
};

class RandomIterator final : public Iterator {
 public:
  explicit RandomIterator(uint64_t seed) : seed_(seed) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    return Element{Tensor::Scalar<int64_t>(static_cast<int64_t>(MixSeed(seed_, drawn_++)))};
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("seed", static_cast<int64_t>(seed_));
    writer.WriteInt("drawn", static_cast<int64_t>(drawn_));
    return OkStatus();
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(const int64_t seed, reader.ReadInt("seed"));
    SLUICE_ASSIGN_OR_RETURN(const int64_t drawn, reader.ReadInt("drawn", 0, INT64_MAX));
    seed_ = static_cast<uint64_t>(seed);
    drawn_ = static_cast<uint64_t>(drawn);
    return OkStatus();
  }

 private:
  uint64_t seed_;       // this sequence's
  uint64_t drawn_ = 0;  // values returned
};

std::unique_ptr<Iterator> RandomDataset::NewIteratorInternal(const IteratorContext&) const {
  return std::make_unique<RandomIterator>(NextSequenceSeed());
}

}  // namespace

Result<DatasetPtr> MakeRandomDataset(RandomOptions options) {
  const uint64_t seed = options.seed ? *options.seed : RandomSeed();
  return DatasetPtr(std::make_shared<RandomDataset>(options, seed));
}

Result<DatasetPtr> RandomDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext&) {
  const spec::Random& random = node.random();
  RandomOptions options{.rerandomize_each_iteration = random.rerandomize_each_iteration()};
  if (random.has_seed()) options.seed = random.seed();
  return MakeRandomDataset(options);
}

}  // namespace sluice
