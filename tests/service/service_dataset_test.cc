#include "sluice/service/service_dataset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <thread>

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/iterator_state.pb.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/service/connect.h"
#include "sluice/service/dispatcher.h"
#include "sluice/service/protocol.h"
#include "sluice/service/worker.h"
#include "service/range_values.h"
#include "temp_dir.h"

namespace sluice::service {
namespace {

// A dispatcher and `n` workers in this process, on loopback ports.
struct Service {
  explicit Service(int n, std::optional<std::string> token = std::nullopt) {
    Result<std::unique_ptr<Dispatcher>> started =
        Dispatcher::Start({.token = token, .splits = {.rows_per_split = 5}});
    EXPECT_TRUE(started.ok()) << started.status();
    dispatcher = *std::move(started);
    for (int i = 0; i < n; ++i) {
      Result<std::unique_ptr<Worker>> worker = Worker::Start(
          {.dispatcher_address = dispatcher->address(), .token = token, .runtime = {.cpu_budget = 1}});
      EXPECT_TRUE(worker.ok()) << worker.status();
      workers.push_back(*std::move(worker));
    }
  }
  // A dispatcher with `dispatcher_options` and one worker with
  // `worker_options` (its dispatcher's address filled in).
  Service(DispatcherOptions dispatcher_options, WorkerOptions worker_options) {
    Result<std::unique_ptr<Dispatcher>> started = Dispatcher::Start(std::move(dispatcher_options));
    EXPECT_TRUE(started.ok()) << started.status();
    dispatcher = *std::move(started);
    worker_options.dispatcher_address = dispatcher->address();
    Result<std::unique_ptr<Worker>> worker = Worker::Start(std::move(worker_options));
    EXPECT_TRUE(worker.ok()) << worker.status();
    workers.push_back(*std::move(worker));
  }
  std::unique_ptr<Dispatcher> dispatcher;
  std::vector<std::unique_ptr<Worker>> workers;
};

TEST(ServiceDatasetTest, SeveralWorkersDeliverEverySplitOnce) {
  Service service(3);
  Result<DatasetPtr> dataset = MakeServiceDataset({.address = service.dispatcher->address(), .spec = RangeSpec(100)});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  EXPECT_EQ((*dataset)->element_spec().size(), 1u);
  auto iterator = (*dataset)->MakeIterator();
  std::vector<int64_t> values = Drain(*iterator);
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, Iota(100));
}

TEST(ServiceDatasetTest, SurvivorsDeliverAStoppedWorkersSplits) {
  Service service(2);
  Result<DatasetPtr> dataset = MakeServiceDataset({.address = service.dispatcher->address(), .spec = RangeSpec(200)});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  auto iterator = (*dataset)->MakeIterator();
  std::vector<int64_t> values = Drain(*iterator, 30);
  service.workers[0]->Stop();
  std::vector<int64_t> rest = Drain(*iterator);
  values.insert(values.end(), rest.begin(), rest.end());
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, Iota(200));
}

// A consumer that reaches a worker before the worker has learned its job,
// and the worker stops meanwhile, sees the connection close, as when a
// worker dies, not an error that would end its iteration.
TEST(ServiceDatasetTest, AWorkerStoppingBeforeItLearnsTheJobClosesWithoutAnError) {
  Service service(1);
  IoThread io("test-client");
  Result<std::shared_ptr<Connection>> connected = Connect(io, service.workers[0]->address(), {.role = ROLE_CLIENT});
  ASSERT_TRUE(connected.ok()) << connected.status();
  Frame request;
  request.mutable_read_job_request()->set_job_id(12345);  // no such job: the session waits for it
  ASSERT_TRUE((*connected)->SendBlocking(std::move(request), std::chrono::seconds(5)).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  service.workers[0]->Stop();
  Result<ReceivedFrame> got = (*connected)->ReceiveBlocking(std::chrono::seconds(5));
  ASSERT_FALSE(got.ok()) << "a frame of kind " << got->frame.kind_case() << " came";
  EXPECT_NE(got.status().code(), StatusCode::kDeadlineExceeded) << got.status();
}

TEST(ServiceDatasetTest, ConsumerLeavingASharedJobMidSplitLeavesItsSplitsToTheOthers) {
  Service service(1);
  Result<DatasetPtr> dataset = MakeServiceDataset({.address = service.dispatcher->address(),
                                                   .spec = RangeSpec(100),
                                                   .job_name = "shared",
                                                   .timeout = std::chrono::milliseconds(20000)});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  auto leaving = (*dataset)->MakeIterator();
  auto staying = (*dataset)->MakeIterator();
  // 3 elements of a 5-element split: it holds no split whole.
  EXPECT_EQ(Drain(*leaving, 3).size(), 3u);
  leaving.reset();
  std::vector<int64_t> values = Drain(*staying);
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, Iota(100));
}

// A new iterator of `dataset`, read to its end: an epoch.
std::vector<int64_t> ReadEpoch(const DatasetPtr& dataset) {
  auto iterator = dataset->MakeIterator();
  return Drain(*iterator);
}

// range(n) -> shuffle(8), without a seed.
spec::Pipeline ShuffledRangeSpec(int64_t n) {
  spec::Pipeline pipeline = RangeSpec(n);
  pipeline.add_ops()->mutable_shuffle()->set_buffer_size(8);
  return pipeline;
}

// The iterator of a job restores the job's seeds with its state: the splits
// it read part of run again in the same order, so that it drops exactly what
// it held (a restored iterator is a new iterator of its dataset, whose own
// job would draw anew).
TEST(ServiceDatasetTest, SavedIteratorResumesWithoutLossOrRepeat) {
  Service service(2);
  Result<DatasetPtr> dataset =
      MakeServiceDataset({.address = service.dispatcher->address(), .spec = ShuffledRangeSpec(60)});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  std::vector<int64_t> values;
  std::string state;
  {
    auto iterator = (*dataset)->MakeIterator();
    values = Drain(*iterator, 23);
    Result<std::string> saved = SaveIteratorState(*iterator);
    ASSERT_TRUE(saved.ok()) << saved.status();
    state = *saved;
  }
  auto restored = (*dataset)->MakeIterator();
  ASSERT_TRUE(RestoreIteratorState(*restored, state).ok());
  std::vector<int64_t> rest = Drain(*restored);
  values.insert(values.end(), rest.begin(), rest.end());
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, Iota(60));
}

// Each iterator of a dataset reads a job of its own, whose shuffles draw
// anew (an epoch's order differs from the last's, as with a local pipeline);
// datasets made with the same seed read the same orders, epoch by epoch.
TEST(ServiceDatasetTest, EachIteratorDrawsANewOrderAndAFixedSeedRepeatsTheRun) {
  Service service(1);
  const auto make = [&](std::optional<uint64_t> seed) {
    Result<DatasetPtr> dataset = MakeServiceDataset(
        {.address = service.dispatcher->address(), .spec = ShuffledRangeSpec(100), .seed = seed});
    EXPECT_TRUE(dataset.ok()) << dataset.status();
    return *dataset;
  };
  const DatasetPtr unseeded = make(std::nullopt);
  const std::vector<int64_t> first = ReadEpoch(unseeded), second = ReadEpoch(unseeded);
  EXPECT_NE(first, second) << "the second epoch repeats the first's order";
  std::vector<int64_t> sorted = second;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Iota(100));
  const DatasetPtr run = make(42), rerun = make(42);
  const std::vector<int64_t> run_first = ReadEpoch(run), run_second = ReadEpoch(run);
  EXPECT_NE(run_first, run_second);
  EXPECT_EQ(ReadEpoch(rerun), run_first);
  EXPECT_EQ(ReadEpoch(rerun), run_second);
}

// In parallel_epochs each iterator reads a job of its own, whose workers run
// the whole spec: a seeded shuffle reads as the spec says in the first epoch
// and reshuffles in the next ones, the same in every run.
TEST(ServiceDatasetTest, ParallelEpochsReshuffleASeededShuffleEachEpoch) {
  Service service(1);
  spec::Pipeline pipeline = RangeSpec(100);
  spec::Shuffle* shuffle = pipeline.add_ops()->mutable_shuffle();
  shuffle->set_buffer_size(100);
  shuffle->set_seed(11);
  const auto make = [&] {
    Result<DatasetPtr> dataset = MakeServiceDataset({.address = service.dispatcher->address(),
                                                     .spec = pipeline,
                                                     .processing_mode = ProcessingMode::kParallelEpochs});
    EXPECT_TRUE(dataset.ok()) << dataset.status();
    return *dataset;
  };
  const DatasetPtr run = make(), rerun = make();
  const std::vector<int64_t> first = ReadEpoch(run), second = ReadEpoch(run);
  Result<DatasetPtr> local = DatasetFromSpec(pipeline);
  ASSERT_TRUE(local.ok()) << local.status();
  EXPECT_EQ(first, ReadEpoch(*local));
  EXPECT_NE(first, second) << "the second epoch repeats the first's order";
  std::vector<int64_t> sorted = second;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Iota(100));
  EXPECT_EQ(ReadEpoch(rerun), first);
  EXPECT_EQ(ReadEpoch(rerun), second);
}

// In parallel_epochs a shuffle without a seed that keeps its order across
// epochs (reshuffle_each_iteration: false) keeps it from one iterator of
// its dataset to the next, as a local pipeline's does.
TEST(ServiceDatasetTest, ParallelEpochsKeepAnUnseededShufflesOrderWhenToldTo) {
  Service service(1);
  spec::Pipeline pipeline = RangeSpec(100);
  spec::Shuffle* shuffle = pipeline.add_ops()->mutable_shuffle();
  shuffle->set_buffer_size(100);
  shuffle->set_reshuffle_each_iteration(false);
  Result<DatasetPtr> dataset = MakeServiceDataset(
      {.address = service.dispatcher->address(), .spec = pipeline, .processing_mode = ProcessingMode::kParallelEpochs});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  const std::vector<int64_t> first = ReadEpoch(*dataset);
  EXPECT_EQ(ReadEpoch(*dataset), first) << "the second epoch reshuffled";
  std::vector<int64_t> sorted = first;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Iota(100));
}

// The saved state of `iterator`.
std::string Save(Iterator& iterator) {
  Result<std::string> saved = SaveIteratorState(iterator);
  EXPECT_TRUE(saved.ok()) << saved.status();
  return saved.ok() ? *saved : std::string();
}

// Restores states[i] into a fresh iterator of datasets[i], for each i, and
// drains them all at once (a restored shared job waits for every one).
std::vector<int64_t> RestoreAndDrain(const std::vector<DatasetPtr>& datasets, const std::vector<std::string>& states) {
  std::vector<std::unique_ptr<Iterator>> iterators;
  for (size_t i = 0; i < states.size(); ++i) {
    iterators.push_back(datasets[i]->MakeIterator());
    EXPECT_TRUE(RestoreIteratorState(*iterators.back(), states[i]).ok());
  }
  std::vector<std::vector<int64_t>> drained(iterators.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < iterators.size(); ++i) {
    threads.emplace_back([&, i] { drained[i] = Drain(*iterators[i]); });
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<int64_t> values;
  for (const std::vector<int64_t>& part : drained) values.insert(values.end(), part.begin(), part.end());
  return values;
}

TEST(ServiceDatasetTest, SharedJobSavedByEveryConsumerResumesWithoutLossOrRepeat) {
  Service service(2);
  Result<DatasetPtr> dataset = MakeServiceDataset({.address = service.dispatcher->address(),
                                                   .spec = RangeSpec(100),
                                                   .job_name = "shared",
                                                   // Little read ahead: the other consumer gets splits too.
                                                   .credit_elements = 2,
                                                   .timeout = std::chrono::milliseconds(20000)});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  std::vector<int64_t> values;
  std::vector<std::string> states;
  {
    auto a = (*dataset)->MakeIterator();
    auto b = (*dataset)->MakeIterator();
    values = Drain(*a, 12);  // two splits of 5 and part of a third
    std::vector<int64_t> more = Drain(*b, 17);
    values.insert(values.end(), more.begin(), more.end());
    states = {Save(*a), Save(*b)};
    // Read after the save: read again after the restore.
    EXPECT_EQ(Drain(*a, 9).size(), 9u);
    EXPECT_EQ(Drain(*b, 4).size(), 4u);
  }
  std::vector<int64_t> rest = RestoreAndDrain({*dataset, *dataset}, states);
  values.insert(values.end(), rest.begin(), rest.end());
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, Iota(100));
}

TEST(ServiceDatasetTest, CoordinatedSharedJobSavedByEveryConsumerResumesWithoutLossOrRepeat) {
  Service service(1);
  std::vector<DatasetPtr> consumers;
  for (int64_t index = 0; index < 2; ++index) {
    Result<DatasetPtr> dataset = MakeServiceDataset({.address = service.dispatcher->address(),
                                                     .spec = RangeSpec(60),
                                                     .job_name = "rounds",
                                                     .consumer_index = index,
                                                     .num_consumers = 2,
                                                     .timeout = std::chrono::milliseconds(20000)});
    ASSERT_TRUE(dataset.ok()) << dataset.status();
    consumers.push_back(*dataset);
  }
  std::vector<int64_t> values;
  std::vector<std::string> states(2);
  {
    std::vector<std::unique_ptr<Iterator>> iterators;
    for (const DatasetPtr& dataset : consumers) iterators.push_back(dataset->MakeIterator());
    std::vector<std::vector<int64_t>> read(2);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < 2; ++i) {
      threads.emplace_back([&, i] {
        read[i] = Drain(*iterators[i], 11);
        states[i] = Save(*iterators[i]);
        Drain(*iterators[i], 3);  // read again after the restore
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (const std::vector<int64_t>& part : read) values.insert(values.end(), part.begin(), part.end());
  }
  std::vector<int64_t> rest = RestoreAndDrain(consumers, states);
  values.insert(values.end(), rest.begin(), rest.end());
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, Iota(60));
}

TEST(ServiceDatasetTest, RestoredSharedJobWhoseOtherConsumerNeverRestoresFailsNamingIt) {
  Service service(1);
  Result<DatasetPtr> dataset = MakeServiceDataset({.address = service.dispatcher->address(),
                                                   .spec = RangeSpec(40),
                                                   .job_name = "shared",
                                                   .credit_elements = 2,
                                                   .timeout = std::chrono::milliseconds(1500)});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  std::string state;
  {
    auto a = (*dataset)->MakeIterator();
    auto b = (*dataset)->MakeIterator();
    EXPECT_EQ(Drain(*a, 3).size(), 3u);
    EXPECT_EQ(Drain(*b, 3).size(), 3u);
    state = Save(*a);
  }
  auto restored = (*dataset)->MakeIterator();
  ASSERT_TRUE(RestoreIteratorState(*restored, state).ok());
  Result<std::optional<Element>> next = restored->GetNext();
  EXPECT_EQ(next.status().code(), StatusCode::kFailedPrecondition) << next.status();
  EXPECT_NE(next.status().message().find("still waits for 1 of them"), std::string::npos) << next.status();
}

// `saved` with every partly read split's count of read elements set to
// `count`.
std::string WithPartialSplitsRead(const std::string& saved, int64_t count) {
  state::IteratorState proto;
  EXPECT_TRUE(proto.ParseFromString(saved));
  int rewritten = 0;
  for (state::Entry& entry : *proto.mutable_entries()) {
    if (!entry.key().ends_with("partial_splits")) continue;
    std::string& data = *entry.mutable_tensor()->mutable_data();
    for (size_t row = 0; row + 16 <= data.size(); row += 16, ++rewritten) {
      std::memcpy(data.data() + row + 8, &count, sizeof count);
    }
  }
  EXPECT_GT(rewritten, 0) << "no partly read split in the state";
  return proto.SerializeAsString();
}

// A state claiming more of a split than it has (damaged, or another job's)
// loses that split's elements with a DataLoss error naming it, whether the
// consumer drops what it held (a job of its own) or the worker skips it (a
// shared job), and the other splits still arrive.
TEST(ServiceDatasetTest, RestoredStateClaimingMoreOfASplitThanItHasIsDataLoss) {
  for (const std::string job_name : {"", "shared"}) {
    SCOPED_TRACE(job_name.empty() ? "a job of its own" : "a shared job");
    Service service(1);
    Result<DatasetPtr> dataset = MakeServiceDataset({.address = service.dispatcher->address(),
                                                     .spec = RangeSpec(40),
                                                     .job_name = job_name,
                                                     .credit_elements = 2,
                                                     .timeout = std::chrono::milliseconds(20000)});
    ASSERT_TRUE(dataset.ok()) << dataset.status();
    std::vector<int64_t> values;
    std::string state;
    {
      auto iterator = (*dataset)->MakeIterator();
      values = Drain(*iterator, 3);  // part of one split of 5
      state = WithPartialSplitsRead(Save(*iterator), 1000);
    }
    auto restored = (*dataset)->MakeIterator();
    ASSERT_TRUE(RestoreIteratorState(*restored, state).ok());
    std::vector<Status> errors;
    for (int calls = 0; calls < 100; ++calls) {
      Result<std::optional<Element>> next = restored->GetNext();
      if (!next.ok()) {
        errors.push_back(next.status());
        continue;
      }
      if (!next->has_value()) break;
      values.push_back((**next)[0].scalar<int64_t>());
    }
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].code(), StatusCode::kDataLoss) << errors[0];
    EXPECT_NE(errors[0].message().find("ended after 5 elements, but the restored iterator state puts this "
                                       "consumer's next element of it at index 1000"),
              std::string::npos)
        << errors[0];
    // What was read before the save, then every split but the damaged one.
    ASSERT_GE(values.size(), 3u);
    const int64_t lost = values[0] / 5;
    const std::vector<int64_t> read_before(values.begin(), values.begin() + 3);
    std::sort(values.begin(), values.end());
    std::vector<int64_t> expected;
    for (int64_t v = 0; v < 40; ++v) {
      if (v / 5 != lost || std::count(read_before.begin(), read_before.end(), v) > 0) expected.push_back(v);
    }
    EXPECT_EQ(values, expected);
  }
}

TEST(ServiceDatasetTest, DispatcherRestartedFromACompactedJournalLosesAndRepeatsNoSplit) {
  testing::TempDir dir;
  // Compacted after every change: the restart replays a snapshot.
  DispatcherOptions options{.work_dir = dir.path(), .journal_compaction_bytes = 1, .splits = {.rows_per_split = 5}};
  Result<std::unique_ptr<Dispatcher>> dispatcher = Dispatcher::Start(options);
  ASSERT_TRUE(dispatcher.ok()) << dispatcher.status();
  const std::string address = (*dispatcher)->address();
  Result<std::unique_ptr<Worker>> worker =
      Worker::Start({.dispatcher_address = address, .runtime = {.cpu_budget = 1}});
  ASSERT_TRUE(worker.ok()) << worker.status();
  Result<DatasetPtr> dataset =
      MakeServiceDataset({.address = address, .spec = RangeSpec(200), .timeout = std::chrono::milliseconds(20000)});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  auto iterator = (*dataset)->MakeIterator();
  std::vector<int64_t> values = Drain(*iterator, 80);
  options.port = (*dispatcher)->port();
  dispatcher->reset();
  int snapshots = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    snapshots += entry.path().filename().string().starts_with("snapshot_") ? 1 : 0;
  }
  EXPECT_EQ(snapshots, 1);  // the newest; it superseded the others
  dispatcher = Dispatcher::Start(options);
  ASSERT_TRUE(dispatcher.ok()) << dispatcher.status();
  std::vector<int64_t> rest = Drain(*iterator);
  values.insert(values.end(), rest.begin(), rest.end());
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, Iota(200));
}

TEST(ServiceDatasetTest, ConsumerThatStopsMidEpochIsLeftOutAndTheOtherReadsOn) {
  Service service({.consumer_timeout = std::chrono::milliseconds(300), .splits = {.rows_per_split = 5}},
                  {.runtime = {.cpu_budget = 1}});
  ServiceOptions options{.address = service.dispatcher->address(), .spec = RangeSpec(200), .job_name = "coordinated",
                         .num_consumers = 2};
  Result<DatasetPtr> first = MakeServiceDataset(options);
  options.consumer_index = 1;
  Result<DatasetPtr> second = MakeServiceDataset(options);
  ASSERT_TRUE(first.ok() && second.ok()) << first.status() << second.status();
  auto reader = (*first)->MakeIterator();
  // Element k of each 5-row split goes to consumer k % 2.
  auto share = [](int64_t consumer) {
    std::vector<int64_t> values;
    for (int64_t v = 0; v < 200; ++v) {
      if (v % 5 % 2 == consumer) values.push_back(v);
    }
    return values;
  };
  {
    auto leaver = (*second)->MakeIterator();
    for (int64_t value : Drain(*leaver, 10)) EXPECT_EQ(value % 5 % 2, 1) << value;
  }  // it stops heartbeating; 300 ms later the job goes on without it
  std::vector<int64_t> values = Drain(*reader);
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, share(0));
}

// A worker heartbeats at once when a consumer asks for a job it does not
// know, so a new job starts without waiting for the next beat: here beats
// are 30 s apart, and a session waits 5 s for its job. The second epoch's
// job is made after the worker's first beat (a consumer learns of a worker
// from the dispatcher once it has beaten).
TEST(ServiceDatasetTest, NewJobStartsWithoutWaitingForTheWorkersNextHeartbeat) {
  Service service({.worker_timeout = std::chrono::minutes(2), .splits = {.rows_per_split = 5}},
                  {.heartbeat_interval = std::chrono::seconds(30), .runtime = {.cpu_budget = 1}});
  Result<DatasetPtr> dataset = MakeServiceDataset({.address = service.dispatcher->address(), .spec = RangeSpec(20)});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  for (int epoch = 0; epoch < 2; ++epoch) {
    auto iterator = (*dataset)->MakeIterator();
    std::vector<int64_t> values = Drain(*iterator);
    std::sort(values.begin(), values.end());
    EXPECT_EQ(values, Iota(20)) << "epoch " << epoch;
  }
}

// A consumer that pauses between reads for longer than its worker's write
// timeout reads on after: the worker, out of credit, waits for it for as
// long as the connection is open. Here the write timeout is 100 ms and the
// pause 1 s; the reads after the pause are bounded by a watchdog (a hung
// iterator cannot be destroyed, so the test binary ends).
TEST(ServiceDatasetTest, ConsumerPausingLongerThanTheWriteTimeoutReadsOn) {
  Service service({.splits = {.rows_per_split = 5}},
                  {.runtime = {.cpu_budget = 1}, .write_timeout = std::chrono::milliseconds(100)});
  Result<DatasetPtr> dataset =
      MakeServiceDataset({.address = service.dispatcher->address(), .spec = RangeSpec(200), .credit_elements = 4});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  auto iterator = (*dataset)->MakeIterator();
  std::vector<int64_t> values = Drain(*iterator, 1);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  auto rest = std::async(std::launch::async, [&iterator] { return Drain(*iterator); });
  if (rest.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    std::fprintf(stderr, "the reads after a 1 s pause did not end within 60 s\n");
    std::fflush(stderr);
    std::_Exit(1);
  }
  std::vector<int64_t> after = rest.get();
  values.insert(values.end(), after.begin(), after.end());
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, Iota(200));
}

// A worker lets go of a finished job's task once no session reads it (its
// thread and buffers; a worker that ran a job per epoch held every one), and
// a consumer that asks for such a job later hears its end at once.
TEST(ServiceDatasetTest, FinishedJobsAreLetGoAndALateConsumerHearsTheirEnd) {
  Service service({.splits = {.rows_per_split = 5}},
                  {.heartbeat_interval = std::chrono::milliseconds(20), .runtime = {.cpu_budget = 1}});
  Result<DatasetPtr> dataset = MakeServiceDataset({.address = service.dispatcher->address(), .spec = RangeSpec(20)});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  for (int epoch = 0; epoch < 20; ++epoch) {  // a job each
    auto iterator = (*dataset)->MakeIterator();
    std::vector<int64_t> values = Drain(*iterator);
    std::sort(values.begin(), values.end());
    ASSERT_EQ(values, Iota(20)) << "epoch " << epoch;
  }
  for (int i = 0; i < 500 && service.workers[0]->num_tasks() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(service.workers[0]->num_tasks(), 0u) << "the 20 finished jobs' tasks are let go";

  IoThread io;
  Result<std::shared_ptr<Connection>> connection = Connect(io, service.workers[0]->address(), {.name = "late consumer"});
  ASSERT_TRUE(connection.ok()) << connection.status();
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE((*connection)->GrantCreditBlocking(1 << 20, 4, std::chrono::seconds(5)).ok());
  Frame request;
  request.mutable_read_job_request()->set_job_id(0);  // the first job's
  ASSERT_TRUE((*connection)->SendBlocking(std::move(request), std::chrono::seconds(5)).ok());
  Result<ReceivedFrame> frame = (*connection)->ReceiveBlocking(std::chrono::seconds(20));
  ASSERT_TRUE(frame.ok()) << frame.status();
  EXPECT_TRUE(frame->frame.has_element() && frame->frame.element().end_of_stream()) << frame->frame.DebugString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4))
      << "at once, not after the wait for an unknown job's task";
}

TEST(ServiceDatasetTest, ClientWithoutTheTokenIsRefused) {
  Service service(1, "s3cret");
  Result<DatasetPtr> dataset = MakeServiceDataset({.address = service.dispatcher->address(), .spec = RangeSpec(10)});
  EXPECT_EQ(dataset.status().code(), StatusCode::kUnauthenticated) << dataset.status();
}

TEST(ServiceDatasetTest, ConsumerCountsOutsideTheCapAreRefusedBeforeConnecting) {
  for (const int64_t num_consumers : {int64_t{-1}, kMaxConsumersPerJob + 1, int64_t{1} << 40}) {
    Result<DatasetPtr> dataset =
        MakeServiceDataset({.address = "127.0.0.1:1", .spec = RangeSpec(10), .num_consumers = num_consumers});
    EXPECT_EQ(dataset.status().code(), StatusCode::kInvalidArgument) << dataset.status();
    EXPECT_NE(dataset.status().message().find("num_consumers must be in [0, 65536]"), std::string::npos)
        << dataset.status();
  }
}

TEST(ServiceDatasetTest, SpecReadingOutsideTheRootsIsRefused) {
  Service service(1);
  spec::Pipeline pipeline;
  pipeline.add_ops()->mutable_tfrecord()->add_files("/etc/passwd");
  Result<DatasetPtr> dataset = MakeServiceDataset({.address = service.dispatcher->address(), .spec = pipeline});
  EXPECT_EQ(dataset.status().code(), StatusCode::kInvalidArgument) << dataset.status();
  EXPECT_NE(dataset.status().message().find("outside the roots"), std::string::npos) << dataset.status();
}

}  // namespace
}  // namespace sluice::service
