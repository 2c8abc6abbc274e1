#include "dataset/shuffle_dataset.h"

#include <atomic>
#include <random>

#include "dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

// splitmix64: turns (seed, iteration) into well-spread per-iterator seeds.
uint64_t MixSeed(uint64_t seed, uint64_t iteration) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull * (iteration + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class ShuffleDataset final : public Dataset {
 public:
  ShuffleDataset(DatasetPtr input, ShuffleOptions options, uint64_t seed)
      : Dataset(input->element_spec(), input->cardinality()),
        input_(std::move(input)),
        options_(options),
        seed_(seed) {}

  std::string_view op_name() const override { return "shuffle"; }
  std::string DebugParams() const override {
    return StrCat("buffer_size=", options_.buffer_size,
                  options_.seed ? StrCat(", seed=", *options_.seed) : std::string(),
                  ", reshuffle_each_iteration=", options_.reshuffle_each_iteration ? "true" : "false");
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIterator(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    auto* node = pipeline->add_ops()->mutable_shuffle();
    node->set_buffer_size(options_.buffer_size);
    if (options_.seed) node->set_seed(*options_.seed);
    node->set_reshuffle_each_iteration(options_.reshuffle_each_iteration);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  int64_t buffer_size() const { return options_.buffer_size; }
  // The seed of the next iterator: the same for every iterator unless
  // reshuffle_each_iteration, when each new iterator (epoch) gets its own.
  uint64_t NextIteratorSeed() const {
    if (!options_.reshuffle_each_iteration) return MixSeed(seed_, 0);
    return MixSeed(seed_, iterations_.fetch_add(1, std::memory_order_relaxed));
  }

 private:
  const DatasetPtr input_;
  const ShuffleOptions options_;
  const uint64_t seed_;
  mutable std::atomic<uint64_t> iterations_{0};  // iterators made so far (the epoch count)
};

class ShuffleIterator final : public Iterator {
 public:
  ShuffleIterator(std::shared_ptr<const ShuffleDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)),
        input_(dataset_->input()->NewIterator(ctx)),
        rng_(dataset_->NextIteratorSeed()) {}

 protected:
  // Refill, then draw: every call first tops the buffer up to buffer_size
  // (or until the input ends), then returns a uniformly drawn element.
  Result<std::optional<Element>> GetNextInternal() override {
    while (!input_done_ && static_cast<int64_t>(buffer_.size()) < dataset_->buffer_size()) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
      if (!element) {
        input_done_ = true;
        break;
      }
      buffer_.push_back(std::move(*element));
    }
    if (buffer_.empty()) return std::nullopt;
    const size_t index = std::uniform_int_distribution<size_t>(0, buffer_.size() - 1)(rng_);
    Element out = std::move(buffer_[index]);
    buffer_[index] = std::move(buffer_.back());
    buffer_.pop_back();
    return out;
  }

 private:
  const std::shared_ptr<const ShuffleDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  std::mt19937_64 rng_;
  std::vector<Element> buffer_;
  bool input_done_ = false;
};

std::unique_ptr<Iterator> ShuffleDataset::NewIterator(const IteratorContext& ctx) const {
  return std::make_unique<ShuffleIterator>(SharedThis<ShuffleDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeShuffleDataset(DatasetPtr input, ShuffleOptions options) {
  if (input == nullptr) return InvalidArgumentError("shuffle: input dataset is null");
  if (options.buffer_size <= 0) {
    return InvalidArgumentError("shuffle: buffer_size must be greater than zero (got ",
                                options.buffer_size, ").");
  }
  const uint64_t seed = options.seed ? *options.seed : std::random_device()() * 0x100000001ull ^
                                                           std::random_device()();
  return DatasetPtr(std::make_shared<ShuffleDataset>(std::move(input), options, seed));
}

}  // namespace sluice
