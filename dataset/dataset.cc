#include "dataset/dataset.h"

namespace sluice {
namespace {

// Owns the traversal's cancellation scope: cancels it before the tree of
// iterators below is destroyed, so every blocked worker wakes up.
class RootIterator final : public Iterator {
 public:
  RootIterator(IteratorContext ctx, std::unique_ptr<Iterator> input)
      : ctx_(std::move(ctx)), input_(std::move(input)) {}
  ~RootIterator() override { ctx_.cancellation->Cancel(); }

 protected:
  Result<std::optional<Element>> GetNextInternal() override { return input_->GetNext(); }
  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) override {
    return input_->GetNextRun(max_rows);
  }

 private:
  IteratorContext ctx_;
  std::unique_ptr<Iterator> input_;
};

void Describe(const Dataset& dataset, int depth, std::string& out) {
  out += std::string(2 * depth, ' ');
  out += StrCat(dataset.op_name(), "(", dataset.DebugParams(), ") -> ", dataset.element_spec(),
                " cardinality=", CardinalityToString(dataset.cardinality()), "\n");
  for (const DatasetPtr& input : dataset.inputs()) Describe(*input, depth + 1, out);
}

}  // namespace

std::string CardinalityToString(int64_t cardinality) {
  if (cardinality == kInfiniteCardinality) return "infinite";
  if (cardinality == kUnknownCardinality) return "unknown";
  return std::to_string(cardinality);
}

Result<std::optional<Element>> Iterator::GetNextRunInternal(int64_t max_rows) {
  SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, GetNext());
  if (!element) return std::nullopt;
  for (Tensor& t : element->components) t.PrependUnitDim();
  return element;
}

std::unique_ptr<Iterator> Dataset::MakeIterator(IteratorContext ctx) const {
  auto input = NewIterator(ctx);
  return std::make_unique<RootIterator>(std::move(ctx), std::move(input));
}

std::string DescribeGraph(const Dataset& dataset) {
  std::string out;
  Describe(dataset, 0, out);
  return out;
}

}  // namespace sluice
