// Dispatcher: the data service's coordinator. It registers datasets (pipeline
// specs, by fingerprint), makes jobs, tracks workers by their heartbeats,
// hands out splits (service/dispatcher_state.h) and tells clients which
// workers to read. With a work directory it journals every change before it
// answers (service/journal.h) and a restart replays the journal: jobs, split
// assignments and finished splits carry on, none lost or repeated.
//
// Requests are handled on the server's io thread, one at a time under the
// state's lock; listing a list_files source's files for a new job is done
// there too (a glob, once per job).
// Thread safety: Stop, port and address from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sluice/service/dispatcher_state.h"
#include "sluice/service/journal.h"
#include "sluice/service/path_roots.h"
#include "sluice/service/server.h"

namespace sluice::service {

struct DispatcherOptions {
  std::string host = "127.0.0.1";  // a non-loopback address needs a token
  uint16_t port = 0;               // 0: any free port
  // Where the journal lives; empty: none (a restart forgets everything).
  std::string work_dir;
  std::optional<std::string> token;
  // The roots a spec's files must lie under (service/path_roots.h).
  std::vector<std::string> allow_roots = {"."};
  // A worker silent for longer loses its splits.
  std::chrono::milliseconds worker_timeout{1500};
  SplitOptions splits;
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
  Dispatcher(DispatcherOptions options, PathRoots roots);
  Result<Registered> Register(const spec::Pipeline& pipeline);
  asio::awaitable<void> Serve(std::shared_ptr<Connection> connection);
  Result<Frame> Handle(const Frame& request);
  Result<Frame> GetDatasetInfo(const GetDatasetInfoRequest& request);
  Result<Frame> GetOrCreateJob(const GetOrCreateJobRequest& request);
  Result<Frame> WorkerHeartbeat(const WorkerHeartbeatRequest& request);
  Result<Frame> GetSplit(const GetSplitRequest& request);
  Result<Frame> ClientHeartbeat(const ClientHeartbeatRequest& request);
  Result<Frame> ReturnSplits(const ReturnSplitsRequest& request);
  // Journals `updates` and syncs. REQUIRES: mu_ held.
  Status Persist(const DispatcherState::Updates& updates);
  void ExpireLoop();

  const DispatcherOptions options_;
  const PathRoots roots_;
  std::mutex mu_;
  DispatcherState state_;            // GUARDED_BY(mu_)
  std::unique_ptr<Journal> journal_;  // GUARDED_BY(mu_); null without a work dir
  bool stopping_ = false;             // GUARDED_BY(mu_)
  std::condition_variable stop_cv_;
  std::thread expirer_;
  std::unique_ptr<Server> server_;
};

}  // namespace sluice::service
