// Dataset and Iterator: the two halves of every op in the graph.
//
// A Dataset is an immutable, shareable description of a sequence of elements
// (its config is const; its element spec and cardinality are known when it is
// built). MakeIterator() starts one traversal; each Iterator holds all the
// mutable state of that traversal. Nothing runs until GetNext() is called.
//
// Every op has the same shape: dataset/<op>_dataset.h declares an options
// struct and a validating Make<Op>Dataset factory; the Dataset and Iterator
// classes live in an anonymous namespace in <op>_dataset.cc.
//
// Thread safety: Datasets are immutable and thread-safe. An Iterator is used
// by one thread at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/core/element.h"
#include "sluice/dataset/cancellation.h"
#include "sluice/dataset/profile.h"
#include "sluice/dataset/runtime.h"
#include "sluice/dataset/stats.h"

namespace sluice {

namespace spec {
class Pipeline;  // dataset/pipeline_spec.proto
class DatasetNode;
}  // namespace spec
class IteratorStateReader;  // dataset/iterator_state.h
class IteratorStateWriter;
class OpSpecContext;  // dataset/op_spec.h

// Cardinality sentinels, as in tf.data.
inline constexpr int64_t kInfiniteCardinality = -1;
inline constexpr int64_t kUnknownCardinality = -2;
// Tunable parameters (buffer sizes, parallelism) accept kAutotune.
inline constexpr int64_t kAutotune = -1;

// The deepest graph a dataset may head: its longest chain of inputs down to
// a source, itself and the source included (Dataset::depth). Making,
// iterating, describing, saving and destroying a graph recurse once per
// level, so the bound keeps them within the smallest stack a thread gets
// (2 MiB: glibc's default when the stack rlimit is unlimited; oneTBB's
// workers get 4 MiB), also under ASan, whose frames are larger; deeper graphs
// are refused when they are made.
inline constexpr int kMaxGraphDepth = 256;

// "42", "infinite" or "unknown".
std::string CardinalityToString(int64_t cardinality);

// What every iterator of one traversal shares.
class Dataset;

struct IteratorContext {
  std::shared_ptr<Cancellation> cancellation = std::make_shared<Cancellation>();
  std::shared_ptr<StatsCounters> stats = std::make_shared<StatsCounters>();
  // The CPU pool, RAM budget, autotuner and defaults of the traversal
  // (dataset/runtime.h); MakeIterator makes one with default options if null.
  std::shared_ptr<Runtime> runtime;
  // Profiling (dataset/profile.h, dataset/profiler.h): null = off, and then
  // iterators cost nothing extra. Set it to profile every iterator of the
  // traversal; the same profile may be reused across traversals.
  std::shared_ptr<Profile> profile;
  // Set by Dataset::NewIterator while an op builds its inputs: the profile
  // node of the iterator being built. Ops pass the context on unchanged.
  ProfileNode* profile_parent = nullptr;
  const Dataset* profile_parent_dataset = nullptr;  // that iterator's dataset
};

class Iterator {
 public:
  virtual ~Iterator() = default;

  // The next element; std::nullopt at the end of the sequence. An error is
  // the error of this one element: the iterator stays usable, and the next
  // call continues with the following element. Once the traversal is
  // cancelled (its root iterator destroyed, or a Python next() interrupted),
  // every call is Cancelled, so that an op reading its input in a loop
  // until it finds an element to return (filter, skip, unique, an
  // interleave of empty datasets, over an endless input) stops when its
  // worker must.
  Result<std::optional<Element>> GetNext() {
    if (TraversalCancelled()) [[unlikely]] return TraversalCancelledError();
    if (profile_ == nullptr) [[likely]] return GetNextInternal();
    const bool sampled = counters_.TimeThisCall();
    if (sampled || InTimedCall()) [[unlikely]] return TimedGetNext(/*max_rows=*/0, sampled);
    return CountedGetNext(/*max_rows=*/0);
  }

  // Up to `max_rows` (>= 1) consecutive elements at once, stacked along a new
  // leading dimension: a "run" of k rows, 1 <= k <= max_rows. Equivalent to k
  // calls of GetNext(); an error is returned in place of the element it
  // belongs to, never after later elements. Ops that can hand over many
  // elements cheaply (from_slices, element-wise maps, take) override it;
  // consumers that gather rows (batch) call it.
  Result<std::optional<Element>> GetNextRun(int64_t max_rows) {
    if (TraversalCancelled()) [[unlikely]] return TraversalCancelledError();
    if (profile_ == nullptr) [[likely]] return GetNextRunInternal(max_rows);
    const bool sampled = counters_.TimeThisCall();
    if (sampled || InTimedCall()) [[unlikely]] return TimedGetNext(max_rows, sampled);
    return CountedGetNext(max_rows);
  }

  // Checkpointing (dataset/iterator_state.h; most callers want
  // SaveIteratorState / RestoreIteratorState). Save writes this iterator's
  // position, its inputs' included, as entries under the writer's current
  // prefix; it may pause background workers while it reads their buffers,
  // hence non-const. Unimplemented (naming the op) when the op can't.
  Status Save(IteratorStateWriter& writer) { return SaveInternal(writer); }
  // Moves this iterator to a saved position.
  // REQUIRES: a fresh iterator (no GetNext yet) of the dataset that saved it.
  Status Restore(IteratorStateReader& reader) { return RestoreInternal(reader); }

 protected:
  virtual Result<std::optional<Element>> GetNextInternal() = 0;
  // Default: one element as a run of one row (views, no copy).
  virtual Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows);
  // The state of an element buffered in a partial run (map's pending rows,
  // unbatch's current batch) is part of what these save.
  virtual Status SaveInternal(IteratorStateWriter& writer) = 0;
  virtual Status RestoreInternal(IteratorStateReader& reader) = 0;

  // The op's performance shape, declared once for the profiler: an async op
  // (a buffer filled by its own thread, as prefetch) is one whose consumer's
  // time inside GetNext is waiting, not work.
  virtual bool is_async() const { return false; }
  // The function the op applies to elements (map's), for the profiler.
  virtual StageFunction stage_function() const { return {}; }
  // Whether this traversal is profiled (to skip work done only for the profile).
  bool profiled() const { return profile_ != nullptr; }
  // Whether the traversal is cancelled: then every GetNext of its iterators
  // is Cancelled, and an op that drops its input's errors (ignore_errors,
  // shard, window's shift) must return them instead.
  bool TraversalCancelled() const { return cancellation_ != nullptr && cancellation_->cancelled(); }
  // An async op reports how full its buffer was when the consumer arrived.
  void RecordBufferSample(int64_t size, int64_t capacity) {
    if (profile_ != nullptr) [[unlikely]] profile_->node()->RecordBufferSample(size, capacity);
  }
  // An async op's work on its own workers, and its current parallelism.
  void RecordAsyncWork(int64_t ns, int64_t parallelism) {
    if (profile_ == nullptr) [[likely]] return;
    profile_->node()->RecordAsyncWork(ns);
    profile_->node()->RecordParallelism(parallelism);
  }
  // A tunable parameter's value as the op runs with it, and whether it was
  // given as kAutotune (the profiler never advises setting what is tuned).
  void RecordTunable(TunableParameter parameter, int64_t value, bool autotuned) {
    if (profile_ != nullptr) [[unlikely]] profile_->node()->RecordTunable(parameter, value, autotuned);
  }

 private:
  friend class Dataset;  // gives each iterator its counters in its profile node
  // A profiled GetNext (max_rows == 0) or GetNextRun. Untimed: counted inline
  // (one named result, so it is returned without a move).
  Result<std::optional<Element>> CountedGetNext(int64_t max_rows) {
    Result<std::optional<Element>> result = max_rows == 0 ? GetNextInternal() : GetNextRunInternal(max_rows);
    counters_.Count(ElementsIn(result, max_rows));
    return result;
  }
  // Timed, out of line: a call the node samples, or one inside a timed call
  // of a stage above on this thread (whose own time is its time less the
  // time of such calls, iterator_profile.h).
  Result<std::optional<Element>> TimedGetNext(int64_t max_rows, bool sampled);
  static Status TraversalCancelledError();
  // The elements a call returned: 0 at the end or on an error, else 1, or a run's rows.
  static int64_t ElementsIn(const Result<std::optional<Element>>& result, int64_t max_rows) {
    if (!result.ok() || !result->has_value()) return 0;
    const Element& element = **result;
    return max_rows == 0 || element.components.empty() ? 1 : element.components[0].dim(0);
  }

  // Used only when profiled; beside the vtable pointer, so an untimed call
  // touches no other memory. Declared before profile_, which reads them
  // when it folds them into the node.
  CallCounters counters_;
  // Null unless the traversal is profiled; folds its counts into its node
  // when destroyed, after the derived iterator has joined its workers.
  std::unique_ptr<IteratorProfile> profile_;
  // The traversal's, set by Dataset::NewIterator; null for an iterator made
  // otherwise (the root, which owns the scope).
  std::shared_ptr<const Cancellation> cancellation_;
};

class Dataset;
using DatasetPtr = std::shared_ptr<const Dataset>;

class Dataset : public std::enable_shared_from_this<Dataset> {
 public:
  virtual ~Dataset() = default;
  Dataset(const Dataset&) = delete;
  Dataset& operator=(const Dataset&) = delete;

  // The op's name as in tf.data: "batch", "shuffle", ...
  virtual std::string_view op_name() const = 0;
  // The op's arguments for people: "batch_size=32, drop_remainder=false".
  virtual std::string DebugParams() const = 0;
  // The datasets this one reads from, in order.
  virtual std::vector<DatasetPtr> inputs() const = 0;

  const ElementSpec& element_spec() const { return element_spec_; }
  // Number of elements, or kInfiniteCardinality / kUnknownCardinality.
  int64_t cardinality() const { return cardinality_; }
  // 1 + the largest depth among its inputs (a source's is 1), or more where
  // the op reads datasets that are not its inputs (see the constructor).
  // Worked out once, without recursion, and kept.
  int depth() const;

  // Makes the dataset of an op, refusing it (InvalidArgument naming the op)
  // when its graph would be deeper than kMaxGraphDepth. The Make<Op>Dataset
  // factories of ops with inputs return through it.
  template <typename Op, typename... Args>
  static Result<DatasetPtr> Make(Args&&... args) {
    DatasetPtr dataset = std::make_shared<Op>(std::forward<Args>(args)...);
    SLUICE_RETURN_IF_ERROR(CheckDepth(*dataset));
    return dataset;
  }
  // InvalidArgument naming `dataset`'s op when it is deeper than kMaxGraphDepth.
  static Status CheckDepth(const Dataset& dataset);

  // A fresh traversal from the start, owning its cancellation scope:
  // destroying the returned iterator cancels and joins all its workers.
  // With SLUICE_PROFILE=1 in the environment the traversal is profiled and
  // reports when the iterator is destroyed (dataset/profiler.h).
  std::unique_ptr<Iterator> MakeIterator() const;
  // The same with a context the caller keeps, to read its stats (stats.h)
  // or cancel the traversal (ctx.cancellation, which destroying the
  // iterator cancels). A context whose cancellation is already cancelled (a
  // traversal made with it has ended) gets a fresh one: a context serves
  // traversals one after another.
  std::unique_ptr<Iterator> MakeIterator(IteratorContext ctx) const;
  // A traversal inside an existing one (used by ops for their inputs). When
  // the context profiles, the iterator gets its node in the profile and its
  // inputs are built with it as their parent.
  std::unique_ptr<Iterator> NewIterator(const IteratorContext& ctx) const {
    std::unique_ptr<Iterator> iterator = ctx.profile == nullptr ? NewIteratorInternal(ctx) : NewProfiledIterator(ctx);
    iterator->cancellation_ = ctx.cancellation;
    return iterator;
  }

  // Appends this node to `pipeline`, after its input chain. Ops holding a C++
  // callable return Unimplemented naming the op.
  virtual Status ToSpec(spec::Pipeline* pipeline) const = 0;

 protected:
  // Iterators keep their dataset alive through this.
  template <typename Derived>
  std::shared_ptr<const Derived> SharedThis() const {
    return std::static_pointer_cast<const Derived>(shared_from_this());
  }

  // `depth_below`: the depth of the datasets the op reads besides inputs()
  // (those an interleave's function builds), so that they count toward its
  // depth; 0 for most ops.
  Dataset(ElementSpec element_spec, int64_t cardinality, int depth_below = 0)
      : element_spec_(std::move(element_spec)), cardinality_(cardinality), depth_below_(depth_below) {}

 private:
  // The op's iterator; its inputs are made with input->NewIterator(ctx).
  virtual std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const = 0;
  std::unique_ptr<Iterator> NewProfiledIterator(const IteratorContext& ctx) const;

  const ElementSpec element_spec_;
  const int64_t cardinality_;
  const int depth_below_;
  mutable std::atomic<int> depth_{0};  // 0 until depth() first works it out
};

// The graph for people: one line per node, inputs indented, each with its
// params, element spec and cardinality.
std::string DescribeGraph(const Dataset& dataset);

}  // namespace sluice
