// DispatcherState's restore of a shared job from the saved states of its
// consumers (service/dispatcher_state.h).
#include <algorithm>

#include "sluice/service/dispatcher_state.h"

namespace sluice::service {

Status DispatcherState::CheckRestoredConsumer(const JobRequest& request, const Job* waiting) const {
  const RestoredConsumer& consumer = *request.restore;
  const std::string& name = request.job_name;
  if (name.empty()) return InvalidArgumentError("a restored consumer's state of a shared job comes without its job name");
  if (consumer.consumer_uid().empty()) {
    return InvalidArgumentError("shared job '", name, "': a restored consumer's state has no consumer uid");
  }
  if (static_cast<size_t>(consumer.consumer_uids_size()) > options_.max_restored_consumers) {
    return ResourceExhaustedError("shared job '", name, "': a restored consumer's state names ",
                                  consumer.consumer_uids_size(), " consumers, past the cap (max_restored_consumers ",
                                  options_.max_restored_consumers, ")");
  }
  for (const std::string& uid : consumer.consumer_uids()) {
    SLUICE_RETURN_IF_ERROR(CheckConsumerUid(uid).WithContext(StrCat("shared job '", name, "'")));
  }
  if (std::find(consumer.consumer_uids().begin(), consumer.consumer_uids().end(), consumer.consumer_uid()) ==
      consumer.consumer_uids().end()) {
    return InvalidArgumentError("shared job '", name, "': the restored state of consumer ", consumer.consumer_uid(),
                                " does not name it among the job's consumers");
  }
  const size_t splits = static_cast<size_t>(consumer.finished_split_ids_size() + consumer.partial_splits_size());
  if (splits > options_.max_splits_per_job) {
    return ResourceExhaustedError("shared job '", name, "': a restored consumer's state names ", splits,
                                  " splits, past the cap (max_splits_per_job ", options_.max_splits_per_job, ")");
  }
  SLUICE_RETURN_IF_ERROR(CheckSplitIds(
      request, {consumer.finished_split_ids().begin(), consumer.finished_split_ids().end()}, "finished split"));
  std::vector<int64_t> partial;
  for (const SplitPosition& position : consumer.partial_splits()) partial.push_back(position.split_id());
  SLUICE_RETURN_IF_ERROR(CheckSplitIds(request, partial, "partly read split"));
  if (request.num_consumers > 0 && (request.consumer_index < 0 || request.consumer_index >= request.num_consumers)) {
    return InvalidArgumentError("consumer_index ", request.consumer_index, " is outside [0, ", request.num_consumers,
                                ")");
  }
  if (waiting == nullptr) return OkStatus();
  SLUICE_RETURN_IF_ERROR(CheckJobMatches(*waiting, request));
  for (const auto& [uid, given] : waiting->restored) {
    if (request.num_consumers > 0 && uid != consumer.consumer_uid() &&
        given.consumer_index() == request.consumer_index) {
      return InvalidArgumentError("shared job '", name, "': consumers ", uid, " and ", consumer.consumer_uid(),
                                  " both restore consumer_index ", request.consumer_index);
    }
  }
  return OkStatus();
}

Result<int64_t> DispatcherState::RestoreSharedJob(const JobRequest& request, Updates* updates, Clock::time_point now) {
  const int64_t saved_job = request.restore->saved_job_id();
  const std::string& uid = request.restore->consumer_uid();
  std::optional<int64_t> id = FindJob(request.job_name);
  const Job* waiting = nullptr;
  if (id.has_value()) {
    const Job& job = jobs_.at(*id);
    if (job.restore_of == saved_job && job.restore_pending) waiting = &job;
    if (job.restore_of == saved_job && !job.restore_pending && !job.superseded && job.restored_uids.count(uid) == 0) {
      return FailedPreconditionError(
          "shared job '", request.job_name, "' was restored from the saved states of ", job.restored_uids.size(),
          " consumer(s), and consumer ", uid, "'s is not among them: it joined the job after the first of them saved");
    }
  }
  SLUICE_RETURN_IF_ERROR(CheckRestoredConsumer(request, waiting));
  if (waiting == nullptr) {
    // The first of the saved consumers (or of a new attempt to restore them).
    SLUICE_RETURN_IF_ERROR(CheckNewJob(request));
    id = next_job_id_;
    StateUpdate update = NewJobUpdate(request, *id);
    update.mutable_create_job()->set_restore_of(saved_job);
    SLUICE_RETURN_IF_ERROR(Commit(std::move(update), updates, now));
  }
  StateUpdate update;
  RestoreConsumerUpdate* given = update.mutable_restore_consumer();
  given->set_job_id(*id);
  *given->mutable_consumer() = *request.restore;
  given->set_consumer_index(request.consumer_index);
  SLUICE_RETURN_IF_ERROR(Commit(std::move(update), updates, now));
  NoteLiveConsumer(jobs_.at(*id), uid, now);
  return *id;
}

Status DispatcherState::ApplyRestoreConsumer(const RestoreConsumerUpdate& update) {
  auto it = jobs_.find(update.job_id());
  if (it == jobs_.end()) {
    return DataLossError("a restored consumer joins job ", update.job_id(), ", which does not exist");
  }
  Job& job = it->second;
  if (!job.restore_pending) {
    return DataLossError("a restored consumer joins job ", update.job_id(), ", which waits for none");
  }
  job.restored[update.consumer().consumer_uid()] = update;
  job.restore_expected.insert(update.consumer().consumer_uids().begin(), update.consumer().consumer_uids().end());
  if (MissingRestoredConsumers(job).empty()) MergeRestoredConsumers(job);
  return OkStatus();
}

std::vector<std::string> DispatcherState::MissingRestoredConsumers(const Job& job) {
  std::vector<std::string> missing;
  for (const std::string& named : job.restore_expected) {
    if (job.restored.count(named) == 0) missing.push_back(named);
  }
  return missing;
}

void DispatcherState::MergeRestoredConsumers(Job& job) {
  for (const auto& [uid, given] : job.restored) {
    const RestoredConsumer& consumer = given.consumer();
    if (job.num_consumers > 0) {
      // Coordinated: each consumer drops what it holds of its own share.
      for (int64_t split_id : consumer.finished_split_ids()) {
        job.consumers_done[split_id].insert(given.consumer_index());
      }
      continue;
    }
    for (int64_t split_id : consumer.finished_split_ids()) MarkFinished(job, split_id);
    for (const SplitPosition& position : consumer.partial_splits()) {
      uint64_t& first = job.first_index[position.split_id()];
      first = std::max(first, position.num_elements());
    }
  }
  FinishSplitsEveryConsumerHolds(job);
  std::erase_if(job.first_index, [&](const auto& entry) { return entry.second == 0 || IsFinished(job, entry.first); });
  for (const auto& [uid, given] : job.restored) job.restored_uids.insert(uid);
  job.next_split_id = job.finished_below;
  while (FreshSplitsLeft(job) && IsFinished(job, job.next_split_id)) ++job.next_split_id;
  job.restored.clear();
  job.restore_expected.clear();
  job.restore_pending = false;
}

}  // namespace sluice::service
