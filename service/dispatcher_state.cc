// DispatcherState's requests (service/dispatcher_state.h): each checks
// what it is asked and commits the updates it makes, which
// service/dispatcher_state_updates.cc applies.
#include "sluice/service/dispatcher_state.h"

#include <algorithm>

#include "sluice/core/logging.h"
#include "sluice/service/protocol.h"

namespace sluice::service {

Result<std::string> DispatcherState::RegisterDataset(const spec::Pipeline& pipeline, Updates* updates,
                                                     Clock::time_point now) {
  const std::string id = SpecFingerprint(pipeline);
  std::string bytes = DeterministicSpecBytes(pipeline);
  auto it = datasets_.find(id);
  if (it != datasets_.end()) {
    if (it->second != bytes) return InternalError("two different specs have the fingerprint ", id);
    return id;
  }
  if (datasets_.size() >= options_.max_datasets) {
    return ResourceExhaustedError("the dispatcher holds ", datasets_.size(), " datasets, its cap (max_datasets ",
                                  options_.max_datasets, "): read a registered one by id");
  }
  StateUpdate update;
  update.mutable_register_dataset()->set_dataset_id(id);
  update.mutable_register_dataset()->set_spec(std::move(bytes));
  SLUICE_RETURN_IF_ERROR(Commit(std::move(update), updates, now));
  return id;
}

Result<spec::Pipeline> DispatcherState::DatasetSpec(const std::string& dataset_id) const {
  auto it = datasets_.find(dataset_id);
  if (it == datasets_.end()) return NotFoundError("no dataset is registered with id '", dataset_id, "'");
  spec::Pipeline pipeline;
  if (!pipeline.ParseFromString(it->second)) return DataLossError("dataset ", dataset_id, "'s spec does not parse");
  return pipeline;
}

std::optional<int64_t> DispatcherState::FindJob(const std::string& job_name) const {
  auto it = job_names_.find(job_name);
  if (it == job_names_.end()) return std::nullopt;
  return it->second;
}

Result<int64_t> DispatcherState::GetOrCreateJob(const JobRequest& request, Updates* updates, Clock::time_point now) {
  if (datasets_.count(request.dataset_id) == 0) {
    return NotFoundError("no dataset is registered with id '", request.dataset_id, "'");
  }
  if (request.num_consumers < 0 || request.num_consumers > kMaxConsumersPerJob) {
    return InvalidArgumentError("num_consumers must be in [0, ", kMaxConsumersPerJob,
                                "] (0: uncoordinated reads), got ", request.num_consumers);
  }
  SLUICE_RETURN_IF_ERROR(CheckConsumerUid(request.consumer_uid));
  if (request.restore.has_value()) return RestoreSharedJob(request, updates, now);
  if (!request.job_name.empty()) {
    if (std::optional<int64_t> id = FindJob(request.job_name)) {
      Job& job = jobs_.at(*id);
      SLUICE_RETURN_IF_ERROR(CheckJobMatches(job, request));
      NoteLiveConsumer(job, request.consumer_uid, now);
      return *id;
    }
  }
  SLUICE_RETURN_IF_ERROR(CheckNewJob(request));
  const int64_t id = next_job_id_;
  SLUICE_RETURN_IF_ERROR(Commit(NewJobUpdate(request, id), updates, now));
  NoteLiveConsumer(jobs_.at(id), request.consumer_uid, now);
  return id;
}

Status DispatcherState::CheckConsumerUid(const std::string& uid) {
  if (uid.size() > kMaxConsumerUidBytes) {
    return InvalidArgumentError("a consumer uid of ", uid.size(), " bytes, past the ", kMaxConsumerUidBytes,
                                " a uid may have");
  }
  return OkStatus();
}

void DispatcherState::NoteLiveConsumer(Job& job, const std::string& uid, Clock::time_point now) const {
  if (uid.empty() || job.name.empty()) return;
  auto seen = job.live_consumers.find(uid);
  if (seen != job.live_consumers.end()) {
    seen->second = now;
    return;
  }
  std::erase_if(job.live_consumers,
                [&](const auto& consumer) { return now - consumer.second > options_.consumer_timeout; });
  if (job.live_consumers.size() < options_.max_restored_consumers) job.live_consumers.emplace(uid, now);
}

Status DispatcherState::CheckJobMatches(const Job& job, const JobRequest& request) {
  if (job.dataset_id != request.dataset_id) {
    return InvalidArgumentError("job '", request.job_name, "' reads dataset ", job.dataset_id, ", not ",
                                request.dataset_id);
  }
  if (job.mode != request.mode) {
    return InvalidArgumentError("job '", request.job_name, "' runs in ", ProcessingModeName(job.mode), " mode, not ",
                                ProcessingModeName(request.mode));
  }
  if (job.num_consumers != request.num_consumers) {
    return InvalidArgumentError("job '", request.job_name, "' has num_consumers ", job.num_consumers, ", not ",
                                request.num_consumers);
  }
  return OkStatus();
}

StateUpdate DispatcherState::NewJobUpdate(const JobRequest& request, int64_t job_id) {
  StateUpdate update;
  CreateJobUpdate* job = update.mutable_create_job();
  job->set_job_id(job_id);
  job->set_job_name(request.job_name);
  job->set_dataset_id(request.dataset_id);
  job->set_processing_mode(std::string(ProcessingModeName(request.mode)));
  job->set_num_consumers(request.num_consumers);
  job->set_num_epochs(request.mode == ProcessingMode::kDistributedEpoch ? request.num_epochs : 1);
  job->set_seed(request.seeds.seed);
  job->set_iteration(request.seeds.iteration);
  for (const SourceSplit& split : request.splits) *job->add_splits() = SplitToProto(split);
  for (int64_t finished : request.finished_splits) job->add_finished_split_ids(finished);
  return update;
}

Status DispatcherState::CheckNewJob(const JobRequest& request) const {
  if (const size_t open = NumOpenJobs(); open >= options_.max_open_jobs) {
    return ResourceExhaustedError("the dispatcher runs ", open, " unfinished jobs, its cap (max_open_jobs ",
                                  options_.max_open_jobs, "): a new job waits until one finishes");
  }
  if (request.splits.size() > options_.max_splits_per_job) {
    return ResourceExhaustedError("the job has ", request.splits.size(), " splits per epoch, past the cap (",
                                  "max_splits_per_job ", options_.max_splits_per_job, ")");
  }
  if (request.finished_splits.size() > options_.max_splits_per_job) {
    return ResourceExhaustedError("a restored client names ", request.finished_splits.size(),
                                  " finished splits, past the cap (max_splits_per_job ",
                                  options_.max_splits_per_job, ")");
  }
  return CheckSplitIds(request, request.finished_splits, "finished split");
}

Status DispatcherState::CheckSplitIds(const JobRequest& request, const std::vector<int64_t>& ids,
                                      std::string_view what) {
  const int64_t epochs = request.mode == ProcessingMode::kDistributedEpoch ? request.num_epochs : 1;
  const int64_t per_epoch = static_cast<int64_t>(request.splits.size());
  // Split ids of a finite job lie below epochs * splits (parallel_epochs:
  // one per worker, so no bound but the sign).
  const bool bounded = request.mode != ProcessingMode::kParallelEpochs && epochs >= 0;
  const int64_t total = bounded && per_epoch > 0 && epochs > INT64_MAX / per_epoch ? INT64_MAX : epochs * per_epoch;
  for (int64_t id : ids) {
    if (id < 0 || (bounded && id >= total)) {
      return InvalidArgumentError("a restored client names ", what, " ", id, ", outside the job's splits [0, ",
                                  bounded ? std::to_string(total) : std::string("inf"), ")");
    }
  }
  return OkStatus();
}

size_t DispatcherState::NumOpenJobs() const {
  return static_cast<size_t>(
      std::count_if(jobs_.begin(), jobs_.end(), [this](const auto& job) { return !IsJobFinished(job.second); }));
}

std::vector<int64_t> DispatcherState::WorkerHeartbeat(const std::string& worker_uid, const std::string& address,
                                                      Updates* updates, Clock::time_point now) {
  auto it = workers_.find(worker_uid);
  if (it == workers_.end() || it->second.address != address) {
    StateUpdate update;
    update.mutable_register_worker()->set_worker_uid(worker_uid);
    update.mutable_register_worker()->set_address(address);
    const Status status = Commit(std::move(update), updates, now);
    SLUICE_CHECK(status.ok());  // registering or removing a worker cannot fail
  } else {
    it->second.last_heartbeat = now;
  }
  std::vector<int64_t> open;
  for (const auto& [id, job] : jobs_) {
    if (!IsJobFinished(job)) open.push_back(id);
  }
  return open;
}

void DispatcherState::ExpireWorkers(Updates* updates, Clock::time_point now) {
  std::vector<std::string> silent;
  for (const auto& [uid, worker] : workers_) {
    if (now - worker.last_heartbeat > options_.worker_timeout) silent.push_back(uid);
  }
  for (const std::string& uid : silent) {
    StateUpdate update;
    update.mutable_remove_worker()->set_worker_uid(uid);
    const Status status = Commit(std::move(update), updates, now);
    SLUICE_CHECK(status.ok());  // registering or removing a worker cannot fail
  }
}

Status DispatcherState::ConsumerHeartbeat(int64_t job_id, int64_t consumer_index, const std::string& consumer_uid,
                                          Clock::time_point now) {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return NotFoundError("job ", job_id, " does not exist");
  Job& job = it->second;
  SLUICE_RETURN_IF_ERROR(CheckConsumerUid(consumer_uid));
  NoteLiveConsumer(job, consumer_uid, now);
  if (job.num_consumers == 0) return OkStatus();
  if (consumer_index < 0 || consumer_index >= job.num_consumers) {
    return InvalidArgumentError("consumer_index ", consumer_index, " is outside [0, ", job.num_consumers, ")");
  }
  if (job.departed.count(consumer_index) > 0) {
    return FailedPreconditionError("consumer ", consumer_index, " of job ", job_id,
                                   " was left out of its coordinated reads after ", options_.consumer_timeout.count(),
                                   " ms without a heartbeat; the other consumers read on without it");
  }
  job.consumers_seen[consumer_index] = now;
  return OkStatus();
}

void DispatcherState::ExpireConsumers(Updates* updates, Clock::time_point now) {
  std::vector<std::pair<int64_t, int64_t>> silent;  // (job, consumer)
  for (const auto& [job_id, job] : jobs_) {
    if (job.num_consumers == 0 || IsJobFinished(job)) continue;
    for (const auto& [consumer, seen] : job.consumers_seen) {
      if (now - seen > options_.consumer_timeout) silent.emplace_back(job_id, consumer);
    }
  }
  for (const auto& [job_id, consumer] : silent) {
    StateUpdate update;
    update.mutable_consumer_left()->set_job_id(job_id);
    update.mutable_consumer_left()->set_consumer_index(consumer);
    const Status status = Commit(std::move(update), updates, now);
    SLUICE_CHECK(status.ok());  // the job and consumer exist
  }
}

std::vector<std::string> DispatcherState::LiveConsumers(int64_t job_id, Clock::time_point now) const {
  std::vector<std::string> live;
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return live;
  for (const auto& [uid, seen] : it->second.live_consumers) {
    if (now - seen <= options_.consumer_timeout) live.push_back(uid);
  }
  return live;
}

std::vector<int64_t> DispatcherState::DepartedConsumers(int64_t job_id) const {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return {};
  return std::vector<int64_t>(it->second.departed.begin(), it->second.departed.end());
}

Result<std::optional<SplitAssignment>> DispatcherState::GetSplit(int64_t job_id, const std::string& worker_uid,
                                                                 std::optional<int64_t> last_split_run,
                                                                 Updates* updates, Clock::time_point now) {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return NotFoundError("job ", job_id, " does not exist");
  if (workers_.count(worker_uid) == 0) {
    return FailedPreconditionError("worker ", worker_uid, " is not registered (heartbeat first)");
  }
  Job& job = it->second;
  if (job.superseded || job.restore_pending) return std::optional<SplitAssignment>();
  if (last_split_run.has_value() && job.mode != ProcessingMode::kParallelEpochs) {
    auto last = job.assigned.find(*last_split_run);
    if (last != job.assigned.end() && last->second == worker_uid) job.run.insert(*last_split_run);
    for (const auto& [split_id, holder] : job.assigned) {
      if (holder == worker_uid && job.run.count(split_id) == 0) {
        return std::optional<SplitAssignment>(SplitAssignment{
            .split_id = split_id, .split = SplitOf(job, split_id), .first_index = FirstIndex(job, split_id)});
      }
    }
  }
  int64_t id;
  if (job.mode == ProcessingMode::kParallelEpochs) {
    if (job.workers_served.count(worker_uid) > 0) return std::optional<SplitAssignment>();
    id = job.next_split_id;
  } else if (!job.requeued.empty()) {
    id = job.requeued.front();
  } else if (FreshSplitsLeft(job)) {
    id = job.next_split_id;
  } else {
    return std::optional<SplitAssignment>();
  }
  StateUpdate update;
  update.mutable_assign_split()->set_job_id(job_id);
  update.mutable_assign_split()->set_split_id(id);
  update.mutable_assign_split()->set_worker_uid(worker_uid);
  SLUICE_RETURN_IF_ERROR(Commit(std::move(update), updates, now));
  return std::optional<SplitAssignment>(
      SplitAssignment{.split_id = id, .split = SplitOf(job, id), .first_index = FirstIndex(job, id)});
}

Status DispatcherState::FinishSplit(int64_t job_id, int64_t split_id, int64_t consumer_index, Updates* updates,
                                    Clock::time_point now) {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return NotFoundError("job ", job_id, " does not exist");
  const Job& job = it->second;
  if (IsFinished(job, split_id)) return OkStatus();  // a duplicate report
  if (split_id < 0 || split_id >= job.next_split_id) {
    return InvalidArgumentError("split ", split_id, " of job ", job_id, " has not been handed out");
  }
  if (job.num_consumers > 0 && (consumer_index < 0 || consumer_index >= job.num_consumers)) {
    return InvalidArgumentError("consumer_index ", consumer_index, " is outside [0, ", job.num_consumers, ")");
  }
  StateUpdate update;
  update.mutable_finish_split()->set_job_id(job_id);
  update.mutable_finish_split()->set_split_id(split_id);
  update.mutable_finish_split()->set_consumer_index(consumer_index);
  return Commit(std::move(update), updates, now);
}

Status DispatcherState::ReturnSplit(int64_t job_id, int64_t split_id, const std::string& worker_uid,
                                    Updates* updates, Clock::time_point now) {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return NotFoundError("job ", job_id, " does not exist");
  const Job& job = it->second;
  if (job.mode == ProcessingMode::kParallelEpochs) return OkStatus();  // a copy ends with its worker
  auto assigned = job.assigned.find(split_id);
  if (assigned == job.assigned.end() || assigned->second != worker_uid) return OkStatus();
  StateUpdate update;
  update.mutable_return_split()->set_job_id(job_id);
  update.mutable_return_split()->set_split_id(split_id);
  update.mutable_return_split()->set_worker_uid(worker_uid);
  return Commit(std::move(update), updates, now);
}

Result<DispatcherState::JobStatus> DispatcherState::GetJobStatus(int64_t job_id) const {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return NotFoundError("job ", job_id, " does not exist");
  const Job& job = it->second;
  return JobStatus{.dataset_id = job.dataset_id,
                   .mode = job.mode,
                   .num_consumers = job.num_consumers,
                   .seeds = job.seeds,
                   .finished = IsJobFinished(job),
                   .restoring_consumers = job.restore_pending ? MissingRestoredConsumers(job)
                                                              : std::vector<std::string>()};
}

std::vector<std::pair<std::string, std::string>> DispatcherState::Workers() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [uid, worker] : workers_) out.emplace_back(uid, worker.address);
  return out;
}

std::map<int64_t, std::string> DispatcherState::AssignedSplits(int64_t job_id) const {
  auto it = jobs_.find(job_id);
  return it == jobs_.end() ? std::map<int64_t, std::string>() : it->second.assigned;
}

bool DispatcherState::IsSplitFinished(int64_t job_id, int64_t split_id) const {
  auto it = jobs_.find(job_id);
  return it != jobs_.end() && IsFinished(it->second, split_id);
}

}  // namespace sluice::service
