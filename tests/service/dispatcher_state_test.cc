#include "sluice/service/dispatcher_state.h"

#include <gtest/gtest.h>

#include <set>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/service/protocol.h"
#include "service/range_values.h"

namespace sluice::service {
namespace {

using std::chrono::milliseconds;

std::vector<SourceSplit> RowSplits(int n) {
  std::vector<SourceSplit> splits;
  for (int i = 0; i < n; ++i) splits.push_back({.kind = SourceSplit::Kind::kRows, .begin = i, .end = i + 1});
  return splits;
}

// A state driven by a fake clock, recording every update it makes, as the
// dispatcher's journal would.
class DispatcherStateTest : public ::testing::Test {
 protected:
  Clock::time_point now_ = Clock::time_point() + std::chrono::hours(1);
  DispatcherState state_;
  DispatcherState::Updates journal_;

  void Advance(milliseconds ms) { now_ += ms; }

  std::string Register(int64_t stop = 4) {
    Result<std::string> id = state_.RegisterDataset(RangeSpec(stop), &journal_, now_);
    EXPECT_TRUE(id.ok()) << id.status();
    return *id;
  }
  int64_t Job(JobRequest request) {
    Result<int64_t> id = state_.GetOrCreateJob(request, &journal_, now_);
    EXPECT_TRUE(id.ok()) << id.status();
    return *id;
  }
  void Heartbeat(const std::string& worker) { state_.WorkerHeartbeat(worker, worker + ":1", &journal_, now_); }
  // The next split id for `worker`, or -1 when none.
  int64_t NextSplit(int64_t job, const std::string& worker) {
    Result<std::optional<SplitAssignment>> split = state_.GetSplit(job, worker, std::nullopt, &journal_, now_);
    EXPECT_TRUE(split.ok()) << split.status();
    return split.ok() && split->has_value() ? (*split)->split_id : -1;
  }
  void Finish(int64_t job, int64_t split, int64_t consumer = 0) {
    ASSERT_TRUE(state_.FinishSplit(job, split, consumer, &journal_, now_).ok());
  }
  bool JobFinished(int64_t job) { return state_.GetJobStatus(job)->finished; }
};

TEST_F(DispatcherStateTest, DatasetsAreRegisteredOncePerSpec) {
  const std::string a = Register(4);
  EXPECT_EQ(Register(4), a);
  EXPECT_NE(Register(5), a);
  EXPECT_EQ(journal_.size(), 2u);
  Result<spec::Pipeline> spec = state_.DatasetSpec(a);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->ops(0).range().stop(), 4);
  EXPECT_EQ(state_.DatasetSpec("nope").status().code(), StatusCode::kNotFound);
}

TEST_F(DispatcherStateTest, EachSplitIsHandedOutOncePerEpoch) {
  const int64_t job = Job({.dataset_id = Register(), .num_epochs = 2, .splits = RowSplits(3)});
  Heartbeat("a");
  Heartbeat("b");
  std::vector<int64_t> handed;
  for (int i = 0; i < 6; ++i) handed.push_back(NextSplit(job, i % 2 == 0 ? "a" : "b"));
  EXPECT_EQ(handed, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(NextSplit(job, "a"), -1);
  EXPECT_FALSE(JobFinished(job));
  for (int64_t id : handed) Finish(job, id);
  EXPECT_TRUE(JobFinished(job));
  EXPECT_TRUE(state_.IsSplitFinished(job, 5));
}

TEST_F(DispatcherStateTest, SplitFourOfThreeSplitsIsTheSecondEpochsSecond) {
  const int64_t job = Job({.dataset_id = Register(), .num_epochs = 2, .splits = RowSplits(3)});
  Heartbeat("a");
  for (int i = 0; i < 4; ++i) NextSplit(job, "a");
  Result<std::optional<SplitAssignment>> split = state_.GetSplit(job, "a", std::nullopt, &journal_, now_);
  ASSERT_TRUE(split.ok() && split->has_value());
  EXPECT_EQ((*split)->split_id, 4);
  EXPECT_EQ((*split)->split.begin, 1);
}

TEST_F(DispatcherStateTest, SplitWhoseAnswerWasLostIsHandedToItsWorkerAgain) {
  const int64_t job = Job({.dataset_id = Register(), .splits = RowSplits(3)});
  Heartbeat("a");
  auto split_for = [&](std::optional<int64_t> last_split_run) {
    Result<std::optional<SplitAssignment>> split = state_.GetSplit(job, "a", last_split_run, &journal_, now_);
    EXPECT_TRUE(split.ok()) << split.status();
    return split.ok() && split->has_value() ? (*split)->split_id : -1;
  };
  EXPECT_EQ(split_for(-1), 0);
  // The answer was lost: the worker, holding nothing, asks again.
  const size_t before = journal_.size();
  EXPECT_EQ(split_for(-1), 0);
  EXPECT_EQ(journal_.size(), before);  // nothing new to journal
  // It ran split 0; its consumer has not reported it finished yet.
  EXPECT_EQ(split_for(0), 1);
  EXPECT_EQ(split_for(1), 2);
  Finish(job, 0);
  Finish(job, 1);
  EXPECT_EQ(split_for(2), -1);
  // A worker that says nothing of what it holds gets no split again.
  EXPECT_EQ(NextSplit(job, "a"), -1);
}

TEST_F(DispatcherStateTest, ReturnedSplitIsHandedOutFirstUnlessFinished) {
  const int64_t job = Job({.dataset_id = Register(), .splits = RowSplits(3)});
  Heartbeat("a");
  EXPECT_EQ(NextSplit(job, "a"), 0);
  EXPECT_EQ(NextSplit(job, "a"), 1);
  Finish(job, 0);
  const size_t before = journal_.size();
  // A finished split, and one the worker does not hold, stay as they are.
  ASSERT_TRUE(state_.ReturnSplit(job, 0, "a", &journal_, now_).ok());
  ASSERT_TRUE(state_.ReturnSplit(job, 1, "b", &journal_, now_).ok());
  EXPECT_EQ(journal_.size(), before);
  ASSERT_TRUE(state_.ReturnSplit(job, 1, "a", &journal_, now_).ok());
  EXPECT_EQ(journal_.size(), before + 1);
  EXPECT_TRUE(state_.AssignedSplits(job).empty());
  EXPECT_EQ(NextSplit(job, "a"), 1);
  EXPECT_EQ(NextSplit(job, "a"), 2);
  // The journal replays to the same handout.
  DispatcherState replayed;
  for (const StateUpdate& update : journal_) ASSERT_TRUE(replayed.Apply(update, now_).ok());
  EXPECT_EQ(replayed.AssignedSplits(job), state_.AssignedSplits(job));
}

TEST_F(DispatcherStateTest, SilentWorkerIsRemovedAndItsSplitsReissued) {
  const int64_t job = Job({.dataset_id = Register(), .splits = RowSplits(4)});
  Heartbeat("a");
  Heartbeat("b");
  EXPECT_EQ(NextSplit(job, "a"), 0);
  EXPECT_EQ(NextSplit(job, "b"), 1);
  EXPECT_EQ(NextSplit(job, "a"), 2);
  Finish(job, 0);
  // b heartbeats, a goes silent for more than the 1.5 s timeout.
  for (int i = 0; i < 7; ++i) {
    Advance(milliseconds(250));
    Heartbeat("b");
    state_.ExpireWorkers(&journal_, now_);
  }
  EXPECT_EQ(state_.Workers().size(), 1u);
  EXPECT_EQ(state_.Workers()[0].first, "b");
  // a's unfinished split 2 comes first, then the fresh split 3.
  EXPECT_EQ(NextSplit(job, "b"), 2);
  EXPECT_EQ(NextSplit(job, "b"), 3);
  EXPECT_EQ(NextSplit(job, "b"), -1);
  EXPECT_EQ(state_.GetSplit(job, "a", std::nullopt, &journal_, now_).status().code(), StatusCode::kFailedPrecondition);
  for (int64_t id : {1, 2, 3}) Finish(job, id);
  EXPECT_TRUE(JobFinished(job));
}

TEST_F(DispatcherStateTest, WorkerWithinTheTimeoutKeepsItsSplits) {
  const int64_t job = Job({.dataset_id = Register(), .splits = RowSplits(2)});
  Heartbeat("a");
  EXPECT_EQ(NextSplit(job, "a"), 0);
  Advance(milliseconds(1400));
  state_.ExpireWorkers(&journal_, now_);
  EXPECT_EQ(state_.AssignedSplits(job).at(0), "a");
  Advance(milliseconds(200));
  state_.ExpireWorkers(&journal_, now_);
  EXPECT_TRUE(state_.AssignedSplits(job).empty());
}

TEST_F(DispatcherStateTest, SplitFinishedByItsConsumerAfterItsWorkerDiedIsNotReissued) {
  const int64_t job = Job({.dataset_id = Register(), .splits = RowSplits(1)});
  Heartbeat("a");
  EXPECT_EQ(NextSplit(job, "a"), 0);
  Advance(milliseconds(2000));
  state_.ExpireWorkers(&journal_, now_);
  Finish(job, 0);  // the consumer had every element before the worker died
  Heartbeat("b");
  EXPECT_EQ(NextSplit(job, "b"), -1);
  EXPECT_TRUE(JobFinished(job));
}

TEST_F(DispatcherStateTest, NamedJobsAreShared) {
  const std::string dataset = Register();
  const int64_t job = Job({.dataset_id = dataset, .job_name = "train", .splits = RowSplits(2)});
  EXPECT_EQ(Job({.dataset_id = dataset, .job_name = "train", .splits = RowSplits(2)}), job);
  EXPECT_NE(Job({.dataset_id = dataset, .splits = RowSplits(2)}), job);  // anonymous: a new job
  Result<int64_t> other_mode = state_.GetOrCreateJob(
      {.dataset_id = dataset, .job_name = "train", .mode = ProcessingMode::kParallelEpochs}, &journal_, now_);
  EXPECT_EQ(other_mode.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(other_mode.status().message().find("distributed_epoch"), std::string::npos);
}

TEST_F(DispatcherStateTest, CoordinatedSplitIsFinishedWhenEveryConsumerHoldsIt) {
  const int64_t job = Job({.dataset_id = Register(), .num_consumers = 2, .splits = RowSplits(1)});
  Heartbeat("a");
  EXPECT_EQ(NextSplit(job, "a"), 0);
  EXPECT_EQ(state_.FinishSplit(job, 0, 2, &journal_, now_).code(), StatusCode::kInvalidArgument);
  Finish(job, 0, /*consumer=*/1);
  EXPECT_FALSE(state_.IsSplitFinished(job, 0));
  Finish(job, 0, /*consumer=*/0);
  EXPECT_TRUE(state_.IsSplitFinished(job, 0));
}

TEST_F(DispatcherStateTest, ParallelEpochsGiveEveryWorkerOneCopy) {
  const int64_t job = Job({.dataset_id = Register(), .mode = ProcessingMode::kParallelEpochs});
  Heartbeat("a");
  Heartbeat("b");
  const int64_t a = NextSplit(job, "a");
  const int64_t b = NextSplit(job, "b");
  EXPECT_NE(a, b);
  EXPECT_EQ(NextSplit(job, "a"), -1);
  Finish(job, a);
  EXPECT_FALSE(JobFinished(job));
  Finish(job, b);
  EXPECT_TRUE(JobFinished(job));
}

TEST_F(DispatcherStateTest, RestoredClientSkipsTheSplitsItHolds) {
  const int64_t job =
      Job({.dataset_id = Register(), .splits = RowSplits(5), .finished_splits = {0, 1, 3}});
  Heartbeat("a");
  EXPECT_EQ(NextSplit(job, "a"), 2);
  EXPECT_EQ(NextSplit(job, "a"), 4);
  EXPECT_EQ(NextSplit(job, "a"), -1);
}

TEST_F(DispatcherStateTest, FinishingAnUnknownSplitIsAnError) {
  const int64_t job = Job({.dataset_id = Register(), .splits = RowSplits(2)});
  EXPECT_EQ(state_.FinishSplit(job, 1, 0, &journal_, now_).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(state_.FinishSplit(job + 1, 0, 0, &journal_, now_).code(), StatusCode::kNotFound);
}

TEST_F(DispatcherStateTest, ReplayingTheUpdatesGivesTheSameState) {
  const int64_t job = Job(
      {.dataset_id = Register(), .num_epochs = 2, .splits = RowSplits(3), .seeds = {.seed = 5, .iteration = 2}});
  Heartbeat("a");
  Heartbeat("b");
  for (int i = 0; i < 4; ++i) NextSplit(job, i % 2 == 0 ? "a" : "b");
  Finish(job, 0);
  Finish(job, 3);
  Advance(milliseconds(2000));
  Heartbeat("b");
  state_.ExpireWorkers(&journal_, now_);  // a's split 2 goes back to the queue

  DispatcherState replayed;
  for (const StateUpdate& update : journal_) ASSERT_TRUE(replayed.Apply(update, now_).ok());
  EXPECT_EQ(replayed.GetJobStatus(job)->seeds.seed, 5u);
  EXPECT_EQ(replayed.GetJobStatus(job)->seeds.iteration, 2u);
  EXPECT_EQ(replayed.Workers(), state_.Workers());
  EXPECT_EQ(replayed.AssignedSplits(job), state_.AssignedSplits(job));
  for (int64_t id = 0; id < 6; ++id) EXPECT_EQ(replayed.IsSplitFinished(job, id), state_.IsSplitFinished(job, id));
  // Both hand out the same splits next.
  DispatcherState::Updates ignored;
  for (int i = 0; i < 3; ++i) {
    Result<std::optional<SplitAssignment>> a = state_.GetSplit(job, "b", std::nullopt, &ignored, now_);
    Result<std::optional<SplitAssignment>> b = replayed.GetSplit(job, "b", std::nullopt, &ignored, now_);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->has_value(), b->has_value());
    if (a->has_value()) {
      EXPECT_EQ((*a)->split_id, (*b)->split_id);
    }
  }
}

TEST_F(DispatcherStateTest, SnapshotRebuildsTheSameState) {
  const int64_t job = Job(
      {.dataset_id = Register(), .num_epochs = 2, .splits = RowSplits(3), .seeds = {.seed = 9, .iteration = 4}});
  const int64_t coordinated = Job({.dataset_id = Register(6), .num_consumers = 2, .splits = RowSplits(2)});
  const int64_t copies = Job({.dataset_id = Register(), .mode = ProcessingMode::kParallelEpochs});
  Heartbeat("a");
  Heartbeat("b");
  for (int i = 0; i < 4; ++i) NextSplit(job, i % 2 == 0 ? "a" : "b");
  Finish(job, 0);
  Finish(job, 3);
  ASSERT_TRUE(state_.ReturnSplit(job, 1, "b", &journal_, now_).ok());
  NextSplit(coordinated, "a");
  Finish(coordinated, 0, 1);
  NextSplit(copies, "a");

  DispatcherState restored;
  for (const StateUpdate& update : state_.Snapshot()) ASSERT_TRUE(restored.Apply(update, now_).ok()) << update.DebugString();
  ASSERT_EQ(restored.Snapshot().size(), state_.Snapshot().size());
  for (size_t i = 0; i < state_.Snapshot().size(); ++i) {
    EXPECT_EQ(restored.Snapshot()[i].DebugString(), state_.Snapshot()[i].DebugString());
  }
  // Both go on alike: the same seeds, the same splits next, the same ones finishing.
  DispatcherState::Updates ignored;
  for (DispatcherState* state : {&state_, &restored}) {
    EXPECT_EQ(state->GetJobStatus(job)->seeds.seed, 9u);
    EXPECT_EQ(state->GetJobStatus(job)->seeds.iteration, 4u);
    EXPECT_EQ(state->GetSplit(job, "b", std::nullopt, &ignored, now_)->value().split_id, 1);
    EXPECT_EQ(state->GetSplit(job, "b", std::nullopt, &ignored, now_)->value().split_id, 4);
    EXPECT_FALSE(state->IsSplitFinished(coordinated, 0));
    ASSERT_TRUE(state->FinishSplit(coordinated, 0, 0, &ignored, now_).ok());
    EXPECT_TRUE(state->IsSplitFinished(coordinated, 0));
    EXPECT_FALSE(state->GetSplit(copies, "a", std::nullopt, &ignored, now_)->has_value());
    EXPECT_TRUE(state->GetSplit(copies, "b", std::nullopt, &ignored, now_)->has_value());
  }
}

TEST_F(DispatcherStateTest, RestoredJobHoldingSplitsOfAnUnknownWorkerIsDataLoss) {
  const int64_t job = Job({.dataset_id = Register(), .splits = RowSplits(2)});
  Heartbeat("a");
  NextSplit(job, "a");
  DispatcherState::Updates snapshot = state_.Snapshot();
  snapshot.erase(std::remove_if(snapshot.begin(), snapshot.end(),
                                [](const StateUpdate& update) { return update.has_register_worker(); }),
                 snapshot.end());
  DispatcherState restored;
  Status status;
  for (size_t i = 0; i < snapshot.size() && status.ok(); ++i) status = restored.Apply(snapshot[i], now_);
  EXPECT_EQ(status.code(), StatusCode::kDataLoss);
  EXPECT_NE(status.message().find("worker a"), std::string::npos) << status;
}

TEST_F(DispatcherStateTest, SilentConsumerDepartsAndSplitsFinishWithoutIt) {
  const int64_t job = Job({.dataset_id = Register(), .num_consumers = 3, .splits = RowSplits(2)});
  Heartbeat("a");
  NextSplit(job, "a");
  NextSplit(job, "a");
  ASSERT_TRUE(state_.ConsumerHeartbeat(job, 0, "", now_).ok());
  ASSERT_TRUE(state_.ConsumerHeartbeat(job, 1, "", now_).ok());
  Finish(job, 0, 1);  // consumer 1 holds split 0; consumer 2 is never heard from
  Advance(milliseconds(1000));
  Heartbeat("a");
  ASSERT_TRUE(state_.ConsumerHeartbeat(job, 0, "", now_).ok());
  Advance(milliseconds(1000));
  state_.ExpireConsumers(&journal_, now_);
  EXPECT_EQ(state_.DepartedConsumers(job), std::vector<int64_t>{1});
  const Status refused = state_.ConsumerHeartbeat(job, 1, "", now_);
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("consumer 1 of job"), std::string::npos) << refused;
  // Split 1 needs consumers 0 and 2 now; split 0 too, consumer 1's report standing.
  Finish(job, 1, 0);
  Finish(job, 0, 0);
  EXPECT_FALSE(state_.IsSplitFinished(job, 0));
  Finish(job, 0, 2);
  EXPECT_TRUE(state_.IsSplitFinished(job, 0));
  EXPECT_FALSE(state_.IsSplitFinished(job, 1));

  // The journal replays to the same departures; a snapshot keeps them.
  DispatcherState replayed;
  for (const StateUpdate& update : journal_) ASSERT_TRUE(replayed.Apply(update, now_).ok());
  DispatcherState restored;
  for (const StateUpdate& update : state_.Snapshot()) ASSERT_TRUE(restored.Apply(update, now_).ok());
  for (DispatcherState* state : {&replayed, &restored}) {
    EXPECT_EQ(state->DepartedConsumers(job), std::vector<int64_t>{1});
    EXPECT_EQ(state->ConsumerHeartbeat(job, 1, "", now_).code(), StatusCode::kFailedPrecondition);
  }
}

TEST_F(DispatcherStateTest, CoordinatedJobWhoseConsumersAllDepartIsFinished) {
  const int64_t job = Job({.dataset_id = Register(), .num_consumers = 2, .splits = RowSplits(4)});
  Heartbeat("a");
  NextSplit(job, "a");
  ASSERT_TRUE(state_.ConsumerHeartbeat(job, 0, "", now_).ok());
  ASSERT_TRUE(state_.ConsumerHeartbeat(job, 1, "", now_).ok());
  Advance(milliseconds(2000));
  state_.ExpireConsumers(&journal_, now_);
  EXPECT_EQ(state_.DepartedConsumers(job), (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(JobFinished(job));
}

TEST_F(DispatcherStateTest, ContradictoryUpdatesAreDataLoss) {
  StateUpdate update;
  update.mutable_assign_split()->set_job_id(7);
  EXPECT_EQ(state_.Apply(update, now_).code(), StatusCode::kDataLoss);
  update.mutable_create_job()->set_dataset_id("missing");
  EXPECT_EQ(state_.Apply(update, now_).code(), StatusCode::kDataLoss);
  EXPECT_EQ(state_.Apply(StateUpdate(), now_).code(), StatusCode::kDataLoss);
}

TEST_F(DispatcherStateTest, DatasetsPastTheCapAreRefusedNamingIt) {
  DispatcherState capped({.max_datasets = 2});
  ASSERT_TRUE(capped.RegisterDataset(RangeSpec(1), &journal_, now_).ok());
  ASSERT_TRUE(capped.RegisterDataset(RangeSpec(2), &journal_, now_).ok());
  EXPECT_TRUE(capped.RegisterDataset(RangeSpec(1), &journal_, now_).ok());  // known: no new dataset
  Result<std::string> third = capped.RegisterDataset(RangeSpec(3), &journal_, now_);
  EXPECT_EQ(third.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(third.status().message().find("max_datasets 2"), std::string::npos) << third.status();
}

TEST_F(DispatcherStateTest, OpenJobsPastTheCapWaitUntilOneFinishes) {
  DispatcherState capped({.max_open_jobs = 1});
  Result<std::string> dataset = capped.RegisterDataset(RangeSpec(4), &journal_, now_);
  ASSERT_TRUE(dataset.ok());
  Result<int64_t> first = capped.GetOrCreateJob({.dataset_id = *dataset, .job_name = "a", .splits = RowSplits(1)},
                                                &journal_, now_);
  ASSERT_TRUE(first.ok()) << first.status();
  // The named job is there already: no new job.
  EXPECT_TRUE(capped.GetOrCreateJob({.dataset_id = *dataset, .job_name = "a", .splits = RowSplits(1)}, &journal_, now_)
                  .ok());
  Result<int64_t> second = capped.GetOrCreateJob({.dataset_id = *dataset, .splits = RowSplits(1)}, &journal_, now_);
  EXPECT_EQ(second.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(second.status().message().find("max_open_jobs 1"), std::string::npos) << second.status();

  capped.WorkerHeartbeat("w", "w:1", &journal_, now_);
  ASSERT_TRUE(capped.GetSplit(*first, "w", std::nullopt, &journal_, now_).ok());
  ASSERT_TRUE(capped.FinishSplit(*first, 0, 0, &journal_, now_).ok());
  EXPECT_EQ(capped.NumOpenJobs(), 0u);
  EXPECT_TRUE(capped.GetOrCreateJob({.dataset_id = *dataset, .splits = RowSplits(1)}, &journal_, now_).ok());
}

TEST_F(DispatcherStateTest, JobsPastTheSplitCapOrNamingSplitsOutsideThemAreRefused) {
  DispatcherState capped({.max_splits_per_job = 4});
  Result<std::string> dataset = capped.RegisterDataset(RangeSpec(4), &journal_, now_);
  ASSERT_TRUE(dataset.ok());
  struct Case {
    const char* what;
    JobRequest request;
    StatusCode code;
    const char* message;
  } cases[] = {
      {"five splits", {.dataset_id = *dataset, .splits = RowSplits(5)}, StatusCode::kResourceExhausted,
       "max_splits_per_job 4"},
      {"five finished", {.dataset_id = *dataset, .num_epochs = 3, .splits = RowSplits(2),
                         .finished_splits = {0, 1, 2, 3, 4}},
       StatusCode::kResourceExhausted, "max_splits_per_job 4"},
      {"past the last epoch", {.dataset_id = *dataset, .num_epochs = 2, .splits = RowSplits(2),
                               .finished_splits = {4}},
       StatusCode::kInvalidArgument, "[0, 4)"},
      {"negative", {.dataset_id = *dataset, .splits = RowSplits(2), .finished_splits = {-1}},
       StatusCode::kInvalidArgument, "finished split -1"},
  };
  for (const Case& c : cases) {
    Result<int64_t> job = capped.GetOrCreateJob(c.request, &journal_, now_);
    EXPECT_EQ(job.status().code(), c.code) << c.what << ": " << job.status();
    EXPECT_NE(job.status().message().find(c.message), std::string::npos) << c.what << ": " << job.status();
  }
  EXPECT_TRUE(capped
                  .GetOrCreateJob({.dataset_id = *dataset, .num_epochs = 2, .splits = RowSplits(2),
                                   .finished_splits = {0, 3}},
                                  &journal_, now_)
                  .ok());
}

// Every worker keeps a queue per consumer of a coordinated job: a count
// past kMaxConsumersPerJob is refused before anything is sized by it.
TEST_F(DispatcherStateTest, ConsumerCountsOutsideTheCapAreRefused) {
  const std::string dataset = Register();
  for (const int64_t num_consumers : {int64_t{-1}, kMaxConsumersPerJob + 1, int64_t{1} << 40}) {
    Result<int64_t> job =
        state_.GetOrCreateJob({.dataset_id = dataset, .num_consumers = num_consumers, .splits = RowSplits(2)},
                              &journal_, now_);
    EXPECT_EQ(job.status().code(), StatusCode::kInvalidArgument) << job.status();
    EXPECT_NE(job.status().message().find(StrCat("num_consumers must be in [0, ", kMaxConsumersPerJob, "]")),
              std::string::npos)
        << job.status();
  }
  EXPECT_TRUE(state_
                  .GetOrCreateJob({.dataset_id = dataset, .num_consumers = kMaxConsumersPerJob, .splits = RowSplits(2)},
                                  &journal_, now_)
                  .ok());
}

// The saved state of consumer `uid` of shared job `saved_job`.
RestoredConsumer Saved(int64_t saved_job, const std::string& uid, std::vector<std::string> consumers,
                       std::vector<int64_t> finished, std::vector<std::pair<int64_t, uint64_t>> partial = {}) {
  RestoredConsumer saved;
  saved.set_saved_job_id(saved_job);
  saved.set_consumer_uid(uid);
  for (const std::string& consumer : consumers) saved.add_consumer_uids(consumer);
  for (int64_t split : finished) saved.add_finished_split_ids(split);
  for (const auto& [split, held] : partial) {
    SplitPosition* position = saved.add_partial_splits();
    position->set_split_id(split);
    position->set_num_elements(held);
  }
  return saved;
}

TEST_F(DispatcherStateTest, RestoredSharedJobWaitsForEveryConsumerThenSkipsWhatTheyHeld) {
  const std::string dataset = Register(12);
  const JobRequest shared{.dataset_id = dataset, .job_name = "shared", .splits = RowSplits(6)};
  const int64_t original = Job(shared);
  Heartbeat("w");
  EXPECT_EQ(NextSplit(original, "w"), 0);

  JobRequest a = shared;
  a.restore = Saved(original, "a", {"a", "b"}, {0}, {{1, 3}});
  const int64_t restored = Job(a);
  EXPECT_NE(restored, original);
  EXPECT_TRUE(JobFinished(original)) << "a restore of its name supersedes the running job";
  EXPECT_EQ(state_.GetJobStatus(restored)->restoring_consumers, std::vector<std::string>{"b"});
  EXPECT_EQ(NextSplit(restored, "w"), -1) << "no split before every saved consumer is back";
  EXPECT_FALSE(JobFinished(restored));

  // Replayed mid-restore and from a snapshot, the state goes on alike.
  DispatcherState replayed;
  for (const StateUpdate& update : journal_) ASSERT_TRUE(replayed.Apply(update, now_).ok()) << update.DebugString();
  DispatcherState rebuilt;
  for (const StateUpdate& update : state_.Snapshot()) ASSERT_TRUE(rebuilt.Apply(update, now_).ok()) << update.DebugString();

  JobRequest b = shared;
  b.restore = Saved(original, "b", {"a", "b"}, {2}, {{4, 2}});
  for (DispatcherState* state : {&state_, &replayed, &rebuilt}) {
    DispatcherState::Updates updates;
    Result<int64_t> joined = state->GetOrCreateJob(b, &updates, now_);
    ASSERT_TRUE(joined.ok()) << joined.status();
    EXPECT_EQ(*joined, restored);
    EXPECT_TRUE(state->GetJobStatus(restored)->restoring_consumers.empty());
    state->WorkerHeartbeat("w", "w:1", &updates, now_);
    // 0 and 2 were held whole; 1 and 4 start past what was held of them.
    std::vector<std::pair<int64_t, uint64_t>> handed;
    for (;;) {
      Result<std::optional<SplitAssignment>> split = state->GetSplit(restored, "w", std::nullopt, &updates, now_);
      ASSERT_TRUE(split.ok()) << split.status();
      if (!split->has_value()) break;
      handed.emplace_back((*split)->split_id, (*split)->first_index);
    }
    EXPECT_EQ(handed, (std::vector<std::pair<int64_t, uint64_t>>{{1, 3}, {3, 0}, {4, 2}, {5, 0}}));
  }

  // A consumer the merged states did not name joined after they saved.
  JobRequest late = shared;
  late.restore = Saved(original, "c", {"a", "b", "c"}, {});
  Result<int64_t> refused = state_.GetOrCreateJob(late, &journal_, now_);
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition) << refused.status();
  EXPECT_NE(refused.status().message().find("joined the job after"), std::string::npos) << refused.status();
  // One they did name restores again: a new attempt supersedes the first.
  const int64_t again = Job(a);
  EXPECT_NE(again, restored);
  EXPECT_TRUE(JobFinished(restored));
  EXPECT_EQ(state_.GetJobStatus(again)->restoring_consumers, std::vector<std::string>{"b"});
}

TEST_F(DispatcherStateTest, RestoredCoordinatedJobFinishesASplitOnlyWhenEveryConsumerHeldIt) {
  const std::string dataset = Register(8);
  const JobRequest shared{.dataset_id = dataset, .job_name = "rounds", .num_consumers = 2, .splits = RowSplits(3)};
  JobRequest first = shared;
  first.restore = Saved(7, "a", {"a", "b"}, {0, 1});
  first.consumer_index = 0;
  const int64_t job = Job(first);
  JobRequest same_index = shared;
  same_index.restore = Saved(7, "b", {"a", "b"}, {0});
  same_index.consumer_index = 0;
  Result<int64_t> clash = state_.GetOrCreateJob(same_index, &journal_, now_);
  EXPECT_EQ(clash.status().code(), StatusCode::kInvalidArgument) << clash.status();
  JobRequest second = same_index;
  second.consumer_index = 1;
  EXPECT_EQ(Job(second), job);
  Heartbeat("w");
  EXPECT_TRUE(state_.IsSplitFinished(job, 0));
  EXPECT_FALSE(state_.IsSplitFinished(job, 1)) << "consumer 1 did not hold split 1";
  EXPECT_EQ(NextSplit(job, "w"), 1);
  Finish(job, 1, 1);
  EXPECT_TRUE(state_.IsSplitFinished(job, 1));
  EXPECT_EQ(NextSplit(job, "w"), 2);
}

TEST_F(DispatcherStateTest, RestoredConsumerStatesAreChecked) {
  const std::string dataset = Register(8);
  const JobRequest shared{.dataset_id = dataset, .job_name = "shared", .splits = RowSplits(3)};
  struct Case {
    std::string what;
    JobRequest request;
    StatusCode code;
    std::string message;
  };
  auto with = [&](RestoredConsumer saved, std::string name = "shared") {
    JobRequest request = shared;
    request.job_name = std::move(name);
    request.restore = std::move(saved);
    return request;
  };
  const std::vector<Case> cases = {
      {"no job name", with(Saved(0, "a", {"a"}, {}), ""), StatusCode::kInvalidArgument, "job name"},
      {"no uid", with(Saved(0, "", {"a"}, {})), StatusCode::kInvalidArgument, "no consumer uid"},
      {"not among its consumers", with(Saved(0, "a", {"b"}, {})), StatusCode::kInvalidArgument,
       "does not name it"},
      {"a finished split outside", with(Saved(0, "a", {"a"}, {3})), StatusCode::kInvalidArgument,
       "finished split 3"},
      {"a partial split outside", with(Saved(0, "a", {"a"}, {}, {{-2, 1}})), StatusCode::kInvalidArgument,
       "partly read split -2"},
      {"a uid too long", with(Saved(0, "a", {"a", std::string(kMaxConsumerUidBytes + 1, 'u')}, {})),
       StatusCode::kInvalidArgument, "past the 64"},
  };
  for (const Case& c : cases) {
    Result<int64_t> job = state_.GetOrCreateJob(c.request, &journal_, now_);
    EXPECT_EQ(job.status().code(), c.code) << c.what << ": " << job.status();
    EXPECT_NE(job.status().message().find(c.message), std::string::npos) << c.what << ": " << job.status();
  }
  DispatcherState capped({.max_restored_consumers = 2});
  ASSERT_TRUE(capped.RegisterDataset(RangeSpec(8), &journal_, now_).ok());
  Result<int64_t> many = capped.GetOrCreateJob(with(Saved(0, "a", {"a", "b", "c"}, {})), &journal_, now_);
  EXPECT_EQ(many.status().code(), StatusCode::kResourceExhausted) << many.status();
}

}  // namespace
}  // namespace sluice::service
