// What the interleave op's two iterators share (dataset/interleave_dataset.h):
// InterleaveDataset, the dataset MakeInterleaveDatasetAs makes. Its
// sequential iterator is in interleave_dataset.cc; the parallel one
// (num_parallel_calls != 0) in parallel_interleave_iterator.cc.
// Thread safety: an InterleaveDataset is immutable.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"
#include "sluice/dataset/interleave_dataset.h"

namespace sluice {

class InterleaveDataset final : public Dataset {
 public:
  InterleaveDataset(InterleaveIdentity identity, DatasetPtr input, DatasetFunctionPtr fn, InterleaveOptions options,
                    ElementSpec spec)
      : Dataset(std::move(spec), input->cardinality() == 0 ? 0 : kUnknownCardinality),
        identity_(std::move(identity)),
        input_(std::move(input)),
        fn_(std::move(fn)),
        options_(options),
        cycle_length_(options.cycle_length == kAutotune
                          ? std::max<int64_t>(1, std::thread::hardware_concurrency())
                          : options.cycle_length),
        slot_count_(SlotCount(cycle_length_, input_->cardinality())) {}

  std::string_view op_name() const override { return identity_.op_name; }
  std::string DebugParams() const override;
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override;

  const DatasetPtr& input() const { return input_; }
  int64_t cycle_length() const { return cycle_length_; }
  bool cycle_length_autotuned() const { return options_.cycle_length == kAutotune; }
  // The slots an iterator keeps: cycle_length, or fewer where the input has
  // fewer elements (slots past the input's last element are never opened,
  // so the order is the same).
  int64_t slot_count() const { return slot_count_; }
  int64_t block_length() const { return options_.block_length; }
  const InterleaveOptions& options() const { return options_; }

  // The dataset for one input element, checked against the declared spec.
  Result<DatasetPtr> Open(const Element& element) const;

 private:
  const InterleaveIdentity identity_;
  const DatasetPtr input_;
  const DatasetFunctionPtr fn_;
  const InterleaveOptions options_;  // as given: a spec keeps kAutotune
  const int64_t cycle_length_;       // resolved: kAutotune becomes the core count
  const int64_t slot_count_;

  static int64_t SlotCount(int64_t cycle_length, int64_t input_cardinality) {
    if (input_cardinality < 0) return cycle_length;  // unknown or infinite
    return std::max<int64_t>(1, std::min(cycle_length, input_cardinality));
  }
};

// The iterator of an InterleaveDataset whose num_parallel_calls is not 0.
std::unique_ptr<Iterator> NewParallelInterleaveIterator(std::shared_ptr<const InterleaveDataset> dataset,
                                                        const IteratorContext& ctx);

}  // namespace sluice
