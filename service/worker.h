// Worker: runs the splits of the dispatcher's jobs and streams their
// elements to the jobs' consumers.
//
// It heartbeats to the dispatcher (every heartbeat_interval, and at once
// when a consumer asks for a job it does not know; the first registers it),
// learns its tasks from the answers, and for each job runs two threads: a
// feeder that asks for splits and makes each ready ahead (builds its
// pipeline, service/split_provider.h, with the worker's CPU and RAM budgets,
// dataset/runtime.h, and starts it), and one that runs them, putting their
// elements, tagged (split id, index in
// split), into the job's TaskBuffer. Consumers connect to its element
// server and send a ReadJobRequest; each such session sends what the
// buffer gives it as element frames under the consumer's credit, a
// SplitEnd after each split and an end-of-stream element once the job is
// finished. A session whose consumer leaves gives its splits back to the
// dispatcher, which hands the unfinished ones to the job's other consumers
// (the buffer drops the rest of a split it sent part of). A job's task is
// let go once the job is finished and no session reads it: a consumer that
// asks for it later is sent the end of the stream at once (for the latest
// kMaxRetiredJobs such jobs). Every spec, and
// every file split, is checked against the allowed roots
// (service/path_roots.h) before anything is opened.
// Thread safety: Stop, port and address from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "sluice/dataset/runtime.h"
#include "sluice/service/path_roots.h"
#include "sluice/service/rpc_channel.h"
#include "sluice/service/server.h"
#include "sluice/service/task_buffer.h"

namespace sluice::service {

struct WorkerOptions {
  std::string dispatcher_address;  // host:port
  std::string host = "127.0.0.1";  // the element server's bind address
  uint16_t port = 0;               // 0: any free port
  // The host consumers dial to reach this worker; empty: `host`.
  std::string advertised_host;
  std::optional<std::string> token;
  std::vector<std::string> allow_roots = {"."};
  std::chrono::milliseconds heartbeat_interval{250};
  // The budgets of the split pipelines (0: the defaults of dataset/runtime.h).
  RuntimeOptions runtime;
  // Elements buffered per job ahead of its consumers.
  uint64_t buffer_bytes = uint64_t{64} << 20;
  // How long a write to a consumer may make no progress (its socket not
  // read) before the consumer's session ends. Waiting for a consumer's
  // credit has no limit: one that pauses between reads reads on after.
  std::chrono::milliseconds write_timeout = kDefaultWriteTimeout;
};

class Worker {
 public:
  // Starts the element server and the heartbeats; a dispatcher that is
  // not up yet is retried every heartbeat.
  static Result<std::unique_ptr<Worker>> Start(WorkerOptions options);
  ~Worker();

  uint16_t port() const { return server_->port(); }
  // The address consumers dial.
  std::string address() const;
  const std::string& uid() const { return uid_; }
  // The jobs whose tasks the worker holds: running, refused, or finished
  // while a session still reads them.
  size_t num_tasks();
  // Stops every thread and connection and joins them; returns within 1 s.
  void Stop();

 private:
  struct Task;
  struct Session;
  Worker(WorkerOptions options, PathRoots roots);
  void HeartbeatLoop();
  Status Heartbeat();
  struct ReadySplit;
  void RunTask(Task* task);
  // Asks for the task's splits and makes them ready, until the job is
  // finished or the worker stops.
  void FeedSplits(Task* task);
  // The dispatcher's answer to a GetSplit for the task, or nullopt when
  // the call failed (logged).
  std::optional<GetSplitResponse> AskForSplit(const Task& task, int64_t last_split_run);
  // Builds the split's pipeline and starts its iterator.
  ReadySplit PrepareSplit(const Task& task, GetSplitResponse assignment);
  // Puts the split's elements, then its end, into the task's buffer.
  Status RunSplit(Task* task, ReadySplit& ready);
  asio::awaitable<void> Serve(std::shared_ptr<Connection> connection);
  void RunSession(Session* session);
  // Gives the dispatcher back the splits a consumer that left was sent.
  void ReturnSplits(int64_t job_id, const std::vector<int64_t>& split_ids);
  // Waits `timeout` or until Stop; false once stopping.
  bool Sleep(std::chrono::milliseconds timeout);
  // Whether Stop has begun, without waiting for mu_: for the loops that
  // look once per element.
  bool Stopping() const { return stopping_.load(std::memory_order_relaxed); }
  // Waits a heartbeat interval, or less when a session wants a job the
  // worker does not know yet; false once stopping.
  bool AwaitNextHeartbeat();
  // Lets go of the tasks of finished jobs that no session reads, and of
  // the sessions that ended. REQUIRES: mu_ held.
  void ReapLocked();

  const WorkerOptions options_;
  const PathRoots roots_;
  const std::string uid_;
  // Mixed into each parallel_epochs job's seed, so that what its spec
  // leaves to the job's seed differs from worker to worker.
  const uint64_t own_seed_;
  std::shared_ptr<Runtime> runtime_;
  IoThread rpc_io_;
  std::unique_ptr<RpcChannel> dispatcher_;
  // Before the sessions: their connections belong to its io thread.
  std::unique_ptr<Server> server_;

  std::mutex mu_;
  std::condition_variable stop_cv_;
  std::atomic<bool> stopping_{false};              // written under mu_
  bool heartbeat_wanted_ = false;                  // GUARDED_BY(mu_)
  std::map<int64_t, std::unique_ptr<Task>> tasks_;  // GUARDED_BY(mu_)
  std::list<std::unique_ptr<Session>> sessions_;   // GUARDED_BY(mu_)
  std::set<int64_t> retired_jobs_;                  // GUARDED_BY(mu_): the latest kMaxRetiredJobs let go
  uint64_t next_session_ = 1;                      // GUARDED_BY(mu_)
  std::thread heartbeats_;
};

}  // namespace sluice::service
