// Dispatcher: the data service's coordinator. It registers datasets (pipeline
// specs, by fingerprint), makes jobs, tracks workers by their heartbeats,
// hands out splits (service/dispatcher_state.h) and tells clients which
// workers to read. With a work directory it journals every change before it
// answers (service/journal.h) and a restart replays the journal: jobs, split
// assignments and finished splits carry on, none lost or repeated.
//
// Requests are handled on the server's io thread, one at a time under the
// state's lock, except the two that may read the file system (registering a
// dataset builds its spec; a new job lists a list_files source's files, a
// glob): those run on a planner thread of their own, so that a slow listing
// holds up no heartbeat and no split handout.
//
// Journaling is a group commit: a request's changes are appended to the
// journal, and its answer waits until a syncer thread has made durable
// every change appended before the answer was made (its own and those it
// may have seen), while the io thread goes on with other requests, whose
// changes the next fsync covers together.
//
// What clients can make it hold is capped (DispatcherLimits), in total and
// per connection, each refused past its cap with ResourceExhausted naming
// it.
// Thread safety: Stop, port and address from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <utility>  // before Asio

#include <boost/asio/thread_pool.hpp>

#include "sluice/service/async_signal.h"
#include "sluice/service/dispatcher_state.h"
#include "sluice/service/journal.h"
#include "sluice/service/path_roots.h"
#include "sluice/service/server.h"

namespace sluice::service {

struct DispatcherLimits {
  // In total: datasets registered, jobs not yet finished, and the splits of
  // one epoch of a job (also the most finished splits a restored client may
  // name, and the most shards a static_sharding job may ask for).
  size_t max_datasets = 1024;
  size_t max_open_jobs = 1024;
  size_t max_splits_per_job = size_t{1} << 18;
  // Per client connection: datasets it registered, and jobs it made that
  // are not yet finished.
  size_t max_datasets_per_connection = 64;
  size_t max_open_jobs_per_connection = 64;
};

struct DispatcherOptions {
  std::string host = "127.0.0.1";  // a non-loopback address needs a token
  uint16_t port = 0;               // 0: any free port
  // Where the journal lives; empty: none (a restart forgets everything).
  std::string work_dir;
  // The journal is compacted into a snapshot of the state once its updates
  // since the last one pass this many bytes (service/journal.h).
  int64_t journal_compaction_bytes = int64_t{16} << 20;
  std::optional<std::string> token;
  // The roots a spec's files must lie under (service/path_roots.h).
  std::vector<std::string> allow_roots = {"."};
  // A worker silent for longer loses its splits.
  std::chrono::milliseconds worker_timeout{1500};
  // A consumer of a coordinated job silent for longer is left out of it.
  std::chrono::milliseconds consumer_timeout{1500};
  SplitOptions splits;
  DispatcherLimits limits;
};

class Dispatcher {
 public:
  static Result<std::unique_ptr<Dispatcher>> Start(DispatcherOptions options);
  ~Dispatcher() { Stop(); }

  // Registers a dataset as a client's GetDatasetInfo does (its paths
  // checked against the roots, the spec built once) and returns its id.
  Result<std::string> RegisterDataset(const spec::Pipeline& pipeline);

  // The workers registered and live now.
  size_t num_workers();

  uint16_t port() const { return server_->port(); }
  std::string address() const { return server_->address(); }
  // Stops serving and joins; returns within 1 s. Idempotent.
  void Stop();

 private:
  struct Registered {
    std::string dataset_id;
    ElementSpec element_spec;
  };
  // What one client connection made: its share of the per-connection caps.
  // Used by one request at a time (a connection's requests are answered in
  // turn).
  struct ConnectionQuota {
    size_t datasets = 0;
    std::set<int64_t> jobs;  // the finished ones are dropped as they are counted
  };
  Dispatcher(DispatcherOptions options, PathRoots roots);
  // `quota`: the requesting connection's, null for RegisterDataset.
  Result<Registered> Register(const spec::Pipeline& pipeline, ConnectionQuota* quota);
  asio::awaitable<void> Serve(std::shared_ptr<Connection> connection);
  // `request` answered on the planner thread.
  asio::awaitable<Result<Frame>> HandleOnPlanner(const Frame& request, ConnectionQuota* quota);
  Result<Frame> Handle(const Frame& request, ConnectionQuota* quota);
  Result<Frame> GetDatasetInfo(const GetDatasetInfoRequest& request, ConnectionQuota* quota);
  Result<Frame> GetOrCreateJob(const GetOrCreateJobRequest& request, ConnectionQuota* quota);
  // Open jobs in `quota`, the finished ones dropped. REQUIRES: mu_ held.
  size_t OpenJobs(ConnectionQuota* quota) const;
  Result<Frame> WorkerHeartbeat(const WorkerHeartbeatRequest& request);
  Result<Frame> GetSplit(const GetSplitRequest& request);
  Result<Frame> ClientHeartbeat(const ClientHeartbeatRequest& request);
  Result<Frame> ReturnSplits(const ReturnSplitsRequest& request);
  // Appends `updates` to the journal, for the syncer to make durable.
  // REQUIRES: mu_ held.
  Status Persist(const DispatcherState::Updates& updates);
  // Waits until every update appended so far is durable; the sync's error
  // when it failed. On the io thread.
  asio::awaitable<Status> AwaitDurable();
  // What a wait for the first `wanted` updates to be durable ends with: OK
  // once they are, the failure of the sync that tried them, Cancelled when
  // the dispatcher stops; nullopt while it goes on. REQUIRES: mu_ held.
  std::optional<Status> DurableOutcome(uint64_t wanted) const;
  // Makes appended updates durable, many requests' at once, and compacts.
  void SyncLoop();
  // Compacts the journal past journal_compaction_bytes; a failure is
  // logged (the journal stays whole). REQUIRES: mu_ held, journal synced.
  void CompactJournalIfLarge();
  void ExpireLoop();

  const DispatcherOptions options_;
  const PathRoots roots_;
  std::mutex mu_;
  DispatcherState state_;            // GUARDED_BY(mu_)
  std::unique_ptr<Journal> journal_;  // GUARDED_BY(mu_); null without a work dir
  bool stopping_ = false;             // GUARDED_BY(mu_)
  std::condition_variable stop_cv_;
  std::thread expirer_;
  // The group commit: appended updates wait for the syncer, which tells
  // the io thread's waiters (durable_changed_) and other threads'
  // (durable_cv_) when they are durable (journal_->synced()).
  std::condition_variable sync_wanted_;
  std::condition_variable durable_cv_;
  // The last failed sync: updates up to `failed_upto` were not made
  // durable then (a later sync may make them so).
  Status sync_failure_;                   // GUARDED_BY(mu_)
  uint64_t failed_upto_ = 0;              // GUARDED_BY(mu_)
  AsyncSignal durable_changed_;           // io thread only
  std::thread syncer_;
  // Joined before the server stops: work on it refers to the frame of the
  // coroutine that awaits it.
  asio::thread_pool planner_{1};
  std::unique_ptr<Server> server_;
};

}  // namespace sluice::service
