// Stages with a planted cost, for the profiler's tests: a busy wait, and a
// source whose every element costs a fixed time, spent busy (CPU-bound) or
// asleep (as a read waiting on I/O); and a traversal under a fresh profile.
#pragma once

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/profile.h"

namespace sluice::testing {

// Busy for `duration` (a CPU-bound stage).
inline void Spin(std::chrono::nanoseconds duration) {
  const auto end = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < end) {
  }
}

// A source of `count` int64 scalars 0, 1, ..., each costing `per_element`.
class SlowSourceDataset final : public Dataset {
 public:
  enum class Cost { kSpin, kSleep };
  SlowSourceDataset(int64_t count, std::chrono::nanoseconds per_element, Cost cost = Cost::kSpin)
      : Dataset(ElementSpec{{"", DType::kInt64, Shape{}}}, count),
        count_(count),
        per_element_(per_element),
        cost_(cost) {}
  std::string_view op_name() const override { return "slow_source"; }
  std::string DebugParams() const override { return StrCat("count=", count_); }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  Status ToSpec(spec::Pipeline*) const override { return UnimplementedError("slow_source"); }

 private:
  class SlowIterator final : public Iterator {
   public:
    explicit SlowIterator(std::shared_ptr<const SlowSourceDataset> dataset) : dataset_(std::move(dataset)) {}

   protected:
    Result<std::optional<Element>> GetNextInternal() override {
      if (next_ == dataset_->count_) return std::nullopt;
      if (dataset_->cost_ == Cost::kSpin) {
        Spin(dataset_->per_element_);
      } else {
        std::this_thread::sleep_for(dataset_->per_element_);
      }
      return Element{Tensor::Scalar<int64_t>(next_++)};
    }
    Status SaveInternal(IteratorStateWriter&) override { return UnimplementedError("slow_source"); }
    Status RestoreInternal(IteratorStateReader&) override { return UnimplementedError("slow_source"); }

   private:
    // Shared: an interleave's function may drop the dataset while its iterator runs.
    const std::shared_ptr<const SlowSourceDataset> dataset_;
    int64_t next_ = 0;
  };
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext&) const override {
    return std::make_unique<SlowIterator>(SharedThis<SlowSourceDataset>());
  }

  const int64_t count_;
  const std::chrono::nanoseconds per_element_;
  const Cost cost_;
};

// Reads all of `dataset` under a fresh profile, `consumer_work` per element.
inline std::shared_ptr<Profile> ProfileAll(const DatasetPtr& dataset, std::chrono::nanoseconds consumer_work = {},
                                    Profile::Options options = {}) {
  IteratorContext ctx;
  ctx.profile = std::make_shared<Profile>(options);
  auto it = dataset->MakeIterator(ctx);
  while (true) {
    auto next = it->GetNext();
    EXPECT_TRUE(next.ok()) << next.status();
    if (!next.ok() || !next->has_value()) break;
    if (consumer_work.count() > 0) std::this_thread::sleep_for(consumer_work);
  }
  return ctx.profile;
}

// The node of the first stage named `op_name` in `snapshot`; null if none.
inline const NodeSnapshot* FindNode(const ProfileSnapshot& snapshot, std::string_view op_name) {
  for (const NodeSnapshot& node : snapshot.nodes) {
    if (node.op_name == op_name) return &node;
  }
  return nullptr;
}

}  // namespace sluice::testing
