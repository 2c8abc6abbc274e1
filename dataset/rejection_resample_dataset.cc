#include "sluice/dataset/rejection_resample_dataset.h"

#include <cmath>
#include <limits>

#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/element_seeds.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/runtime.h"

namespace sluice {
namespace {

constexpr std::string_view kOp = "rejection_resample";
constexpr std::string_view kClassName = "class";
// Each class's count before any element is seen, when the input's
// distribution is estimated (tf.data's smoothing_constant).
constexpr int64_t kSmoothing = 10;

// The class of an element: an int32 or int64 scalar tensor.
using ClassFn = std::function<Result<Tensor>(const Element&)>;

bool IsClassDType(DType dtype) { return dtype == DType::kInt32 || dtype == DType::kInt64; }

Status NotAClass(std::string_view what, const ComponentSpec& spec) {
  return InvalidArgumentError(kOp, ": ", what, " is ", spec.dtype, spec.shape,
                              "; the class is an int32 or int64 scalar");
}

// The class function for elements of `input`, and the class's dtype.
Result<std::pair<ClassFn, DType>> BindClass(const RejectionResampleOptions& o, const ElementSpec& input) {
  if ((o.class_fn != nullptr) == !o.class_component.empty()) {
    return InvalidArgumentError(kOp, ": give exactly one of class_fn and class_component");
  }
  if (o.class_fn == nullptr) {
    Result<size_t> index = input.IndexOf(o.class_component);
    if (!index.ok()) return index.status().WithContext(StrCat(kOp, ": class_component"));
    const ComponentSpec& spec = input[*index];
    if (!IsClassDType(spec.dtype) || !spec.shape.IsCompatibleWith(PartialShape(Shape{}))) {
      return NotAClass(StrCat("class_component ", input.DisplayName(*index)), spec);
    }
    return std::pair{ClassFn([i = *index](const Element& element) -> Result<Tensor> { return element[i]; }),
                     spec.dtype};
  }
  Result<BoundElementFunction> bound = o.class_fn->Bind(input);
  if (!bound.ok()) return bound.status().WithContext(StrCat(kOp, ": class_func"));
  const ElementSpec& out = bound->output_spec;
  if (out.size() != 1) {
    return InvalidArgumentError(kOp, ": class_func ", o.class_fn->name(), " returns ", out,
                                "; the class is one int32 or int64 scalar");
  }
  if (!IsClassDType(out[0].dtype) || !out[0].shape.IsCompatibleWith(PartialShape(Shape{}))) {
    return NotAClass(StrCat("class_func ", o.class_fn->name(), "'s output"), out[0]);
  }
  return std::pair{
      ClassFn([apply = std::move(bound->apply), name = o.class_fn->name()](const Element& element) -> Result<Tensor> {
        Result<Element> out = apply(element);
        if (!out.ok()) return out.status().WithContext(StrCat(kOp, ": class_func ", name));
        return std::move((*out)[0]);
      }),
      out[0].dtype};
}

// `weights` divided by their sum; each must be finite and >= 0, the sum > 0.
Result<std::vector<double>> Normalized(const std::vector<double>& weights, std::string_view name) {
  double sum = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (!std::isfinite(weights[i]) || weights[i] < 0) {
      return InvalidArgumentError(kOp, ": ", name, "[", i, "] is ", weights[i], "; weights are finite and >= 0");
    }
    sum += weights[i];
  }
  if (!(sum > 0) || !std::isfinite(sum)) {
    return InvalidArgumentError(kOp, ": ", name, " sums to ", sum, "; it must have a positive, finite sum");
  }
  std::vector<double> out(weights.size());
  for (size_t i = 0; i < weights.size(); ++i) out[i] = weights[i] / sum;
  return out;
}

// a_c = (t_c / p_c) / max_j (t_j / p_j) for a known input distribution p.
// REQUIRES: p_c > 0 wherever t_c > 0.
std::vector<double> AcceptanceOf(const std::vector<double>& target, const std::vector<double>& initial) {
  std::vector<double> ratio(target.size());
  double max_ratio = 0;
  for (size_t i = 0; i < target.size(); ++i) {
    ratio[i] = target[i] > 0 ? target[i] / initial[i] : 0;
    max_ratio = std::max(max_ratio, ratio[i]);
  }
  for (double& r : ratio) r /= max_ratio;
  return ratio;
}

class RejectionResampleDataset final : public Dataset {
 public:
  RejectionResampleDataset(DatasetPtr input, RejectionResampleOptions options, ClassFn class_fn,
                           std::vector<double> target, std::vector<double> acceptance, ElementSpec spec, uint64_t seed)
      : Dataset(std::move(spec), input->cardinality() == 0 ? 0 : kUnknownCardinality),
        input_(std::move(input)),
        options_(std::move(options)),
        class_fn_(std::move(class_fn)),
        target_(std::move(target)),
        acceptance_(std::move(acceptance)),
        seeds_(seed) {}

  std::string_view op_name() const override { return kOp; }
  std::string DebugParams() const override {
    return StrCat("class=", options_.class_fn != nullptr ? options_.class_fn->name() : options_.class_component,
                  ", classes=", target_.size(), options_.initial_dist.empty() ? ", initial_dist estimated" : "",
                  options_.seed ? StrCat(", seed=", *options_.seed) : std::string());
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    auto* node = pipeline->add_ops()->mutable_rejection_resample();
    if (options_.class_fn != nullptr) {
      SLUICE_RETURN_IF_ERROR(options_.class_fn->ToSpec(node->mutable_class_fn()));
    } else {
      node->set_class_component(options_.class_component);
    }
    for (double w : options_.target_dist) node->add_target_dist(w);
    for (double w : options_.initial_dist) node->add_initial_dist(w);
    if (options_.seed) node->set_seed(*options_.seed);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  const ClassFn& class_fn() const { return class_fn_; }
  // The normalized target distribution.
  const std::vector<double>& target() const { return target_; }
  // Each class's acceptance when initial_dist is given; empty when the
  // input's distribution is estimated.
  const std::vector<double>& acceptance() const { return acceptance_; }
  const IterationSeeds& seeds() const { return seeds_; }

 private:
  const DatasetPtr input_;
  const RejectionResampleOptions options_;
  const ClassFn class_fn_;
  const std::vector<double> target_;
  const std::vector<double> acceptance_;
  const IterationSeeds seeds_;
};

class RejectionResampleIterator final : public Iterator {
 public:
  RejectionResampleIterator(std::shared_ptr<const RejectionResampleDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)),
        runtime_(ctx.runtime),
        input_(dataset_->input()->NewIterator(ctx)),
        seeds_(dataset_->seeds()) {}
  ~RejectionResampleIterator() override { runtime_->ram_budget().Release(counts_bytes_); }

 protected:
  // Reads input elements until one is kept; each input element draws one
  // uniform number, at its position in the input.
  Result<std::optional<Element>> GetNextInternal() override {
    if (estimated() && counts_.empty()) SLUICE_RETURN_IF_ERROR(StartCounts());
    while (true) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
      if (!element) return std::nullopt;
      const uint64_t draw = seeds_.Next();
      SLUICE_ASSIGN_OR_RETURN(Tensor label, dataset_->class_fn()(*element));
      if (label.rank() != 0 || !IsClassDType(label.dtype())) {
        return InvalidArgumentError(kOp, ": the class is ", label.dtype(), label.shape(),
                                    ", not an int32 or int64 scalar");
      }
      const int64_t c = label.dtype() == DType::kInt32 ? label.scalar<int32_t>() : label.scalar<int64_t>();
      const auto classes = static_cast<int64_t>(dataset_->target().size());
      if (c < 0 || c >= classes) {
        return InvalidArgumentError(kOp, ": an element's class is ", c, ", outside [0, ", classes,
                                    ") (target_dist has ", classes, " classes)");
      }
      const double uniform = static_cast<double>(draw >> 11) * 0x1.0p-53;
      if (uniform < Acceptance(c)) {
        element->components.insert(element->components.begin(), std::move(label));
        return element;
      }
    }
  }

  // The draws' epoch and position, the class counts when estimating, and
  // the input.
  Status SaveInternal(IteratorStateWriter& writer) override {
    seeds_.Save(writer);
    if (estimated() && !counts_.empty()) {
      writer.WriteTensor("counts", Tensor::FromVector(counts_));
    }
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_RETURN_IF_ERROR(seeds_.Restore(reader));
    if (estimated() && reader.Contains("counts")) {
      SLUICE_ASSIGN_OR_RETURN(Tensor counts, reader.ReadTensor("counts"));
      const auto classes = static_cast<int64_t>(dataset_->target().size());
      if (counts.dtype() != DType::kInt64 || counts.rank() != 1 || counts.dim(0) != classes) {
        return DataLossError("iterator state: rejection_resample's counts are ", counts.dtype(), counts.shape(),
                             ", not int64[", classes, "]");
      }
      if (counts_.empty()) SLUICE_RETURN_IF_ERROR(StartCounts());
      for (int64_t i = 0; i < classes; ++i) {
        const int64_t n = counts.data<int64_t>()[i];
        if (n < kSmoothing) {
          return DataLossError("iterator state: rejection_resample's count of class ", i, " is ", n,
                               ", below its start ", kSmoothing);
        }
        counts_[i] = n;
      }
      FindMaxRatio();
    }
    return reader.ReadIterator("input", *input_);
  }

 private:
  bool estimated() const { return dataset_->acceptance().empty(); }

  // Every class's count at kSmoothing, charged to the RAM budget.
  Status StartCounts() {
    const auto classes = static_cast<int64_t>(dataset_->target().size());
    const int64_t bytes = classes * static_cast<int64_t>(sizeof(int64_t));
    if (!runtime_->ram_budget().TryAdd(bytes)) {
      return ResourceExhaustedError(kOp, ": the counts of ", classes, " classes (", bytes,
                                    " bytes) pass the RAM budget (", runtime_->ram_budget().limit(), " bytes)");
    }
    counts_bytes_ = bytes;
    counts_.assign(classes, kSmoothing);
    FindMaxRatio();
    return OkStatus();
  }

  double Ratio(int64_t c) const { return dataset_->target()[c] / static_cast<double>(counts_[c]); }

  void FindMaxRatio() {
    max_class_ = 0;
    for (int64_t c = 1; c < static_cast<int64_t>(counts_.size()); ++c) {
      if (Ratio(c) > Ratio(max_class_)) max_class_ = c;
    }
  }

  // The probability of keeping an element of class c (counted first when
  // estimating). Counting c lowers only c's ratio, so the largest ratio
  // moves only when c held it.
  double Acceptance(int64_t c) {
    if (!estimated()) return dataset_->acceptance()[c];
    ++counts_[c];
    if (c == max_class_) FindMaxRatio();
    return Ratio(c) / Ratio(max_class_);
  }

  const std::shared_ptr<const RejectionResampleDataset> dataset_;
  const std::shared_ptr<Runtime> runtime_;
  const std::unique_ptr<Iterator> input_;
  ElementSeeds seeds_;
  std::vector<int64_t> counts_;  // per class, when estimating; empty until the first GetNext
  int64_t counts_bytes_ = 0;     // charged to the RAM budget
  int64_t max_class_ = 0;        // a class of the largest target / count ratio
};

std::unique_ptr<Iterator> RejectionResampleDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<RejectionResampleIterator>(SharedThis<RejectionResampleDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeRejectionResampleDataset(DatasetPtr input, RejectionResampleOptions options) {
  const ElementSpec& in = input->element_spec();
  SLUICE_ASSIGN_OR_RETURN(auto bound, BindClass(options, in));
  const size_t classes = options.target_dist.size();
  if (classes == 0 || static_cast<int64_t>(classes) > kMaxResampleClasses) {
    return InvalidArgumentError(kOp, ": target_dist has ", classes, " classes; it needs 1 to ", kMaxResampleClasses);
  }
  SLUICE_ASSIGN_OR_RETURN(std::vector<double> target, Normalized(options.target_dist, "target_dist"));
  std::vector<double> acceptance;
  if (!options.initial_dist.empty()) {
    if (options.initial_dist.size() != classes) {
      return InvalidArgumentError(kOp, ": initial_dist has ", options.initial_dist.size(), " classes, target_dist ",
                                  classes);
    }
    SLUICE_ASSIGN_OR_RETURN(std::vector<double> initial, Normalized(options.initial_dist, "initial_dist"));
    for (size_t i = 0; i < classes; ++i) {
      if (target[i] > 0 && initial[i] == 0) {
        return InvalidArgumentError(kOp, ": target_dist[", i, "] is ", options.target_dist[i], " but initial_dist[", i,
                                    "] is 0: no element of class ", i, " would ever come to be kept");
      }
    }
    acceptance = AcceptanceOf(target, initial);
  }
  std::vector<ComponentSpec> components = {{std::string(kClassName), bound.second, PartialShape(Shape{})}};
  for (const ComponentSpec& c : in.components()) {
    if (c.name == kClassName) {
      return InvalidArgumentError(kOp, ": the input already has a component named '", kClassName, "' ", in,
                                  "; rename it first");
    }
    components.push_back(c);
  }
  const uint64_t seed = options.seed ? *options.seed : RandomSeed();
  return Dataset::Make<RejectionResampleDataset>(std::move(input), std::move(options), std::move(bound.first),
                                                 std::move(target), std::move(acceptance),
                                                 ElementSpec(std::move(components)), seed);
}

Result<DatasetPtr> RejectionResampleDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::RejectionResample& resample = node.rejection_resample();
  if (resample.target_dist_size() > kMaxResampleClasses || resample.initial_dist_size() > kMaxResampleClasses) {
    return InvalidArgumentError(kOp, ": more than ", kMaxResampleClasses, " classes");
  }
  RejectionResampleOptions options{
      .class_component = resample.class_component(),
      .target_dist = std::vector<double>(resample.target_dist().begin(), resample.target_dist().end()),
      .initial_dist = std::vector<double>(resample.initial_dist().begin(), resample.initial_dist().end())};
  if (resample.has_class_fn()) {
    SLUICE_ASSIGN_OR_RETURN(options.class_fn, WithContext(ElementFunctionFromSpec(resample.class_fn()), "class_fn"));
  }
  if (resample.has_seed()) options.seed = resample.seed();
  return MakeRejectionResampleDataset(context.input(), std::move(options));
}

}  // namespace sluice
