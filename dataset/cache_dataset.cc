#include "sluice/dataset/cache_dataset.h"

#include <mutex>

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/ram_budget.h"
#include "sluice/dataset/runtime.h"

namespace sluice {
namespace {

using CachedElements = std::vector<Element>;

class CacheDataset final : public Dataset {
 public:
  explicit CacheDataset(DatasetPtr input)
      : Dataset(input->element_spec(), input->cardinality()), input_(std::move(input)) {}

  std::string_view op_name() const override { return "cache"; }
  std::string DebugParams() const override { return "memory"; }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    pipeline->add_ops()->mutable_cache();
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  // The finished cache, or null while no iterator has read the input to its end.
  std::shared_ptr<const CachedElements> cached() const {
    std::lock_guard<std::mutex> lock(mu_);
    return cached_;
  }
  // Publishes a complete pass; the first one to finish wins.
  void Publish(std::shared_ptr<const CachedElements> elements) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (cached_ == nullptr) cached_ = std::move(elements);
  }

 private:
  const DatasetPtr input_;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const CachedElements> cached_;  // guarded by mu_
};

class CacheIterator final : public Iterator {
 public:
  CacheIterator(std::shared_ptr<const CacheDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), cached_(dataset_->cached()), limit_bytes_(ctx.runtime->ram_budget().limit()) {
    if (cached_ == nullptr) input_ = dataset_->input()->NewIterator(ctx);
  }

  ~CacheIterator() override {
    if (input_ != nullptr && !filling_.empty() && caching_) {
      SLUICE_LOG(WARNING)
          << "cache: The calling iterator did not fully read the dataset being cached. In order to "
             "avoid unexpected truncation of the dataset, the partially cached contents of the "
             "dataset will be discarded. This can happen if you have an input pipeline similar to "
             "`dataset.cache().take(k).repeat()`. You should use `dataset.take(k).cache().repeat()` "
             "instead.";
    }
  }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (cached_ != nullptr) {
      if (next_ >= cached_->size()) return std::nullopt;
      return (*cached_)[next_++];
    }
    if (input_ == nullptr) return std::nullopt;  // this pass filled the cache and ended
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
    if (!element) {
      if (caching_) dataset_->Publish(std::make_shared<const CachedElements>(std::move(filling_)));
      filling_.clear();
      input_.reset();
      return std::nullopt;
    }
    if (caching_) Keep(*element);
    return element;
  }

  // The cached elements live in the dataset, not in the iterator, and a
  // resumed process has none; a cache being filled can't be resumed either.
  Status SaveInternal(IteratorStateWriter&) override { return Unsupported(); }
  Status RestoreInternal(IteratorStateReader&) override { return Unsupported(); }

 private:
  // Keeps a copy of `element` for the cache, unless the pass so far would
  // then hold more than the RAM budget: the pass is then read through
  // uncached (the next pass reads the input again).
  void Keep(const Element& element) {
    filling_bytes_ += HeldBytes(element);
    if (filling_bytes_ > limit_bytes_) {
      SLUICE_LOG(WARNING) << "cache: the " << filling_.size() + 1 << " elements read so far take " << filling_bytes_
                          << " bytes, more than the RAM budget (" << limit_bytes_
                          << " bytes): this pass is not cached, and the next one reads the input again";
      filling_.clear();
      filling_.shrink_to_fit();
      caching_ = false;
      return;
    }
    filling_.push_back(Unpinned(element));
  }

  static Status Unsupported() {
    return UnimplementedError(
        "cache: an iterator over a cache can't be saved or restored (the cached "
        "elements are not part of its state)");
  }

  const std::shared_ptr<const CacheDataset> dataset_;
  std::shared_ptr<const CachedElements> cached_;  // replaying when set
  size_t next_ = 0;
  std::unique_ptr<Iterator> input_;  // filling when set
  CachedElements filling_;
  const int64_t limit_bytes_;  // the most filling_ may hold
  int64_t filling_bytes_ = 0;  // HeldBytes of filling_
  bool caching_ = true;        // false once this pass passed the budget
};

std::unique_ptr<Iterator> CacheDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<CacheIterator>(SharedThis<CacheDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeCacheDataset(DatasetPtr input) {
  if (input == nullptr) return InvalidArgumentError("cache: input dataset is null");
  return Dataset::Make<CacheDataset>(std::move(input));
}

Result<DatasetPtr> CacheDatasetFromSpec(const spec::DatasetNode&, const OpSpecContext& context) {
  return MakeCacheDataset(context.input());
}

}  // namespace sluice
