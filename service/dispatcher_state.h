// DispatcherState: what the dispatcher knows, as pure logic without I/O or
// clocks of its own (callers pass `now`, so tests drive it with a fake
// clock): datasets registered by spec fingerprint, jobs, workers and the
// handout of splits.
//
// Every change is a StateUpdate (service/dispatcher_state.proto). A method
// that changes something returns the updates it applied, in order; the
// dispatcher journals them (service/journal.h) before it answers, and a
// restarted dispatcher replays the journal through Apply() to the same
// state. Heartbeat times are not journaled: replayed workers count as seen
// at the replay, so live ones keep their splits when they heartbeat again
// within the timeout and dead ones lose them a timeout later.
//
// Splits: split k of epoch e of a job of n splits per epoch has id e*n + k
// (parallel_epochs: one split per worker, numbered as handed out). Each is
// handed to one worker at a time; it is finished when its consumers say
// they hold every element of it (coordinated reads: every consumer not
// departed; a consumer that was heard from and then stays silent for
// consumer_timeout departs, and is refused from then on); the
// unfinished splits of a removed worker, and those a worker gives back
// because their consumer left, go back to the front of the queue.
// A shared job is restored from the saved states of its consumers
// (service/shared_job_restore.cc): the first restored consumer makes a new
// job of the name (the old one is superseded: finished), which hands out
// no split until every consumer the states name has given its state; then
// the splits they held whole are finished and a split they held part of
// starts at the most elements held.
// Snapshot() gives the whole state as a few updates, which a journal keeps
// in place of the many that led to it.
// Thread safety: none; the dispatcher serialises calls under its lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sluice/core/status.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/spec_fingerprint.h"
#include "sluice/service/dispatcher_state.pb.h"
#include "sluice/service/processing_mode.h"
#include "sluice/service/split_provider.h"

namespace sluice::service {

using Clock = std::chrono::steady_clock;

// The longest consumer uid the dispatcher keeps (an iterator's is
// "<pid>-<64 random bits>" in hex).
inline constexpr size_t kMaxConsumerUidBytes = 64;

struct DispatcherStateOptions {
  // A worker silent for longer is removed (default: workers heartbeat every
  // 250 ms, so a killed one is noticed within 2 s).
  std::chrono::milliseconds worker_timeout{1500};
  // A consumer of a coordinated job silent for longer departs (default:
  // consumers heartbeat every 100 ms). Consumers count as heard from once
  // they heartbeat, or, on replay, once they finished a split.
  std::chrono::milliseconds consumer_timeout{1500};
  // Caps on what clients can make the state hold, each refused past it
  // with ResourceExhausted naming the cap (a journal replays whatever it
  // holds): datasets registered, jobs not yet finished (every worker runs a
  // thread per open job), and the splits of one epoch of a job, which is
  // also the most finished splits a restored client may name.
  size_t max_datasets = 1024;
  size_t max_open_jobs = 1024;
  size_t max_splits_per_job = size_t{1} << 18;
  // The most consumers the saved states of a restored shared job may name,
  // and the most a shared job counts as live (others are not named).
  size_t max_restored_consumers = 1024;
};

SplitProto SplitToProto(const SourceSplit& split);
SourceSplit SplitFromProto(const SplitProto& proto);

struct JobRequest {
  std::string dataset_id;
  std::string job_name;  // empty: a new anonymous job
  ProcessingMode mode = ProcessingMode::kDistributedEpoch;
  int64_t num_consumers = 0;  // 0: reads are not coordinated
  int64_t num_epochs = 1;     // -1: forever
  std::vector<SourceSplit> splits;       // one epoch's (ListSplits)
  std::vector<int64_t> finished_splits;  // splits a restored client already holds
  // A restored consumer of a shared job (job_name set): its saved state;
  // consumer_index is its index in coordinated reads.
  std::optional<RestoredConsumer> restore;
  int64_t consumer_index = 0;
  std::string consumer_uid;  // the reading iterator's, counted live in a named job
  JobSeeds seeds;            // a new job's randomness
};

// A split as handed to a worker.
struct SplitAssignment {
  int64_t split_id = 0;
  SourceSplit split;
  uint64_t first_index = 0;  // the elements before it are held (a restored shared job)
};

class DispatcherState {
 public:
  using Updates = std::vector<StateUpdate>;

  explicit DispatcherState(DispatcherStateOptions options = {}) : options_(options) {}

  // Applies one update (a new one, or a journaled one on replay). An update
  // that contradicts the state (an unknown job, a second dataset under one
  // id) is a DataLoss error: the journal does not belong to this state.
  Status Apply(const StateUpdate& update, Clock::time_point now);

  // The dataset id of `pipeline`, registering it when new
  // (ResourceExhausted at max_datasets).
  Result<std::string> RegisterDataset(const spec::Pipeline& pipeline, Updates* updates, Clock::time_point now);
  bool HasDataset(const std::string& dataset_id) const { return datasets_.count(dataset_id) > 0; }
  // The spec of a registered dataset; NotFound otherwise.
  Result<spec::Pipeline> DatasetSpec(const std::string& dataset_id) const;

  // The job a client reads: the named job when one exists (it must have the
  // same dataset, mode and num_consumers: else InvalidArgument naming what
  // differs), else a new job (ResourceExhausted at max_open_jobs, or with
  // more than max_splits_per_job splits or finished splits; a finished
  // split outside the job is InvalidArgument). With `restore`: the named
  // job restoring from the same saved job, given this consumer's state; a
  // consumer the merged states did not name is refused (FailedPrecondition:
  // it joined after they saved), one they did starts a new restore; else a
  // new restoring job of the name.
  Result<int64_t> GetOrCreateJob(const JobRequest& request, Updates* updates, Clock::time_point now);
  // The named job's id, if any.
  std::optional<int64_t> FindJob(const std::string& job_name) const;

  // A heartbeat from the worker process `worker_uid`, reachable at
  // `address`: registers it on its first. Returns the ids of the jobs not
  // yet finished, which it should work on.
  std::vector<int64_t> WorkerHeartbeat(const std::string& worker_uid, const std::string& address,
                                       Updates* updates, Clock::time_point now);
  // Removes the workers silent for longer than the timeout.
  void ExpireWorkers(Updates* updates, Clock::time_point now);

  // A heartbeat from consumer `consumer_index` of the job (the index
  // matters for coordinated reads only), whose iterator's uid is
  // `consumer_uid` (may be empty; InvalidArgument past
  // kMaxConsumerUidBytes). FailedPrecondition naming it for a consumer that
  // departed; NotFound for an unknown job.
  Status ConsumerHeartbeat(int64_t job_id, int64_t consumer_index, const std::string& consumer_uid,
                           Clock::time_point now);
  // The uids of the job's consumers heard from within the consumer
  // timeout, sorted (what a consumer of a shared job saves with its state).
  std::vector<std::string> LiveConsumers(int64_t job_id, Clock::time_point now) const;
  // Departs the consumers of open coordinated jobs silent for longer than
  // the consumer timeout.
  void ExpireConsumers(Updates* updates, Clock::time_point now);
  // The departed consumers of a job, in index order (empty for an unknown
  // job).
  std::vector<int64_t> DepartedConsumers(int64_t job_id) const;

  // The next split of `job_id` for the worker, or nullopt when none is free
  // now (the others are being processed; a removed worker's may come back).
  // `last_split_run`, when the worker gives it, says which split of the job
  // it started last (-1 for none) and that it holds no other it has not
  // started: an unfinished split assigned to it but not started lost its
  // answer (a call that timed out, a dispatcher restarted after journaling
  // the assignment) and is handed out again; consumers drop the elements
  // they already hold.
  // FailedPrecondition for a worker that is not registered.
  Result<std::optional<SplitAssignment>> GetSplit(int64_t job_id, const std::string& worker_uid,
                                                  std::optional<int64_t> last_split_run, Updates* updates,
                                                  Clock::time_point now);
  // The worker's consumer of the split left before it held the split
  // whole: an unfinished split assigned to the worker goes back to the
  // front of the queue (nothing happens for any other).
  Status ReturnSplit(int64_t job_id, int64_t split_id, const std::string& worker_uid, Updates* updates,
                     Clock::time_point now);
  // A consumer holds every element of the split.
  Status FinishSplit(int64_t job_id, int64_t split_id, int64_t consumer_index, Updates* updates,
                     Clock::time_point now);

  // The updates that rebuild the whole state on an empty one (a journal's
  // snapshot): its datasets, then its workers, then a RestoreJobUpdate per
  // job.
  Updates Snapshot() const;

  // The job's facts a client needs.
  struct JobStatus {
    std::string dataset_id;
    ProcessingMode mode;
    int64_t num_consumers = 0;
    JobSeeds seeds;
    bool finished = false;  // every split of every epoch finished
    // A restored shared job: the consumers whose saved states it still
    // waits for, sorted.
    std::vector<std::string> restoring_consumers;
  };
  Result<JobStatus> GetJobStatus(int64_t job_id) const;
  // Jobs not yet finished.
  size_t NumOpenJobs() const;
  const DispatcherStateOptions& options() const { return options_; }
  // The element-server addresses of the live workers, sorted by uid.
  std::vector<std::pair<std::string, std::string>> Workers() const;  // (uid, address)
  // The splits of a job assigned to a worker and not finished, by split id.
  std::map<int64_t, std::string> AssignedSplits(int64_t job_id) const;
  bool IsSplitFinished(int64_t job_id, int64_t split_id) const;

 private:
  struct Worker {
    std::string address;
    Clock::time_point last_heartbeat;
  };
  struct Job {
    std::string name;
    std::string dataset_id;
    ProcessingMode mode = ProcessingMode::kDistributedEpoch;
    int64_t num_consumers = 0;
    int64_t num_epochs = 1;
    JobSeeds seeds;
    std::vector<SourceSplit> splits;
    int64_t next_split_id = 0;             // the next fresh split handed out
    std::deque<int64_t> requeued;          // splits of removed workers, handed out first
    std::map<int64_t, std::string> assigned;  // split id -> worker uid, unfinished
    // Assigned splits whose worker has said it ran them (GetSplit's
    // last_split_run); not journaled: after a restart, an unfinished split
    // run before is run again, and its consumers drop what they hold.
    std::set<int64_t> run;
    // Finished splits: every id below finished_below, and those in finished
    // (all above it), so that an endless job's record stays small.
    int64_t finished_below = 0;
    std::set<int64_t> finished;
    std::map<int64_t, std::set<int64_t>> consumers_done;  // coordinated: split -> consumers holding it
    std::set<std::string> workers_served;  // parallel_epochs: workers given their copy
    std::set<int64_t> departed;            // coordinated: consumers left out
    std::map<int64_t, Clock::time_point> consumers_seen;  // coordinated: last heard from, not journaled
    std::map<std::string, Clock::time_point> live_consumers;  // by uid: last heard from, not journaled
    // A restored shared job: the saved job it restores, the states given
    // while it waits for them (by uid), and then each partly held split's
    // first index.
    std::optional<int64_t> restore_of;
    bool restore_pending = false;
    std::map<std::string, RestoreConsumerUpdate> restored;
    std::set<std::string> restore_expected;  // the uids the given states name
    std::set<std::string> restored_uids;     // whose states it merged
    std::map<int64_t, uint64_t> first_index;
    bool superseded = false;  // a restore of its name replaced it
  };

  // The caps a new job must stay within (options_).
  Status CheckNewJob(const JobRequest& request) const;
  // A named job read again must have the request's dataset, mode and
  // num_consumers (InvalidArgument naming what differs).
  static Status CheckJobMatches(const Job& job, const JobRequest& request);
  // The update that makes `request`'s job under id `job_id`.
  static StateUpdate NewJobUpdate(const JobRequest& request, int64_t job_id);
  Status ApplyCreateJob(const CreateJobUpdate& update);
  Status ApplyAssignSplit(const AssignSplitUpdate& update);
  Status ApplyFinishSplit(const FinishSplitUpdate& update, Clock::time_point now);
  Status ApplyConsumerLeft(const ConsumerLeftUpdate& update);
  // Whether every consumer not departed is in `done`.
  static bool EveryConsumerHolds(const Job& job, const std::set<int64_t>& done);
  // Marks a split finished: no longer assigned or queued.
  static void FinishWholeSplit(Job& job, int64_t split_id);
  // Coordinated reads: finishes the splits every consumer not departed holds.
  static void FinishSplitsEveryConsumerHolds(Job& job);
  Status ApplyReturnSplit(const ReturnSplitUpdate& update);
  Status ApplyRestoreJob(const RestoreJobUpdate& update);
  // shared_job_restore.cc: a restored consumer of a shared job.
  Result<int64_t> RestoreSharedJob(const JobRequest& request, Updates* updates, Clock::time_point now);
  Status CheckRestoredConsumer(const JobRequest& request, const Job* job) const;
  Status ApplyRestoreConsumer(const RestoreConsumerUpdate& update);
  // The consumers the given states name that have given none yet.
  static std::vector<std::string> MissingRestoredConsumers(const Job& job);
  // Every state is given: merges them into the job, which starts.
  static void MergeRestoredConsumers(Job& job);
  // InvalidArgument for a uid past kMaxConsumerUidBytes.
  static Status CheckConsumerUid(const std::string& uid);
  // A named job's consumer `uid` (not empty) is heard from now: counted
  // live, up to max_restored_consumers live ones.
  void NoteLiveConsumer(Job& job, const std::string& uid, Clock::time_point now) const;
  // Split ids of `request`'s job must lie in [0, epochs * splits).
  static Status CheckSplitIds(const JobRequest& request, const std::vector<int64_t>& ids, std::string_view what);
  // Applies `update` and records it in `updates`.
  Status Commit(StateUpdate update, Updates* updates, Clock::time_point now);
  bool IsJobFinished(const Job& job) const;
  // The split for id `split_id` of `job`.
  SourceSplit SplitOf(const Job& job, int64_t split_id) const;
  static uint64_t FirstIndex(const Job& job, int64_t split_id) {
    auto it = job.first_index.find(split_id);
    return it == job.first_index.end() ? 0 : it->second;
  }
  static bool IsFinished(const Job& job, int64_t split_id) {
    return split_id < job.finished_below || job.finished.count(split_id) > 0;
  }
  static void MarkFinished(Job& job, int64_t split_id);
  // Whether fresh split ids remain to be handed out.
  static bool FreshSplitsLeft(const Job& job);

  const DispatcherStateOptions options_;
  std::map<std::string, std::string> datasets_;  // id -> binary spec
  std::map<int64_t, Job> jobs_;
  std::map<std::string, int64_t> job_names_;
  std::map<std::string, Worker> workers_;  // by uid
  int64_t next_job_id_ = 0;
};

}  // namespace sluice::service
