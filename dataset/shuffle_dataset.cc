#include "sluice/dataset/shuffle_dataset.h"

#include <random>
#include <sstream>

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/element_seeds.h"

namespace sluice {
namespace {

class ShuffleDataset final : public Dataset {
 public:
  ShuffleDataset(DatasetPtr input, ShuffleOptions options, uint64_t seed)
      : Dataset(input->element_spec(), input->cardinality()),
        input_(std::move(input)),
        options_(options),
        seeds_(seed) {}

  // Where a new iterator's order comes from: the dataset's seed (random
  // when options.seed is unset) and the iterators made before it.
  using Epoch = IterationSeeds::Epoch;

  std::string_view op_name() const override { return "shuffle"; }
  std::string DebugParams() const override {
    return StrCat("buffer_size=", options_.buffer_size,
                  options_.seed ? StrCat(", seed=", *options_.seed) : std::string(),
                  ", reshuffle_each_iteration=", options_.reshuffle_each_iteration ? "true" : "false");
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
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
  Epoch NextEpoch() const { return seeds_.Next(); }
  // The seed of an epoch's order: the same for every epoch unless
  // reshuffle_each_iteration, when each new iterator (epoch) gets its own.
  uint64_t OrderSeed(const Epoch& epoch) const {
    return MixSeed(epoch.seed, options_.reshuffle_each_iteration ? epoch.index : 0);
  }
  // After restoring an iterator of `epoch`: the iterators made next (the
  // following epochs of a repeat) continue as they did in the saved run,
  // whose random seed an unseeded shuffle adopts.
  void ResumeAfter(const Epoch& epoch) const { seeds_.ResumeAfter(epoch); }

 private:
  const DatasetPtr input_;
  const ShuffleOptions options_;
  const IterationSeeds seeds_;  // the epoch count
};

class ShuffleIterator final : public Iterator {
 public:
  ShuffleIterator(std::shared_ptr<const ShuffleDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)),
        runtime_(ctx.runtime),
        input_(dataset_->input()->NewIterator(ctx)),
        epoch_(dataset_->NextEpoch()),
        rng_(dataset_->OrderSeed(epoch_)) {}
  ~ShuffleIterator() override { runtime_->ram_budget().Release(buffered_bytes_); }

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
      const int64_t bytes = HeldBytes(*element);
      if (buffered_bytes_ + bytes > runtime_->ram_budget().limit()) {
        return ResourceExhaustedError("shuffle: a buffer of buffer_size=", dataset_->buffer_size(),
                                      " elements passes the RAM budget (", runtime_->ram_budget().limit(),
                                      " bytes) after ", buffer_.size(), " elements (", buffered_bytes_,
                                      " bytes); lower buffer_size or raise the budget");
      }
      Charge(bytes);
      buffer_.push_back(Unpinned(std::move(*element)));
    }
    if (buffer_.empty()) return std::nullopt;
    const size_t index = std::uniform_int_distribution<size_t>(0, buffer_.size() - 1)(rng_);
    Element out = std::move(buffer_[index]);
    buffer_[index] = std::move(buffer_.back());
    buffer_.pop_back();
    Charge(-HeldBytes(out));
    return out;
  }

  // The whole buffer, in order, and the generator's exact state.
  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("seed", static_cast<int64_t>(epoch_.seed));
    writer.WriteInt("epoch", static_cast<int64_t>(epoch_.index));
    std::ostringstream rng;
    rng << rng_;
    writer.WriteString("rng", rng.str());
    writer.WriteBool("input_done", input_done_);
    writer.WriteInt("buffer/size", static_cast<int64_t>(buffer_.size()));
    for (size_t i = 0; i < buffer_.size(); ++i) writer.WriteElement(StrCat("buffer/", i), buffer_[i]);
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(int64_t seed, reader.ReadInt("seed"));
    SLUICE_ASSIGN_OR_RETURN(int64_t epoch, reader.ReadInt("epoch", 0, std::numeric_limits<int64_t>::max()));
    SLUICE_ASSIGN_OR_RETURN(std::string rng, reader.ReadString("rng"));
    std::istringstream rng_in(rng);
    rng_in >> rng_;
    if (rng_in.fail()) return DataLossError("iterator state: shuffle's generator state is damaged");
    SLUICE_ASSIGN_OR_RETURN(input_done_, reader.ReadBool("input_done"));
    SLUICE_ASSIGN_OR_RETURN(int64_t size, reader.ReadInt("buffer/size", 0, dataset_->buffer_size()));
    buffer_.clear();
    Charge(-buffered_bytes_);
    for (int64_t i = 0; i < size; ++i) {
      SLUICE_ASSIGN_OR_RETURN(Element element, reader.ReadElement(StrCat("buffer/", i), dataset_->element_spec()));
      Charge(HeldBytes(element));
      buffer_.push_back(std::move(element));
    }
    epoch_ = {static_cast<uint64_t>(seed), static_cast<uint64_t>(epoch)};
    dataset_->ResumeAfter(epoch_);
    return reader.ReadIterator("input", *input_);
  }

 private:
  // The buffer's bytes are charged to the RAM budget, so that other
  // buffers throttle around it (it can't wait itself: it needs them all).
  // A buffer that alone would pass the budget is ResourceExhausted.
  void Charge(int64_t delta) {
    buffered_bytes_ += delta;
    runtime_->ram_budget().Adjust(delta);
  }

  const std::shared_ptr<const ShuffleDataset> dataset_;
  const std::shared_ptr<Runtime> runtime_;
  int64_t buffered_bytes_ = 0;  // charged to the RAM budget
  const std::unique_ptr<Iterator> input_;
  ShuffleDataset::Epoch epoch_;  // this iterator's
  std::mt19937_64 rng_;
  std::vector<Element> buffer_;
  bool input_done_ = false;
};

std::unique_ptr<Iterator> ShuffleDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<ShuffleIterator>(SharedThis<ShuffleDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeShuffleDataset(DatasetPtr input, ShuffleOptions options) {
  if (input == nullptr) return InvalidArgumentError("shuffle: input dataset is null");
  if (options.buffer_size <= 0) {
    return InvalidArgumentError("shuffle: buffer_size must be greater than zero (got ",
                                options.buffer_size, ").");
  }
  const uint64_t seed = options.seed ? *options.seed : RandomSeed();
  return Dataset::Make<ShuffleDataset>(std::move(input), options, seed);
}

Result<DatasetPtr> ShuffleDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::Shuffle& shuffle = node.shuffle();
  ShuffleOptions options;
  options.buffer_size = shuffle.buffer_size();
  if (shuffle.has_seed()) options.seed = shuffle.seed();
  if (shuffle.has_reshuffle_each_iteration()) options.reshuffle_each_iteration = shuffle.reshuffle_each_iteration();
  return MakeShuffleDataset(context.input(), options);
}

}  // namespace sluice
