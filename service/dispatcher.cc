#include "sluice/service/dispatcher.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "sluice/core/logging.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/service/rpc_channel.h"
#include "sluice/service/split_provider.h"

namespace sluice::service {
namespace {

using std::chrono::milliseconds;

void ElementSpecToProto(const ElementSpec& spec, GetDatasetInfoResponse* out) {
  for (const ComponentSpec& component : spec.components()) {
    ComponentSpecProto* proto = out->add_element_spec();
    proto->set_name(component.name);
    proto->set_dtype(std::string(DTypeName(component.dtype)));
    proto->set_unknown_rank(!component.shape.known_rank());
    for (int64_t dim : component.shape.dims()) proto->add_dims(dim);
  }
}

}  // namespace

Dispatcher::Dispatcher(DispatcherOptions options, PathRoots roots)
    : options_(std::move(options)),
      roots_(std::move(roots)),
      state_({.worker_timeout = options_.worker_timeout,
              .consumer_timeout = options_.consumer_timeout,
              .max_datasets = options_.limits.max_datasets,
              .max_open_jobs = options_.limits.max_open_jobs,
              .max_splits_per_job = options_.limits.max_splits_per_job}) {}

Result<std::unique_ptr<Dispatcher>> Dispatcher::Start(DispatcherOptions options) {
  SLUICE_ASSIGN_OR_RETURN(PathRoots roots, PathRoots::Make(options.allow_roots));
  std::unique_ptr<Dispatcher> dispatcher(new Dispatcher(options, std::move(roots)));
  if (!options.work_dir.empty()) {
    std::vector<StateUpdate> replayed;
    SLUICE_ASSIGN_OR_RETURN(dispatcher->journal_, Journal::Open(options.work_dir, &replayed));
    const Clock::time_point now = Clock::now();
    for (size_t i = 0; i < replayed.size(); ++i) {
      SLUICE_RETURN_IF_ERROR(dispatcher->state_.Apply(replayed[i], now).WithContext(
          StrCat("replaying update ", i, " of the journal in ", options.work_dir)));
    }
    if (!replayed.empty()) {
      SLUICE_LOG(INFO) << "dispatcher: replayed " << replayed.size() << " state updates from " << options.work_dir;
    }
    dispatcher->CompactJournalIfLarge();
  }
  Dispatcher* self = dispatcher.get();
  SLUICE_ASSIGN_OR_RETURN(
      dispatcher->server_,
      Server::Start({.host = options.host, .port = options.port, .token = options.token, .role = ROLE_DISPATCHER,
                     .name = "dispatcher"},
                    [self](std::shared_ptr<Connection> connection) { return self->Serve(std::move(connection)); }));
  dispatcher->expirer_ = std::thread([self] { self->ExpireLoop(); });
  if (dispatcher->journal_ != nullptr) dispatcher->syncer_ = std::thread([self] { self->SyncLoop(); });
  return dispatcher;
}

void Dispatcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  stop_cv_.notify_all();
  sync_wanted_.notify_all();
  durable_cv_.notify_all();
  if (expirer_.joinable()) expirer_.join();
  // The listing in progress, if any, ends first; queued ones never start.
  planner_.stop();
  planner_.join();
  if (server_ != nullptr) server_->Stop();
  // After the server: no request waits for it any more.
  if (syncer_.joinable()) syncer_.join();
}

void Dispatcher::ExpireLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_cv_.wait_for(lock, milliseconds(100), [this] { return stopping_; })) {
    DispatcherState::Updates updates;
    state_.ExpireWorkers(&updates, Clock::now());
    state_.ExpireConsumers(&updates, Clock::now());
    for (const StateUpdate& update : updates) {
      if (update.has_remove_worker()) {
        SLUICE_LOG(WARNING) << "dispatcher: worker " << update.remove_worker().worker_uid()
                            << " missed its heartbeats for " << options_.worker_timeout.count()
                            << " ms; its unfinished splits go to the others";
      } else {
        SLUICE_LOG(WARNING) << "dispatcher: consumer " << update.consumer_left().consumer_index() << " of job "
                            << update.consumer_left().job_id() << " missed its heartbeats for "
                            << options_.consumer_timeout.count()
                            << " ms; the other consumers read on without its share";
      }
    }
    const Status status = Persist(updates);
    if (!status.ok()) SLUICE_LOG(ERROR) << "dispatcher: " << status.message();
  }
}

asio::awaitable<Result<Frame>> Dispatcher::HandleOnPlanner(const Frame& request, ConnectionQuota* quota) {
  std::optional<Result<Frame>> answer;
  co_await asio::co_spawn(
      planner_,
      [&]() -> asio::awaitable<void> {
        answer.emplace(Handle(request, quota));
        co_return;
      },
      asio::use_awaitable);
  co_return std::move(*answer);
}

asio::awaitable<void> Dispatcher::Serve(std::shared_ptr<Connection> connection) {
  ConnectionQuota quota;
  for (;;) {
    Result<ReceivedFrame> request = co_await connection->Receive(Clock::now() + std::chrono::hours(24));
    if (!request.ok()) co_return;  // the peer left, or the server stops
    const Frame::KindCase kind = request->frame.kind_case();
    // Not a conditional expression: g++ 12 miscompiles a co_await in one.
    std::optional<Result<Frame>> answer;
    if (kind == Frame::kGetDatasetInfoRequest || kind == Frame::kGetOrCreateJobRequest) {
      answer.emplace(co_await HandleOnPlanner(request->frame, &quota));
    } else {
      answer.emplace(Handle(request->frame, &quota));
    }
    // The answer goes once every change made before it is durable: its
    // request's, and those of others it may reflect.
    const Status durable = co_await AwaitDurable();
    if (!durable.ok()) answer.emplace(durable);
    Frame frame = answer->ok() ? **std::move(answer) : ErrorFrame(answer->status(), request->frame.call_id());
    frame.set_call_id(request->frame.call_id());
    if (!(co_await connection->Send(std::move(frame))).ok()) co_return;
  }
}

Status Dispatcher::Persist(const DispatcherState::Updates& updates) {
  if (journal_ == nullptr || updates.empty()) return OkStatus();
  for (const StateUpdate& update : updates) SLUICE_RETURN_IF_ERROR(journal_->Append(update));
  sync_wanted_.notify_one();
  return OkStatus();
}

asio::awaitable<Status> Dispatcher::AwaitDurable() {
  // How long a waiter sleeps between looks, should a notification be missed.
  constexpr milliseconds kRecheck{100};
  std::optional<uint64_t> wanted;
  for (;;) {
    std::optional<Status> outcome;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (journal_ == nullptr) co_return OkStatus();
      if (!wanted.has_value()) wanted = journal_->appended();
      outcome = DurableOutcome(*wanted);
    }
    if (outcome.has_value()) co_return *std::move(outcome);
    co_await durable_changed_.Wait(Clock::now() + kRecheck);
  }
}

std::optional<Status> Dispatcher::DurableOutcome(uint64_t wanted) const {
  if (journal_->synced() >= wanted) return OkStatus();
  if (!sync_failure_.ok() && failed_upto_ >= wanted) return sync_failure_;
  if (stopping_) return CancelledError("the dispatcher stops");
  return std::nullopt;
}

void Dispatcher::SyncLoop() {
  // How long the syncer waits before it tries again after a failure.
  constexpr milliseconds kRetryAfter{100};
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (journal_->appended() == journal_->synced()) {
      sync_wanted_.wait(lock);
      continue;
    }
    const uint64_t attempted = journal_->appended();
    Result<uint64_t> written = journal_->Write();
    Status status = written.status();
    if (status.ok()) {
      // The fsync, the slow part, runs unlocked: requests go on meanwhile,
      // and the next fsync covers what they append.
      lock.unlock();
      status = journal_->Fsync();
      lock.lock();
    }
    if (status.ok()) {
      journal_->MarkSynced(*written);
      if (journal_->synced() == journal_->appended()) CompactJournalIfLarge();
    } else {
      SLUICE_LOG(ERROR) << "dispatcher: " << status.message();
      sync_failure_ = status;
      failed_upto_ = attempted;
    }
    durable_cv_.notify_all();
    asio::post(server_->io().context(), [this] { durable_changed_.NotifyAll(); });
    if (!status.ok()) sync_wanted_.wait_for(lock, kRetryAfter, [this] { return stopping_; });
  }
}

void Dispatcher::CompactJournalIfLarge() {
  if (journal_->bytes_since_snapshot() < options_.journal_compaction_bytes) return;
  const Status status = journal_->Compact(state_.Snapshot());
  if (!status.ok()) SLUICE_LOG(ERROR) << "dispatcher: compacting the journal: " << status.message();
}

Result<Frame> Dispatcher::Handle(const Frame& request, ConnectionQuota* quota) {
  switch (request.kind_case()) {
    case Frame::kGetDatasetInfoRequest: return GetDatasetInfo(request.get_dataset_info_request(), quota);
    case Frame::kGetOrCreateJobRequest: return GetOrCreateJob(request.get_or_create_job_request(), quota);
    case Frame::kWorkerHeartbeatRequest: return WorkerHeartbeat(request.worker_heartbeat_request());
    case Frame::kGetSplitRequest: return GetSplit(request.get_split_request());
    case Frame::kClientHeartbeatRequest: return ClientHeartbeat(request.client_heartbeat_request());
    case Frame::kReturnSplitsRequest: return ReturnSplits(request.return_splits_request());
    default: return InvalidArgumentError("the dispatcher does not answer frames of kind ", request.kind_case());
  }
}

Result<Frame> Dispatcher::GetDatasetInfo(const GetDatasetInfoRequest& request, ConnectionQuota* quota) {
  spec::Pipeline pipeline;
  if (request.dataset_id().empty()) {
    SLUICE_ASSIGN_OR_RETURN(pipeline, ParseSpecBinary(request.spec()));
  } else {
    std::lock_guard<std::mutex> lock(mu_);
    SLUICE_ASSIGN_OR_RETURN(pipeline, state_.DatasetSpec(request.dataset_id()));
  }
  SLUICE_ASSIGN_OR_RETURN(Registered registered, Register(pipeline, quota));
  Frame answer;
  GetDatasetInfoResponse* info = answer.mutable_get_dataset_info_response();
  ElementSpecToProto(registered.element_spec, info);
  info->set_dataset_id(registered.dataset_id);
  return answer;
}

Result<std::string> Dispatcher::RegisterDataset(const spec::Pipeline& pipeline) {
  SLUICE_ASSIGN_OR_RETURN(Registered registered, Register(pipeline, nullptr));
  // Durable before its id is given out, as a client's registration is.
  std::unique_lock<std::mutex> lock(mu_);
  if (journal_ == nullptr) return registered.dataset_id;
  const uint64_t wanted = journal_->appended();
  std::optional<Status> outcome;
  durable_cv_.wait(lock, [&] { return (outcome = DurableOutcome(wanted)).has_value(); });
  SLUICE_RETURN_IF_ERROR(*outcome);
  return registered.dataset_id;
}

size_t Dispatcher::num_workers() {
  std::lock_guard<std::mutex> lock(mu_);
  return state_.Workers().size();
}

Result<Dispatcher::Registered> Dispatcher::Register(const spec::Pipeline& pipeline, ConnectionQuota* quota) {
  // Paths first: building a list_files source reads directories.
  SLUICE_RETURN_IF_ERROR(roots_.CheckSpec(pipeline));
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset, DatasetFromSpec(pipeline));
  std::lock_guard<std::mutex> lock(mu_);
  const bool known = state_.HasDataset(SpecFingerprint(pipeline));
  if (!known && quota != nullptr && quota->datasets >= options_.limits.max_datasets_per_connection) {
    return ResourceExhaustedError("this connection registered ", quota->datasets,
                                  " datasets, its cap (max_datasets_per_connection ",
                                  options_.limits.max_datasets_per_connection, ")");
  }
  DispatcherState::Updates updates;
  SLUICE_ASSIGN_OR_RETURN(std::string id, state_.RegisterDataset(pipeline, &updates, Clock::now()));
  SLUICE_RETURN_IF_ERROR(Persist(updates));
  if (!known && quota != nullptr) ++quota->datasets;
  return Registered{.dataset_id = std::move(id), .element_spec = dataset->element_spec()};
}

size_t Dispatcher::OpenJobs(ConnectionQuota* quota) const {
  std::erase_if(quota->jobs, [this](int64_t job_id) {
    Result<DispatcherState::JobStatus> job = state_.GetJobStatus(job_id);
    return !job.ok() || job->finished;
  });
  return quota->jobs.size();
}

Result<Frame> Dispatcher::GetOrCreateJob(const GetOrCreateJobRequest& request, ConnectionQuota* quota) {
  SLUICE_ASSIGN_OR_RETURN(ProcessingMode mode, ParseProcessingMode(request.processing_mode()));
  spec::Pipeline pipeline;
  size_t live_workers;
  bool named_job_exists;
  {
    std::lock_guard<std::mutex> lock(mu_);
    SLUICE_ASSIGN_OR_RETURN(pipeline, state_.DatasetSpec(request.dataset_id()));
    live_workers = state_.Workers().size();
    named_job_exists = !request.job_name().empty() && state_.FindJob(request.job_name()).has_value();
    // Checked before the splits are listed, which costs a glob.
    if (!named_job_exists && OpenJobs(quota) >= options_.limits.max_open_jobs_per_connection) {
      return ResourceExhaustedError("this connection made ", quota->jobs.size(),
                                    " jobs that are not finished, its cap (max_open_jobs_per_connection ",
                                    options_.limits.max_open_jobs_per_connection, ")");
    }
  }
  if (request.num_shards() < 0 || static_cast<uint64_t>(request.num_shards()) > options_.limits.max_splits_per_job) {
    return ResourceExhaustedError("num_shards ", request.num_shards(), " is outside [0, ",
                                  options_.limits.max_splits_per_job, "] (max_splits_per_job)");
  }
  JobRequest job{.dataset_id = request.dataset_id(),
                 .job_name = request.job_name(),
                 .mode = mode,
                 .num_consumers = request.num_consumers(),
                 .num_epochs = mode == ProcessingMode::kDistributedEpoch ? EpochCount(pipeline) : 1,
                 .finished_splits = {request.finished_split_ids().begin(), request.finished_split_ids().end()},
                 .restore = request.has_restore() ? std::optional<RestoredConsumer>(request.restore()) : std::nullopt,
                 .consumer_index = request.consumer_index(),
                 .consumer_uid = request.consumer_uid(),
                 .seeds = {.seed = request.seed(), .iteration = request.iteration()}};
  const int64_t num_shards =
      request.num_shards() > 0 ? request.num_shards() : std::max<int64_t>(1, static_cast<int64_t>(live_workers));
  SLUICE_ASSIGN_OR_RETURN(job.splits, ListSplits(pipeline, mode, num_shards, options_.splits,
                                                   options_.limits.max_splits_per_job));
  for (const SourceSplit& split : job.splits) {
    if (split.kind == SourceSplit::Kind::kFile) SLUICE_RETURN_IF_ERROR(roots_.CheckPath(split.file));
  }
  std::lock_guard<std::mutex> lock(mu_);
  DispatcherState::Updates updates;
  SLUICE_ASSIGN_OR_RETURN(int64_t job_id, state_.GetOrCreateJob(job, &updates, Clock::now()));
  SLUICE_RETURN_IF_ERROR(Persist(updates));
  if (!updates.empty()) quota->jobs.insert(job_id);
  Frame answer;
  answer.mutable_get_or_create_job_response()->set_job_id(job_id);
  answer.mutable_get_or_create_job_response()->set_dataset_id(request.dataset_id());
  answer.mutable_get_or_create_job_response()->set_restored(request.has_restore());
  return answer;
}

Result<Frame> Dispatcher::WorkerHeartbeat(const WorkerHeartbeatRequest& request) {
  if (request.worker_uid().empty()) return InvalidArgumentError("a worker heartbeat without a worker_uid");
  std::lock_guard<std::mutex> lock(mu_);
  DispatcherState::Updates updates;
  const std::vector<int64_t> open =
      state_.WorkerHeartbeat(request.worker_uid(), request.address(), &updates, Clock::now());
  SLUICE_RETURN_IF_ERROR(Persist(updates));
  const std::set<int64_t> known(request.known_job_ids().begin(), request.known_job_ids().end());
  Frame answer;
  WorkerHeartbeatResponse* response = answer.mutable_worker_heartbeat_response();
  for (int64_t job_id : open) {
    response->add_open_job_ids(job_id);
    if (known.count(job_id) > 0) continue;
    SLUICE_ASSIGN_OR_RETURN(DispatcherState::JobStatus job, state_.GetJobStatus(job_id));
    SLUICE_ASSIGN_OR_RETURN(spec::Pipeline pipeline, state_.DatasetSpec(job.dataset_id));
    TaskDef* task = response->add_new_tasks();
    task->set_job_id(job_id);
    task->set_spec(pipeline.SerializeAsString());
    task->set_processing_mode(std::string(ProcessingModeName(job.mode)));
    task->set_num_consumers(job.num_consumers);
    task->set_seed(job.seeds.seed);
    task->set_iteration(job.seeds.iteration);
  }
  for (int64_t job_id : open) {
    const std::vector<int64_t> departed = state_.DepartedConsumers(job_id);
    if (departed.empty()) continue;
    DepartedConsumers* consumers = response->add_departed_consumers();
    consumers->set_job_id(job_id);
    for (int64_t consumer : departed) consumers->add_consumer_indices(consumer);
  }
  return answer;
}

Result<Frame> Dispatcher::GetSplit(const GetSplitRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  DispatcherState::Updates updates;
  SLUICE_ASSIGN_OR_RETURN(std::optional<SplitAssignment> split,
                          state_.GetSplit(request.job_id(), request.worker_uid(),
                                          request.has_last_split_run() ? std::optional<int64_t>(request.last_split_run())
                                                                       : std::nullopt,
                                          &updates, Clock::now()));
  SLUICE_RETURN_IF_ERROR(Persist(updates));
  SLUICE_ASSIGN_OR_RETURN(DispatcherState::JobStatus job, state_.GetJobStatus(request.job_id()));
  Frame answer;
  GetSplitResponse* response = answer.mutable_get_split_response();
  response->set_job_finished(job.finished);
  if (split.has_value()) {
    response->set_assigned(true);
    response->set_split_id(split->split_id);
    *response->mutable_split() = SplitToProto(split->split);
    response->set_first_index(split->first_index);
  }
  return answer;
}

Result<Frame> Dispatcher::ClientHeartbeat(const ClientHeartbeatRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  const Clock::time_point now = Clock::now();
  SLUICE_RETURN_IF_ERROR(
      state_.ConsumerHeartbeat(request.job_id(), request.consumer_index(), request.consumer_uid(), now));
  DispatcherState::Updates updates;
  for (int64_t split_id : request.finished_split_ids()) {
    SLUICE_RETURN_IF_ERROR(
        state_.FinishSplit(request.job_id(), split_id, request.consumer_index(), &updates, Clock::now()));
  }
  SLUICE_RETURN_IF_ERROR(Persist(updates));
  SLUICE_ASSIGN_OR_RETURN(DispatcherState::JobStatus job, state_.GetJobStatus(request.job_id()));
  Frame answer;
  ClientHeartbeatResponse* response = answer.mutable_client_heartbeat_response();
  response->set_job_finished(job.finished);
  for (std::string& uid : state_.LiveConsumers(request.job_id(), now)) response->add_consumer_uids(std::move(uid));
  for (std::string& uid : job.restoring_consumers) response->add_restoring_consumer_uids(std::move(uid));
  for (const auto& [uid, address] : state_.Workers()) {
    WorkerAddress* worker = response->add_workers();
    worker->set_uid(uid);
    worker->set_address(address);
  }
  return answer;
}

Result<Frame> Dispatcher::ReturnSplits(const ReturnSplitsRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  DispatcherState::Updates updates;
  for (int64_t split_id : request.split_ids()) {
    SLUICE_RETURN_IF_ERROR(state_.ReturnSplit(request.job_id(), split_id, request.worker_uid(), &updates, Clock::now()));
  }
  if (!updates.empty()) {
    SLUICE_LOG(INFO) << "dispatcher: job " << request.job_id() << ": worker " << request.worker_uid() << " gave back "
                     << updates.size() << " split(s) of a consumer that left; they go to the others";
  }
  SLUICE_RETURN_IF_ERROR(Persist(updates));
  Frame answer;
  answer.mutable_ack();
  return answer;
}

}  // namespace sluice::service
