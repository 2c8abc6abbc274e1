#include "sluice/dataset/map_dataset.h"

#include <algorithm>
#include <new>
#include <utility>

#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/element_seeds.h"
#include "sluice/dataset/held_bytes_charge.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/parallel_transform.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

// A parallel map's task maps enough consecutive elements to take about
// this long, so that the task's own cost (queueing it, waking a worker and
// the consumer: tens of microseconds on a busy virtual CPU) stays a few
// percent of it.
constexpr double kTargetTaskSeconds = 1e-3;
constexpr int64_t kMaxElementsPerTask = 1024;

// The output run of a per-element function over rows [first, first + rows)
// of an input run, filled row by row. A component that the function passes
// through (its output row is the input row itself, the same view) stays a
// view of the input run; a component the function makes is copied into a
// run tensor of its own, from the row where it first differs (the rows
// before it copied from the input run).
class MappedRun {
 public:
  MappedRun(const Element& input, int64_t first, int64_t rows) : input_(input), first_(first), rows_(rows) {}

  // Whether `mapped` has the first row's dtypes and shapes, so that it
  // stacks onto it. REQUIRES: a row added.
  bool Matches(const Element& mapped) const {
    if (mapped.size() != out_.size()) return false;
    for (size_t i = 0; i < out_.size(); ++i) {
      if (mapped[i].dtype() != first_row_[i].dtype || mapped[i].shape() != first_row_[i].shape) return false;
    }
    return true;
  }

  // Appends the next row. REQUIRES: Matches(mapped) after the first row.
  void Add(const Element& mapped) {
    if (added_ == 0) Start(mapped);
    const int64_t row = first_ + added_;
    for (size_t i = 0; i < out_.size(); ++i) {
      const Tensor& t = mapped[i];
      if (!out_[i].valid()) {
        if (IsInputRow(t, i, row)) continue;
        out_[i] = Tensor::AllocateUninitialized(t.dtype(), t.shape().Prepended(rows_));
        if (added_ > 0) CopyIntoRows(input_[i].Slice(first_, row), out_[i], 0);
      }
      CopyIntoRows(t, out_[i], added_);
    }
    ++added_;
  }

  // The rows added. REQUIRES: at least one.
  Element Finish() {
    for (size_t i = 0; i < out_.size(); ++i) {
      if (!out_[i].valid()) {
        out_[i] = input_[i].Slice(first_, first_ + added_);
      } else if (added_ < rows_) {
        out_[i] = out_[i].Slice(0, added_);
      }
    }
    return std::move(out_);
  }

 private:
  // Takes the first row's dtypes and shapes, and which of its components
  // have the dtype and row shape of the input component at the same
  // position: only those can be rows of it, for this row and (as every row
  // matches the first) for all the others.
  void Start(const Element& mapped) {
    out_.components.resize(mapped.size());
    first_row_.reserve(mapped.size());
    for (size_t i = 0; i < mapped.size(); ++i) {
      const Tensor& t = mapped[i];
      const bool may_pass = i < input_.size() && t.dtype() == input_[i].dtype() &&
                            input_[i].rank() == t.rank() + 1 && t.shape() == input_[i].shape().WithoutFirstDim();
      first_row_.push_back({.dtype = t.dtype(),
                            .shape = t.shape(),
                            .input_rows = may_pass ? static_cast<const char*>(input_[i].raw_data()) : nullptr,
                            .row_bytes = may_pass ? t.NumBytes() : 0});
    }
  }
  // Whether `t` is row `row` of input component i: a view at that row's
  // address with its dtype and shape (tensors are immutable, so the same
  // values). REQUIRES: t has the first row's dtype and shape.
  bool IsInputRow(const Tensor& t, size_t i, int64_t row) const {
    const FirstRow& first = first_row_[i];
    return first.input_rows != nullptr && t.raw_data() == first.input_rows + static_cast<size_t>(row) * first.row_bytes;
  }

  const Element& input_;
  const int64_t first_, rows_;
  int64_t added_ = 0;
  Element out_;                 // invalid tensors for components passed through so far
  // Per component of the first row: its dtype and shape and, when it may
  // be a row of the input component at its position, that run's bytes and
  // a row's size.
  struct FirstRow {
    DType dtype;
    Shape shape;
    const char* input_rows;  // null when it can't pass through
    size_t row_bytes;
  };
  std::vector<FirstRow> first_row_;
};

// A per-element function's results in a row loop, made in two slots in
// turn: the next row's argument is made from the last result's tensors (so
// a tensor the function passed through keeps its buffer reference) and the
// next result is made in place in the other slot, so that no result is
// moved (an element's move copies its inline tensors).
class ResultSlots {
 public:
  ResultSlots() = default;
  ResultSlots(const ResultSlots&) = delete;
  ResultSlots& operator=(const ResultSlots&) = delete;
  ~ResultSlots() {
    if (last_ != nullptr) last_->~Result();
  }

  // The last result's element, taken out of it; an empty element when there
  // is none or it is an error.
  Element TakeLast() {
    if (last_ == nullptr || !last_->ok()) return Element();
    // What is left is an empty inline element, whose destructor does
    // nothing: its slot is reused without running it, as the language
    // allows when nothing depends on a destructor's effects.
    return *std::move(*std::exchange(last_, nullptr));
  }
  // Makes the next result, make()'s, in the slot the last one is not in
  // (make may TakeLast()); it becomes the last.
  template <typename Make>
  Result<Element>& MakeNext(Make&& make) {
    const int next = 1 - last_slot_;
    Result<Element>* made = ::new (static_cast<void*>(storage_[next])) Result<Element>(make());
    if (last_ != nullptr) last_->~Result();
    last_ = made;
    last_slot_ = next;
    return *made;
  }

 private:
  alignas(Result<Element>) unsigned char storage_[2][sizeof(Result<Element>)];
  Result<Element>* last_ = nullptr;  // null once taken
  int last_slot_ = 1;                // the first result goes to slot 0
};

class MapDataset final : public Dataset, public GroupTransform {
 public:
  // `seed`: the random function's seed (FunctionSeed); unused for others.
  MapDataset(DatasetPtr input, ElementFunctionPtr fn, BoundElementFunction bound, MapOptions options, uint64_t seed)
      : Dataset(bound.output_spec, input->cardinality()),
        input_(std::move(input)),
        fn_(std::move(fn)),
        bound_(std::move(bound)),
        options_(options),
        seeds_(bound_.apply_seeded ? std::make_unique<const IterationSeeds>(seed) : nullptr),
        output_shapes_are_static_(!element_spec().components().empty() &&
                                  std::all_of(element_spec().components().begin(), element_spec().components().end(),
                                              [](const ComponentSpec& c) { return c.shape.IsFullyDefined(); })) {}

  std::string_view op_name() const override { return "map"; }
  std::string DebugParams() const override {
    std::string params = StrCat("fn=", fn_->name());
    if (seeds_ != nullptr && !bound_.seed) {
      params += options_.pipeline_seed ? StrCat(", pipeline_seed=", *options_.pipeline_seed) : ", seed=random";
    }
    return params + ParallelParams(options_.num_parallel_calls, options_.deterministic);
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    if (options_.pipeline_seed) {
      if (pipeline->has_seed() && pipeline->seed() != *options_.pipeline_seed) {
        return InvalidArgumentError("map: cannot write the pipeline seed ", *options_.pipeline_seed,
                                    ": an op before it in the chain has pipeline seed ", pipeline->seed());
      }
      pipeline->set_seed(*options_.pipeline_seed);
    }
    spec::Map* map = pipeline->add_ops()->mutable_map();
    if (options_.num_parallel_calls != 0) map->set_num_parallel_calls(options_.num_parallel_calls);
    if (options_.deterministic != Determinism::kDefault) {
      map->set_deterministic(options_.deterministic == Determinism::kDeterministic);
    }
    return fn_->ToSpec(map->mutable_fn());
  }

  // GroupTransform, for the parallel iterator.
  int64_t NextGroupSize(double seconds_per_element) const override {
    if (seconds_per_element <= 0) return 1;
    return std::clamp<int64_t>(static_cast<int64_t>(kTargetTaskSeconds / seconds_per_element), 1,
                               kMaxElementsPerTask);
  }
  void Transform(Input& input, GroupOutputs& outputs) const override {
    outputs.reserve(input.elements.size() + 1);
    int64_t position = input.first_position;
    for (Element& element : input.elements) {
      const uint64_t seed = seeds_ != nullptr ? ElementSeeds::At(input.seed, position++) : 0;
      outputs.push_back(Apply(std::move(element), /*is_run=*/false, seed));
    }
    if (!input.error.ok()) outputs.push_back(std::move(input.error));
  }

  // Applies the function to one element or run, checking the output against
  // the bound output spec: a lambda's is only declared, not inferred.
  // `element_seed`: a random function's seed for the element.
  Result<Element> Apply(Element&& element, bool is_run, uint64_t element_seed) const {
    // One named result on every path, so it is returned without a move.
    Result<Element> out =
        seeds_ != nullptr ? bound_.apply_seeded(std::move(element), element_seed) : bound_.apply(std::move(element));
    AddErrorContext(out);
    if (out.ok()) {
      if (Status status = CheckOutput(*out, is_run); !status.ok()) out = std::move(status);
    }
    return out;
  }
  // The function itself, for a caller that makes its argument in place.
  const BoundElementFunction& function() const { return bound_; }
  // A random function's iterator count; null for other functions.
  const IterationSeeds* seeds() const { return seeds_.get(); }
  // Gives the function's error `out`, if it is one, the op's context.
  void AddErrorContext(Result<Element>& out) const {
    if (out.ok()) return;
    if (out.status().code() == StatusCode::kOutOfRange) {
      out = InvalidArgumentError("map: Function invocation produced OutOfRangeError: ", out.status().message());
    } else {
      out = out.status().WithContext("map");
    }
  }
  Status CheckOutput(const Element& out, bool is_run) const {
    Status status = element_spec().Check(out, is_run);
    if (status.ok()) return status;
    return status.WithContext(StrCat("map: the function's output does not match its declared spec ", element_spec()));
  }

  const DatasetPtr& input() const { return input_; }
  bool row_wise() const { return bound_.row_wise; }
  StageFunction stage_function() const { return {.name = fn_->name(), .row_wise = bound_.row_wise}; }
  // Whether every output component has one static shape, so that outputs
  // of a per-element function stack into a run.
  bool output_shapes_are_static() const { return output_shapes_are_static_; }
  // Whether inputs and outputs can pass as runs (ElementSpec::AllowsRuns).
  bool runs_allowed() const { return runs_allowed_; }

 private:
  const DatasetPtr input_;
  const ElementFunctionPtr fn_;       // for name() and ToSpec
  const BoundElementFunction bound_;  // fn_ bound to input_'s element spec
  const MapOptions options_;
  const std::unique_ptr<const IterationSeeds> seeds_;  // for a random function
  const bool output_shapes_are_static_;
  const bool runs_allowed_ = input_->element_spec().AllowsRuns() && element_spec().AllowsRuns();
};

class MapIterator final : public Iterator {
 public:
  // `held`: the charge of the function's held bytes, or the error that
  // they did not fit, which the first call returns before the end.
  MapIterator(std::shared_ptr<const MapDataset> dataset, const IteratorContext& ctx, Result<HeldBytesCharge> held)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)), held_(std::move(held)) {
    if (dataset_->seeds() != nullptr) seeds_.emplace(*dataset_->seeds());
  }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (!held_.ok()) [[unlikely]] return HeldBytesError();
    if (!pending_error_.ok()) return std::exchange(pending_error_, OkStatus());
    Element element;
    if (pending_rows_ > 0) {
      element = TakePendingRow();
    } else {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> next, input_->GetNext());
      if (!next) return std::nullopt;
      element = std::move(*next);
    }
    SLUICE_ASSIGN_OR_RETURN(Element out, dataset_->Apply(std::move(element), /*is_run=*/false, NextSeed()));
    return out;
  }

  // A row-wise function maps whole runs. If it fails on a run, the run is
  // kept and mapped row by row, so the error lands on its own element.
  // A per-element function with static output shapes maps a run's rows one
  // by one into one output run, so that a consumer of runs (batch) makes one
  // call per run, not per element.
  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) override {
    if (!held_.ok()) [[unlikely]] return HeldBytesError();
    if (!dataset_->runs_allowed()) return Iterator::GetNextRunInternal(max_rows);
    if (!dataset_->row_wise()) {
      if (!dataset_->output_shapes_are_static()) return Iterator::GetNextRunInternal(max_rows);
      return MapRowsIntoRun(max_rows);
    }
    if (pending_rows_ > 0) return Iterator::GetNextRunInternal(max_rows);
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> run, input_->GetNextRun(max_rows));
    if (!run) return std::nullopt;
    Result<Element> out = dataset_->Apply(Element(*run), /*is_run=*/true, /*element_seed=*/0);
    if (out.ok()) return std::move(out).value();
    KeepPending(std::move(*run));
    return Iterator::GetNextRunInternal(max_rows);
  }

  StageFunction stage_function() const override { return dataset_->stage_function(); }

  // The function is not saved: it is assumed stateless (a lambda included).
  Status SaveInternal(IteratorStateWriter& writer) override {
    if (!held_.ok()) return held_.status();
    if (seeds_) seeds_->Save(writer);
    writer.WriteStatus("pending_error", pending_error_);
    writer.WriteRows("pending", pending_, pending_next_, pending_next_ + pending_rows_);
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    if (seeds_) SLUICE_RETURN_IF_ERROR(seeds_->Restore(reader));
    SLUICE_RETURN_IF_ERROR(reader.ReadStatus("pending_error", &pending_error_));
    SLUICE_ASSIGN_OR_RETURN(pending_, reader.ReadRows("pending", dataset_->input()->element_spec(), &pending_rows_));
    pending_next_ = 0;
    return reader.ReadIterator("input", *input_);
  }

 private:
  // The function's held bytes did not fit the RAM budget: that error once,
  // then the end of the sequence (nothing can be mapped).
  Result<std::optional<Element>> HeldBytesError() {
    if (std::exchange(held_error_returned_, true)) return std::nullopt;
    return held_.status();
  }

  // Up to max_rows outputs of the per-element function, stacked. An error
  // ends the run before its element and is returned by the next call, so it
  // keeps its place in the sequence.
  Result<std::optional<Element>> MapRowsIntoRun(int64_t max_rows) {
    if (!pending_error_.ok()) return std::exchange(pending_error_, OkStatus());
    if (pending_rows_ == 0) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> run, input_->GetNextRun(max_rows));
      if (!run) return std::nullopt;
      KeepPending(std::move(*run));
    }
    const int64_t rows = std::min(max_rows, pending_rows_);
    const int64_t first = pending_next_;
    const Element input = pending_;  // ConsumePending lets go of it after the last row
    const BoundElementFunction& function = dataset_->function();
    MappedRun out(input, first, rows);
    ResultSlots results;
    for (int64_t taken = 1; taken <= rows; ++taken) {
      Result<Element>& mapped = results.MakeNext([&] {
        // The row is made in the function's argument, not moved there.
        return seeds_ ? function.apply_seeded(RowArgument(results, input, first + taken - 1), seeds_->Next())
                      : function.apply(RowArgument(results, input, first + taken - 1));
      });
      if (!mapped.ok()) [[unlikely]] {
        dataset_->AddErrorContext(mapped);
      } else if (taken == 1 || !out.Matches(*mapped)) {
        // Output shapes are static: a row with the first row's shapes and
        // dtypes matches the spec, as the first row was checked to.
        if (Status status = dataset_->CheckOutput(*mapped, /*is_run=*/false); !status.ok()) mapped = std::move(status);
      }
      if (!mapped.ok()) {
        ConsumePending(taken);
        if (taken == 1) return mapped.status();
        pending_error_ = mapped.status();
        return out.Finish();
      }
      out.Add(*mapped);
    }
    ConsumePending(rows);
    return out.Finish();
  }

  // Row `row` of `input`, made from the last result's element: its tensors
  // are re-pointed at the row rather than made, so a component that the
  // function passed through still holds the run's buffer and taking the
  // next row costs no reference counting.
  static Element RowArgument(ResultSlots& results, const Element& input, int64_t row) {
    Element argument = results.TakeLast();
    PointAtRow(argument, input, row);
    return argument;
  }
  // Makes `element` row `row` of `run` (Tensor::AssignRow), reusing its tensors.
  static void PointAtRow(Element& element, const Element& run, int64_t row) {
    if (element.size() != run.size()) element.components.resize(run.size());
    for (size_t i = 0; i < run.size(); ++i) element[i].AssignRow(run[i], row);
  }

  // Marks the next `rows` pending rows mapped.
  void ConsumePending(int64_t rows) {
    pending_next_ += rows;
    pending_rows_ -= rows;
    if (pending_rows_ == 0) pending_ = Element();
  }

  void KeepPending(Element run) {
    pending_ = std::move(run);
    pending_rows_ = pending_[0].dim(0);
    pending_next_ = 0;
  }

  // The next row of the pending run, made as the sources make theirs.
  Element TakePendingRow() {
    Element row;
    for (const Tensor& t : pending_.components) row.components.push_back_row(t, pending_next_);
    ConsumePending(1);
    return row;
  }

  // A random function's seed for the next element (0 for other functions).
  uint64_t NextSeed() { return seeds_ ? seeds_->Next() : 0; }

  const std::shared_ptr<const MapDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  std::optional<ElementSeeds> seeds_;  // for a random function
  Element pending_;  // a run whose rows are being mapped one by one
  int64_t pending_rows_ = 0;
  int64_t pending_next_ = 0;
  Status pending_error_;  // an error that ended the last run, returned next
  const Result<HeldBytesCharge> held_;
  bool held_error_returned_ = false;
};

// The map's transform holding the charge of its function's held bytes, for
// the parallel iterator, which keeps its transform as long as it lives.
class ChargedMapTransform final : public GroupTransform {
 public:
  ChargedMapTransform(std::shared_ptr<const MapDataset> map, HeldBytesCharge charge)
      : map_(std::move(map)), charge_(std::move(charge)) {}
  int64_t NextGroupSize(double seconds_per_element) const override {
    return map_->NextGroupSize(seconds_per_element);
  }
  void Transform(Input& input, GroupOutputs& outputs) const override { map_->Transform(input, outputs); }

 private:
  const std::shared_ptr<const MapDataset> map_;
  const HeldBytesCharge charge_;
};

std::unique_ptr<Iterator> MapDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  Result<HeldBytesCharge> held = HeldBytesCharge::Make(ctx.runtime->ram_budget(), bound_.held_bytes, fn_->name());
  if (options_.num_parallel_calls == 0 || !held.ok()) {
    if (!held.ok()) held = held.status().WithContext("map");
    return std::make_unique<MapIterator>(SharedThis<MapDataset>(), ctx, std::move(held));
  }
  std::shared_ptr<const GroupTransform> transform = SharedThis<MapDataset>();
  if (held->bytes() > 0) transform = std::make_shared<ChargedMapTransform>(SharedThis<MapDataset>(), *std::move(held));
  return std::make_unique<ParallelTransformIterator>(
      ctx, input_->NewIterator(ctx), std::move(transform),
      ParallelTransformIterator::Options{.op_name = "map",
                                         .parallelism = options_.num_parallel_calls,
                                         .deterministic = ctx.runtime->IsDeterministic(options_.deterministic),
                                         .output_spec = &element_spec(),
                                         .function = stage_function(),
                                         .seeds = seeds_.get()});
}

}  // namespace

Result<DatasetPtr> MakeMapDataset(DatasetPtr input, ElementFunctionPtr fn, MapOptions options) {
  if (input == nullptr) return InvalidArgumentError("map: input dataset is null");
  if (fn == nullptr) return InvalidArgumentError("map: function is null");
  SLUICE_RETURN_IF_ERROR(CheckNumParallelCalls("map", options.num_parallel_calls));
  // The function's own errors name it, so the context is just "map".
  Result<BoundElementFunction> bound = fn->Bind(input->element_spec());
  if (!bound.ok()) return bound.status().WithContext("map");
  const uint64_t seed =
      bound->apply_seeded ? FunctionSeed(bound->seed, options.pipeline_seed, input->depth() + 1) : 0;
  return Dataset::Make<MapDataset>(std::move(input), std::move(fn), *std::move(bound), options, seed);
}

Result<DatasetPtr> MapDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::Map& map = node.map();
  if (!map.has_fn()) return InvalidArgumentError("map has no fn");
  SLUICE_ASSIGN_OR_RETURN(ElementFunctionPtr fn, ElementFunctionFromSpec(map.fn()));
  return MakeMapDataset(context.input(), std::move(fn),
                        {.num_parallel_calls = map.num_parallel_calls(),
                         .deterministic = DeterminismFromSpec(map.has_deterministic(), map.deterministic()),
                         .pipeline_seed = context.pipeline_seed()});
}

}  // namespace sluice
