#include "sluice/dataset/directed_interleave.h"

#include <algorithm>

#include "sluice/dataset/iterator_state.h"

namespace sluice {
namespace {

class DirectedInterleaveIterator final : public Iterator {
 public:
  DirectedInterleaveIterator(DirectedInterleave interleave, const IteratorContext& ctx)
      : interleave_(std::move(interleave)), selector_(interleave_.selector->NewIterator(ctx)) {
    for (const DatasetPtr& dataset : interleave_.datasets) inputs_.push_back(dataset->NewIterator(ctx));
  }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    const int64_t n = static_cast<int64_t>(inputs_.size());
    while (!ended_) {
      if (std::none_of(inputs_.begin(), inputs_.end(), [](const auto& it) { return it != nullptr; })) break;
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> selection, selector_->GetNext());
      if (!selection) break;
      Result<int64_t> index = interleave_.index_of(*selection);
      if (!index.ok()) return index.status().WithContext(interleave_.op);
      if (*index < 0 || *index >= n) {
        return InvalidArgumentError(interleave_.op, ": Selector index out of range: ", *index,
                                    *index < 0 ? " < 0" : StrCat(" >= ", n));
      }
      std::unique_ptr<Iterator>& input = inputs_[*index];
      if (input == nullptr) continue;  // exhausted and dropped
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input->GetNext());
      if (element) return element;
      if (interleave_.stop_on_empty_dataset) break;
      input.reset();
    }
    ended_ = true;
    return std::nullopt;
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteBool("ended", ended_);
    SLUICE_RETURN_IF_ERROR(writer.WriteIterator("selector", *selector_));
    for (size_t i = 0; i < inputs_.size(); ++i) {
      writer.WriteBool(StrCat("exhausted/", i), inputs_[i] == nullptr);
      if (inputs_[i] != nullptr) SLUICE_RETURN_IF_ERROR(writer.WriteIterator(StrCat("datasets/", i), *inputs_[i]));
    }
    return OkStatus();
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(ended_, reader.ReadBool("ended"));
    SLUICE_RETURN_IF_ERROR(reader.ReadIterator("selector", *selector_));
    for (size_t i = 0; i < inputs_.size(); ++i) {
      SLUICE_ASSIGN_OR_RETURN(const bool exhausted, reader.ReadBool(StrCat("exhausted/", i)));
      if (exhausted) {
        inputs_[i].reset();
      } else {
        SLUICE_RETURN_IF_ERROR(reader.ReadIterator(StrCat("datasets/", i), *inputs_[i]));
      }
    }
    return OkStatus();
  }

 private:
  const DirectedInterleave interleave_;
  const std::unique_ptr<Iterator> selector_;
  std::vector<std::unique_ptr<Iterator>> inputs_;  // null once exhausted and dropped
  bool ended_ = false;
};

}  // namespace

std::unique_ptr<Iterator> MakeDirectedInterleaveIterator(DirectedInterleave interleave, const IteratorContext& ctx) {
  return std::make_unique<DirectedInterleaveIterator>(std::move(interleave), ctx);
}

int64_t DirectedInterleaveCardinality(const Dataset& selector, const std::vector<DatasetPtr>& datasets) {
  if (selector.cardinality() == 0) return 0;
  const bool all_infinite = std::all_of(datasets.begin(), datasets.end(), [](const DatasetPtr& d) {
    return d->cardinality() == kInfiniteCardinality;
  });
  return all_infinite ? selector.cardinality() : kUnknownCardinality;
}

}  // namespace sluice
