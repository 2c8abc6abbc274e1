// ParallelTransformIterator: the engine of ops that transform groups of
// consecutive input elements on the traversal's CPU pool: parallel map
// (a group is a few elements, each mapped) and parallel batch (a group is
// one batch's rows, stacked).
//
// A runner thread reads the input sequentially (so the input sees one
// caller, as in the sequential op) into groups and queues one task per
// group on the CPU pool (dataset/cpu_pool.h). At most `parallelism` groups
// are in flight or waiting for the consumer; with kAutotune that number is
// the autotuner's (dataset/autotuner.h), which also gets the measured work.
// The consumer takes outputs group by group: in input order when
// deterministic, else from whichever group finished first (within a group
// the order is kept), so fast groups pass slow ones.
//
// A group ends early at an input error, which is handed to Transform with
// the elements before it; the runner goes on with the next element, so
// errors arrive where the sequential op would return them. The results
// waiting for the consumer are charged to the RAM budget, and the runner
// reserves room before reading a group (dataset/ram_budget.h); a group
// that doesn't fit waits, unless the consumer waits with no group here.
// A group's two vectors are kept for the next group once it is done with
// them: made on one thread and freed on another, a thousand elements'
// worth at a time, they would cost a page-fault and give-back cycle per
// group (glibc returns a freed per-thread heap top with madvise, and a TLB
// shootdown across the cores).
// Destroying the iterator stops the runner, waits for the queued tasks and
// destroys the input, even mid-stream. Save joins the runner and the tasks
// and saves the finished groups' outputs and the input's position (and a
// random op's element seeds).
// Thread safety: like any Iterator, used by one thread at a time.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/element_seeds.h"

namespace sluice {

using GroupElements = std::vector<Element>;
using GroupOutputs = std::vector<Result<Element>>;

// What a parallel op does to one group. Ops implement it on their Dataset,
// which the iterator keeps alive.
class GroupTransform {
 public:
  // One group's input elements: `elements`, then `error` if the input
  // failed after them.
  // For a random op (Options::seeds), `seed` is the iterator's seed and
  // `first_position` the position of elements[0] in the op's input
  // (ElementSeeds::At gives each element's seed); else both are 0.
  struct Input {
    GroupElements elements;
    Status error;
    uint64_t seed = 0;
    int64_t first_position = 0;
  };
  virtual ~GroupTransform() = default;
  // How many input elements the next group takes, given the measured cost
  // of transforming one (0 before any was measured).
  virtual int64_t NextGroupSize(double seconds_per_element) const = 0;
  // Appends the outputs of one group, in order (possibly none), to
  // `outputs` (empty); may move the input's elements out. Runs on the CPU
  // pool, concurrently with other groups.
  virtual void Transform(Input& input, GroupOutputs& outputs) const = 0;
};

class ParallelTransformIterator final : public Iterator {
 public:
  struct Options {
    std::string_view op_name;  // for errors, the autotuner and the profiler
    int64_t parallelism = 1;   // >= 1 or kAutotune: groups in flight or ready
    bool deterministic = true;
    // The output spec, to restore saved outputs.
    const ElementSpec* output_spec = nullptr;
    // The function it applies (a map's), for the profiler.
    StageFunction function;
    // A random op's iterator count (dataset/element_seeds.h): the
    // iterator takes its epoch, counts its input's elements, passes both
    // with each group and saves them. Null for other ops. Outlives the
    // iterator (the transform owns it).
    const IterationSeeds* seeds = nullptr;
  };

  ParallelTransformIterator(const IteratorContext& ctx, std::unique_ptr<Iterator> input,
                            std::shared_ptr<const GroupTransform> transform, Options options);
  ~ParallelTransformIterator() override;

 protected:
  Result<std::optional<Element>> GetNextInternal() override;
  Status SaveInternal(IteratorStateWriter& writer) override;
  Status RestoreInternal(IteratorStateReader& reader) override;
  bool is_async() const override { return true; }
  StageFunction stage_function() const override { return options_.function; }

 private:
  struct Group {
    GroupOutputs outputs;  // filled when done
    size_t next = 0;       // outputs before it have been taken
    bool done = false;
    // What the group is charged to the RAM budget (its reservation, then its
    // outputs' bytes where they fit); released as outputs leave.
    int64_t charge = 0;
  };

  int64_t Parallelism() const;
  bool MustStop() const { return stopping_ || pausing_ || cancellation_->cancelled(); }
  void StartRunner();   // REQUIRES: mu_ held
  void StopRunner();    // joins the runner and waits for every task
  void Run();           // the runner thread
  // A task on the pool: transforms `input`, appending to `outputs` (empty).
  void RunGroup(Group* group, GroupTransform::Input input, GroupOutputs outputs);
  // Keeps a done-with vector's capacity for a later group. REQUIRES: mu_ held.
  template <typename Vector>
  void Recycle(Vector& vector, std::vector<Vector>& spares);
  // A kept vector (empty) if there is one, else a new one. REQUIRES: mu_ held.
  template <typename Vector>
  static Vector TakeSpare(std::vector<Vector>& spares);
  // The next output for the consumer, if one is ready; its bytes leave the budget.
  // REQUIRES: mu_ held.
  std::optional<Result<Element>> TakeReadyOutput();
  // Releases up to `bytes` of the group's charge. REQUIRES: mu_ held.
  void Release(Group& group, int64_t bytes);

  const std::shared_ptr<Runtime> runtime_;
  const std::shared_ptr<Cancellation> cancellation_;
  const std::shared_ptr<const GroupTransform> transform_;
  const Options options_;
  const std::unique_ptr<Iterator> input_;  // used by the runner thread only (or while it is stopped)
  std::optional<ElementSeeds> seeds_;      // with options_.seeds; used by the runner (or while it is stopped)
  std::shared_ptr<Tunable> tunable_;       // with kAutotune
  int waker_ = 0;
  TaskGroup tasks_;

  mutable std::mutex mu_;
  std::condition_variable consumer_cond_;  // a group finished, the input ended, or shutdown
  std::condition_variable runner_cond_;    // room for another group, or shutdown
  std::deque<std::unique_ptr<Group>> groups_;  // guarded by mu_; in input order
  bool input_done_ = false;                // guarded by mu_
  bool consumer_waiting_ = false;          // guarded by mu_
  bool stopping_ = false;                  // guarded by mu_
  bool pausing_ = false;                   // guarded by mu_; StopRunner is joining the runner
  int64_t bytes_per_element_ = 0;          // guarded by mu_; of the last finished group
  bool measured_ = false;                  // guarded by mu_; a group has finished
  double seconds_per_element_ = 0;         // guarded by mu_; transform cost per input element, last group
  std::vector<GroupElements> spare_inputs_;  // guarded by mu_; empty, with capacity
  std::vector<GroupOutputs> spare_outputs_;  // guarded by mu_; empty, with capacity
  std::thread runner_;                     // started on the first GetNext
};

}  // namespace sluice
