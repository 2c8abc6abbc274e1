#include "sluice/dataset/dataset.h"

#include <algorithm>

#include "sluice/core/line_difference.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/profiler.h"

namespace sluice {
namespace {

// Owns the traversal's cancellation scope: cancels it before the tree of
// iterators below is destroyed, so every blocked worker wakes up. Its saved
// state carries the graph's description, so that a state can't be restored
// into a different pipeline.
class RootIterator final : public Iterator {
 public:
  RootIterator(DatasetPtr dataset, IteratorContext ctx, std::unique_ptr<Iterator> input, bool report_profile)
      : dataset_(std::move(dataset)), ctx_(std::move(ctx)), input_(std::move(input)), report_profile_(report_profile) {}
  ~RootIterator() override {
    ctx_.cancellation->Cancel();
    if (!report_profile_) return;
    input_.reset();  // joins the workers: the counts are final
    ReportProfileToEnvironment(*ctx_.profile);
  }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    Result<std::optional<Element>> next = input_->GetNext();
    if (next.ok() && next->has_value()) ctx_.runtime->autotuner().RecordOutput(1);
    return next;
  }
  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) override {
    Result<std::optional<Element>> run = input_->GetNextRun(max_rows);
    if (run.ok() && run->has_value() && !(**run).components.empty()) {
      ctx_.runtime->autotuner().RecordOutput((**run)[0].dim(0));
    }
    return run;
  }
  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteString("graph", DescribeGraph(*dataset_));
    return writer.WriteIterator(dataset_->op_name(), *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(std::string saved, reader.ReadString("graph"));
    SLUICE_RETURN_IF_ERROR(CheckSameGraph(saved, DescribeGraph(*dataset_)));
    return reader.ReadIterator(dataset_->op_name(), *input_);
  }

 private:
  // InvalidArgument naming the first line of the two descriptions that differs.
  static Status CheckSameGraph(std::string_view saved, std::string_view here) {
    const std::optional<LineDifference> difference = FirstLineDifference(saved, here);
    if (!difference) return OkStatus();
    if (difference->a.empty() && difference->b.empty()) {
      return InvalidArgumentError(
          "iterator state was saved from a different pipeline (its graph differs in line breaks)");
    }
    return InvalidArgumentError("iterator state was saved from a different pipeline: line ", difference->line,
                                " of its graph is '", difference->a, "' but here it is '", difference->b, "'");
  }

  const DatasetPtr dataset_;
  IteratorContext ctx_;
  std::unique_ptr<Iterator> input_;
  const bool report_profile_;  // profiled because of SLUICE_PROFILE
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

// Calls GetNextInternal, not GetNext: a profiled GetNextRun is already timed.
Result<std::optional<Element>> Iterator::GetNextRunInternal(int64_t max_rows) {
  SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, GetNextInternal());
  if (!element) return std::nullopt;
  for (size_t i = 0; i < element->size(); ++i) {
    if ((*element)[i].rank() >= kMaxRank) {
      return InvalidArgumentError("component ", i, " of an element has shape ", (*element)[i].shape(),
                                  ": a batch of such elements would have more than ", kMaxRank, " dimensions");
    }
  }
  for (Tensor& t : element->components) t.PrependUnitDim();
  return element;
}

Status Iterator::TraversalCancelledError() {
  return CancelledError("the traversal was cancelled (its iterator was destroyed or interrupted)");
}

Result<std::optional<Element>> Iterator::TimedGetNext(int64_t max_rows, bool sampled) {
  IteratorProfile& profile = *profile_;
  const int64_t weight = sampled ? profile.BeginTimedCall() : 0;
  TimedCall call;
  const int64_t start = profile.node()->NowNs();
  Result<std::optional<Element>> result = max_rows == 0 ? GetNextInternal() : GetNextRunInternal(max_rows);
  const int64_t end = profile.node()->NowNs();
  const int64_t input_ns = call.End(end - start);
  const int64_t elements = ElementsIn(result, max_rows);
  if (!sampled) {
    counters_.Count(elements);
    return result;
  }
  const int64_t bytes = elements > 0 ? static_cast<int64_t>((**result).NumBytes()) : 0;
  profile.EndTimedCall(weight, start, end, input_ns, elements, bytes);
  return result;
}

std::unique_ptr<Iterator> Dataset::NewProfiledIterator(const IteratorContext& ctx) const {
  ProfileNode* node = ctx.profile->AddNode(*this, ctx.profile_parent, ctx.profile_parent_dataset);
  IteratorContext inner = ctx;
  inner.profile_parent = node;
  inner.profile_parent_dataset = this;
  std::unique_ptr<Iterator> iterator = NewIteratorInternal(inner);
  if (iterator->profile_ != nullptr) {
    // The op handed over another dataset's iterator (its plan): that node
    // stands in for this one.
    ctx.profile->Delegate(node, iterator->profile_->node());
  } else {
    iterator->profile_ = std::make_unique<IteratorProfile>(ctx.profile, node, &iterator->counters_);
    ctx.profile->SetAsync(node, iterator->is_async());
    if (StageFunction function = iterator->stage_function(); !function.name.empty()) {
      ctx.profile->SetFunction(node, std::move(function));
    }
  }
  return iterator;
}

std::unique_ptr<Iterator> Dataset::MakeIterator() const {
  IteratorContext ctx;
  ctx.runtime = Runtime::Create();
  const bool from_environment = ProfilingRequestedByEnvironment();
  if (from_environment) ctx.profile = std::make_shared<Profile>();
  auto input = NewIterator(ctx);
  return std::make_unique<RootIterator>(shared_from_this(), std::move(ctx), std::move(input), from_environment);
}

std::unique_ptr<Iterator> Dataset::MakeIterator(IteratorContext ctx) const {
  if (ctx.runtime == nullptr) ctx.runtime = Runtime::Create();
  if (ctx.cancellation == nullptr || ctx.cancellation->cancelled()) ctx.cancellation = std::make_shared<Cancellation>();
  auto input = NewIterator(ctx);
  return std::make_unique<RootIterator>(shared_from_this(), std::move(ctx), std::move(input), false);
}

int Dataset::depth() const {
  if (const int known = depth_.load(std::memory_order_relaxed); known > 0) return known;
  // Depth-first over the inputs not yet worked out, on a stack of our own:
  // a graph made without Make (a test's fake op) may be of any depth.
  std::vector<const Dataset*> pending = {this};
  while (!pending.empty()) {
    const Dataset* top = pending.back();
    int below = top->depth_below_;
    bool inputs_known = true;
    for (const DatasetPtr& input : top->inputs()) {
      const int known = input->depth_.load(std::memory_order_relaxed);
      if (known == 0) {
        pending.push_back(input.get());
        inputs_known = false;
      }
      below = std::max(below, known);
    }
    if (!inputs_known) continue;
    top->depth_.store(below + 1, std::memory_order_relaxed);
    pending.pop_back();
  }
  return depth_.load(std::memory_order_relaxed);
}

Status Dataset::CheckDepth(const Dataset& dataset) {
  const int depth = dataset.depth();
  if (depth <= kMaxGraphDepth) return OkStatus();
  return InvalidArgumentError(dataset.op_name(), ": the graph would be ", depth, " datasets deep, above the limit of ",
                              kMaxGraphDepth, " (kMaxGraphDepth)");
}

std::string DescribeGraph(const Dataset& dataset) {
  std::string out;
  Describe(dataset, 0, out);
  return out;
}

}  // namespace sluice
