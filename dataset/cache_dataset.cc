#include "dataset/cache_dataset.h"

#include <mutex>

#include "dataset/iterator_state.h"
#include "dataset/pipeline_spec.pb.h"

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
      : dataset_(std::move(dataset)), cached_(dataset_->cached()) {
    if (cached_ == nullptr) input_ = dataset_->input()->NewIterator(ctx);
  }

  ~CacheIterator() override {
    if (input_ != nullptr && !filling_.empty()) {
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
      dataset_->Publish(std::make_shared<const CachedElements>(std::move(filling_)));
      filling_.clear();
      input_.reset();
      return std::nullopt;
    }
    filling_.push_back(Unpinned(*element));
    return element;
  }

  // The cached elements live in the dataset, not in the iterator, and a
  // resumed process has none; a cache being filled can't be resumed either.
  Status SaveInternal(IteratorStateWriter&) override { return Unsupported(); }
  Status RestoreInternal(IteratorStateReader&) override { return Unsupported(); }

 private:
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
};

std::unique_ptr<Iterator> CacheDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<CacheIterator>(SharedThis<CacheDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeCacheDataset(DatasetPtr input) {
  if (input == nullptr) return InvalidArgumentError("cache: input dataset is null");
  return Dataset::Make<CacheDataset>(std::move(input));
}

}  // namespace sluice
