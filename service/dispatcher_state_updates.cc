// DispatcherState's changes: each StateUpdate applied (as a request makes
// it, and as a restarted dispatcher replays it from the journal), and the
// whole state written back as a few updates (Snapshot).
#include <algorithm>

#include "sluice/service/dispatcher_state.h"

namespace sluice::service {

SplitProto SplitToProto(const SourceSplit& split) {
  SplitProto proto;
  proto.set_kind(static_cast<SplitProto::Kind>(split.kind));
  proto.set_file(split.file);
  proto.set_begin(split.begin);
  proto.set_end(split.end);
  proto.set_shard_index(split.shard_index);
  proto.set_num_shards(split.num_shards);
  return proto;
}

SourceSplit SplitFromProto(const SplitProto& proto) {
  return {.kind = static_cast<SourceSplit::Kind>(proto.kind()),
          .file = proto.file(),
          .begin = proto.begin(),
          .end = proto.end(),
          .shard_index = proto.shard_index(),
          .num_shards = proto.num_shards()};
}

void DispatcherState::MarkFinished(Job& job, int64_t split_id) {
  if (split_id < job.finished_below) return;
  job.finished.insert(split_id);
  while (!job.finished.empty() && *job.finished.begin() == job.finished_below) {
    job.finished.erase(job.finished.begin());
    ++job.finished_below;
  }
}

bool DispatcherState::FreshSplitsLeft(const Job& job) {
  if (job.mode == ProcessingMode::kParallelEpochs) return false;  // handed out per worker
  if (job.num_epochs < 0) return !job.splits.empty();
  const int64_t total = static_cast<int64_t>(job.splits.size()) * job.num_epochs;
  return job.next_split_id < total;
}

bool DispatcherState::IsJobFinished(const Job& job) const {
  if (job.superseded) return true;
  if (job.restore_pending) return false;
  // Coordinated reads with every consumer departed: no one reads on.
  if (job.num_consumers > 0 && static_cast<int64_t>(job.departed.size()) == job.num_consumers) return true;
  if (!job.assigned.empty() || !job.requeued.empty() || FreshSplitsLeft(job)) return false;
  if (job.mode != ProcessingMode::kParallelEpochs) return true;
  // parallel_epochs: every live worker has had its copy.
  if (job.workers_served.empty()) return false;
  return std::all_of(workers_.begin(), workers_.end(),
                     [&](const auto& worker) { return job.workers_served.count(worker.first) > 0; });
}

SourceSplit DispatcherState::SplitOf(const Job& job, int64_t split_id) const {
  if (job.mode == ProcessingMode::kParallelEpochs) return {.kind = SourceSplit::Kind::kWhole};
  return job.splits[static_cast<size_t>(split_id % static_cast<int64_t>(job.splits.size()))];
}

Status DispatcherState::ApplyCreateJob(const CreateJobUpdate& update) {
  if (jobs_.count(update.job_id()) > 0) return DataLossError("job ", update.job_id(), " is created twice");
  if (datasets_.count(update.dataset_id()) == 0) {
    return DataLossError("job ", update.job_id(), " reads dataset ", update.dataset_id(), ", which is not registered");
  }
  SLUICE_ASSIGN_OR_RETURN(ProcessingMode mode, ParseProcessingMode(update.processing_mode()));
  Job job{.name = update.job_name(),
          .dataset_id = update.dataset_id(),
          .mode = mode,
          .num_consumers = update.num_consumers(),
          .num_epochs = update.num_epochs(),
          .seeds = {.seed = update.seed(), .iteration = update.iteration()}};
  for (const SplitProto& split : update.splits()) job.splits.push_back(SplitFromProto(split));
  for (int64_t id : update.finished_split_ids()) MarkFinished(job, id);
  // Fresh ids start past a restored client's run of finished ones.
  job.next_split_id = job.finished_below;
  if (update.has_restore_of()) {
    job.restore_of = update.restore_of();
    job.restore_pending = true;
    if (auto named = job_names_.find(job.name); named != job_names_.end()) jobs_.at(named->second).superseded = true;
  }
  if (!job.name.empty()) job_names_[job.name] = update.job_id();
  next_job_id_ = std::max(next_job_id_, update.job_id() + 1);
  jobs_.emplace(update.job_id(), std::move(job));
  return OkStatus();
}

Status DispatcherState::ApplyAssignSplit(const AssignSplitUpdate& update) {
  auto it = jobs_.find(update.job_id());
  if (it == jobs_.end()) return DataLossError("a split is assigned in job ", update.job_id(), ", which does not exist");
  Job& job = it->second;
  const int64_t id = update.split_id();
  if (job.mode == ProcessingMode::kParallelEpochs) {
    job.workers_served.insert(update.worker_uid());
    job.next_split_id = std::max(job.next_split_id, id + 1);
  } else if (!job.requeued.empty() && job.requeued.front() == id) {
    job.requeued.pop_front();
  } else if (id == job.next_split_id) {
    ++job.next_split_id;
    // Skip fresh ids a restored client already holds.
    while (FreshSplitsLeft(job) && IsFinished(job, job.next_split_id)) ++job.next_split_id;
  } else {
    return DataLossError("split ", id, " of job ", update.job_id(), " is assigned out of turn");
  }
  job.assigned[id] = update.worker_uid();
  return OkStatus();
}

bool DispatcherState::EveryConsumerHolds(const Job& job, const std::set<int64_t>& done) {
  for (int64_t consumer = 0; consumer < job.num_consumers; ++consumer) {
    if (done.count(consumer) == 0 && job.departed.count(consumer) == 0) return false;
  }
  return true;
}

void DispatcherState::FinishSplitsEveryConsumerHolds(Job& job) {
  for (auto done = job.consumers_done.begin(); done != job.consumers_done.end();) {
    if (!EveryConsumerHolds(job, done->second)) {
      ++done;
      continue;
    }
    FinishWholeSplit(job, done->first);
    done = job.consumers_done.erase(done);
  }
}

void DispatcherState::FinishWholeSplit(Job& job, int64_t split_id) {
  MarkFinished(job, split_id);
  job.assigned.erase(split_id);
  job.run.erase(split_id);
  auto requeued = std::find(job.requeued.begin(), job.requeued.end(), split_id);
  if (requeued != job.requeued.end()) job.requeued.erase(requeued);
}

Status DispatcherState::ApplyFinishSplit(const FinishSplitUpdate& update, Clock::time_point now) {
  auto it = jobs_.find(update.job_id());
  if (it == jobs_.end()) return DataLossError("a split is finished in job ", update.job_id(), ", which does not exist");
  Job& job = it->second;
  const int64_t id = update.split_id();
  if (job.num_consumers > 0) {
    job.consumers_seen.emplace(update.consumer_index(), now);
    std::set<int64_t>& done = job.consumers_done[id];
    done.insert(update.consumer_index());
    if (!EveryConsumerHolds(job, done)) return OkStatus();
    job.consumers_done.erase(id);
  }
  FinishWholeSplit(job, id);
  return OkStatus();
}

Status DispatcherState::ApplyConsumerLeft(const ConsumerLeftUpdate& update) {
  auto it = jobs_.find(update.job_id());
  if (it == jobs_.end()) return DataLossError("a consumer leaves job ", update.job_id(), ", which does not exist");
  Job& job = it->second;
  if (update.consumer_index() < 0 || update.consumer_index() >= job.num_consumers) {
    return DataLossError("consumer ", update.consumer_index(), " leaves job ", update.job_id(), ", which has ",
                         job.num_consumers, " consumers");
  }
  job.departed.insert(update.consumer_index());
  job.consumers_seen.erase(update.consumer_index());
  // The splits only it lacked are finished now.
  FinishSplitsEveryConsumerHolds(job);
  return OkStatus();
}

Status DispatcherState::ApplyReturnSplit(const ReturnSplitUpdate& update) {
  auto it = jobs_.find(update.job_id());
  if (it == jobs_.end()) return DataLossError("a split is returned in job ", update.job_id(), ", which does not exist");
  Job& job = it->second;
  auto assigned = job.assigned.find(update.split_id());
  if (assigned == job.assigned.end() || assigned->second != update.worker_uid()) {
    return DataLossError("split ", update.split_id(), " of job ", update.job_id(), " is returned by worker ",
                         update.worker_uid(), ", which does not hold it");
  }
  job.assigned.erase(assigned);
  job.run.erase(update.split_id());
  job.requeued.push_front(update.split_id());
  return OkStatus();
}

Status DispatcherState::ApplyRestoreJob(const RestoreJobUpdate& update) {
  const int64_t job_id = update.job().job_id();
  if (update.job().finished_split_ids_size() > 0) {
    return DataLossError("restored job ", job_id, " names finished splits outside its handout");
  }
  SLUICE_RETURN_IF_ERROR(ApplyCreateJob(update.job()));
  Job& job = jobs_.at(job_id);
  job.next_split_id = update.next_split_id();
  job.requeued.assign(update.requeued().begin(), update.requeued().end());
  for (const RestoreJobUpdate::Assigned& assigned : update.assigned()) {
    if (workers_.count(assigned.worker_uid()) == 0) {
      return DataLossError("split ", assigned.split_id(), " of restored job ", job_id, " is assigned to worker ",
                           assigned.worker_uid(), ", which is not registered");
    }
    job.assigned[assigned.split_id()] = assigned.worker_uid();
  }
  job.finished_below = update.finished_below();
  for (int64_t id : update.finished()) MarkFinished(job, id);
  for (const RestoreJobUpdate::ConsumersDone& done : update.consumers_done()) {
    job.consumers_done[done.split_id()].insert(done.consumer_indices().begin(), done.consumer_indices().end());
  }
  job.workers_served.insert(update.workers_served().begin(), update.workers_served().end());
  for (int64_t consumer : update.departed_consumers()) {
    if (consumer < 0 || consumer >= job.num_consumers) {
      return DataLossError("restored job ", job_id, " names departed consumer ", consumer, " of ", job.num_consumers);
    }
    job.departed.insert(consumer);
  }
  job.restore_pending = update.restore_pending();
  for (const RestoreConsumerUpdate& consumer : update.restored_consumers()) {
    job.restored[consumer.consumer().consumer_uid()] = consumer;
    job.restore_expected.insert(consumer.consumer().consumer_uids().begin(), consumer.consumer().consumer_uids().end());
  }
  for (const SplitPosition& position : update.first_indices()) {
    job.first_index[position.split_id()] = position.num_elements();
  }
  job.superseded = update.superseded();
  job.restored_uids.insert(update.restored_consumer_uids().begin(), update.restored_consumer_uids().end());
  return OkStatus();
}

DispatcherState::Updates DispatcherState::Snapshot() const {
  Updates updates;
  for (const auto& [id, spec] : datasets_) {
    RegisterDatasetUpdate* dataset = updates.emplace_back().mutable_register_dataset();
    dataset->set_dataset_id(id);
    dataset->set_spec(spec);
  }
  for (const auto& [uid, worker] : workers_) {
    RegisterWorkerUpdate* registered = updates.emplace_back().mutable_register_worker();
    registered->set_worker_uid(uid);
    registered->set_address(worker.address);
  }
  for (const auto& [job_id, job] : jobs_) {
    RestoreJobUpdate* restore = updates.emplace_back().mutable_restore_job();
    CreateJobUpdate* created = restore->mutable_job();
    created->set_job_id(job_id);
    created->set_job_name(job.name);
    created->set_dataset_id(job.dataset_id);
    created->set_processing_mode(std::string(ProcessingModeName(job.mode)));
    created->set_num_consumers(job.num_consumers);
    created->set_num_epochs(job.num_epochs);
    created->set_seed(job.seeds.seed);
    created->set_iteration(job.seeds.iteration);
    for (const SourceSplit& split : job.splits) *created->add_splits() = SplitToProto(split);
    restore->set_next_split_id(job.next_split_id);
    for (int64_t id : job.requeued) restore->add_requeued(id);
    for (const auto& [split_id, uid] : job.assigned) {
      RestoreJobUpdate::Assigned* assigned = restore->add_assigned();
      assigned->set_split_id(split_id);
      assigned->set_worker_uid(uid);
    }
    restore->set_finished_below(job.finished_below);
    for (int64_t id : job.finished) restore->add_finished(id);
    for (const auto& [split_id, consumers] : job.consumers_done) {
      RestoreJobUpdate::ConsumersDone* done = restore->add_consumers_done();
      done->set_split_id(split_id);
      for (int64_t consumer : consumers) done->add_consumer_indices(consumer);
    }
    for (const std::string& uid : job.workers_served) restore->add_workers_served(uid);
    for (int64_t consumer : job.departed) restore->add_departed_consumers(consumer);
    if (job.restore_of.has_value()) created->set_restore_of(*job.restore_of);
    restore->set_restore_pending(job.restore_pending);
    for (const auto& [uid, consumer] : job.restored) *restore->add_restored_consumers() = consumer;
    for (const auto& [split_id, first] : job.first_index) {
      SplitPosition* position = restore->add_first_indices();
      position->set_split_id(split_id);
      position->set_num_elements(first);
    }
    restore->set_superseded(job.superseded);
    for (const std::string& uid : job.restored_uids) restore->add_restored_consumer_uids(uid);
  }
  return updates;
}

Status DispatcherState::Apply(const StateUpdate& update, Clock::time_point now) {
  switch (update.update_case()) {
    case StateUpdate::kRegisterDataset: {
      const RegisterDatasetUpdate& dataset = update.register_dataset();
      auto [it, inserted] = datasets_.emplace(dataset.dataset_id(), dataset.spec());
      if (!inserted && it->second != dataset.spec()) {
        return DataLossError("dataset ", dataset.dataset_id(), " is registered twice with different specs");
      }
      return OkStatus();
    }
    case StateUpdate::kCreateJob: return ApplyCreateJob(update.create_job());
    case StateUpdate::kRegisterWorker:
      workers_[update.register_worker().worker_uid()] = {.address = update.register_worker().address(),
                                                          .last_heartbeat = now};
      return OkStatus();
    case StateUpdate::kRemoveWorker: {
      const std::string& uid = update.remove_worker().worker_uid();
      workers_.erase(uid);
      for (auto& [job_id, job] : jobs_) {
        // Its unfinished splits go first to the next worker that asks, in
        // id order (parallel_epochs copies end with the worker).
        std::vector<int64_t> lost;
        for (auto it = job.assigned.begin(); it != job.assigned.end();) {
          if (it->second != uid) {
            ++it;
            continue;
          }
          if (job.mode != ProcessingMode::kParallelEpochs) lost.push_back(it->first);
          job.run.erase(it->first);
          it = job.assigned.erase(it);
        }
        job.requeued.insert(job.requeued.begin(), lost.begin(), lost.end());
      }
      return OkStatus();
    }
    case StateUpdate::kAssignSplit: return ApplyAssignSplit(update.assign_split());
    case StateUpdate::kFinishSplit: return ApplyFinishSplit(update.finish_split(), now);
    case StateUpdate::kConsumerLeft: return ApplyConsumerLeft(update.consumer_left());
    case StateUpdate::kReturnSplit: return ApplyReturnSplit(update.return_split());
    case StateUpdate::kRestoreJob: return ApplyRestoreJob(update.restore_job());
    case StateUpdate::kRestoreConsumer: return ApplyRestoreConsumer(update.restore_consumer());
    case StateUpdate::UPDATE_NOT_SET: break;
  }
  return DataLossError("a state update with nothing set");
}

Status DispatcherState::Commit(StateUpdate update, Updates* updates, Clock::time_point now) {
  SLUICE_RETURN_IF_ERROR(Apply(update, now));
  updates->push_back(std::move(update));
  return OkStatus();
}


}  // namespace sluice::service
