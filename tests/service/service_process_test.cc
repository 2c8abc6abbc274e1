// The data service's roles as processes (the built `sluice dispatcher`,
// `sluice worker` and `sluice serve`), read by from_service in this process:
// a worker killed mid-epoch, a dispatcher restarted from its work dir,
// split sizes from the flag, version skew, 32 consumers on one worker, a
// consumer that stops taking.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/service/connect.h"
#include "sluice/service/rpc_channel.h"
#include "sluice/service/service_dataset.h"
#include "service/cli_process.h"
#include "service/range_values.h"

namespace sluice::service {
namespace {

using std::chrono::milliseconds;

// A fresh directory for this test.
std::string TestDir(const std::string& name) {
  const std::string path = ::testing::TempDir() + "sluice_service_process_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + name;
  std::filesystem::remove_all(path);
  std::filesystem::create_directories(path);
  return path;
}

std::string WriteSpecFile(const std::string& dir, const spec::Pipeline& pipeline) {
  const std::string path = dir + "/spec.pbtxt";
  std::ofstream(path) << SpecToText(pipeline);
  return path;
}

TEST(ServiceProcessTest, WorkerKilledMidEpochLosesNoSplitAndRepeatsNone) {
  CliProcess dispatcher({"dispatcher", "--port", "0", "--work-dir", TestDir("journal")});
  const std::optional<std::string> address = dispatcher.ReadAddress();
  ASSERT_TRUE(address.has_value());
  CliProcess first({"worker", "--dispatcher", *address});
  CliProcess second({"worker", "--dispatcher", *address});
  ASSERT_TRUE(first.ReadAddress().has_value());
  ASSERT_TRUE(second.ReadAddress().has_value());

  constexpr int64_t kElements = 20000;  // 64 splits of the range
  // Each split shuffled without a seed: a split run again after the kill
  // must still yield its elements in the order of its first run.
  spec::Pipeline shuffled = RangeSpec(kElements);
  shuffled.add_ops()->mutable_shuffle()->set_buffer_size(64);
  // A small credit keeps most elements on the workers when one dies.
  Result<DatasetPtr> dataset = MakeServiceDataset(
      {.address = *address, .spec = shuffled, .credit_elements = 16, .timeout = milliseconds(20000)});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  auto iterator = (*dataset)->MakeIterator();
  std::vector<int64_t> values = Drain(*iterator, 500);
  first.Signal(SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  std::vector<int64_t> rest = Drain(*iterator, 1);
  const auto resumed = std::chrono::steady_clock::now();
  std::vector<int64_t> tail = Drain(*iterator);
  rest.insert(rest.end(), tail.begin(), tail.end());
  values.insert(values.end(), rest.begin(), rest.end());
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, Iota(kElements));
  RecordProperty("receiving_again_after_kill_ms",
                 static_cast<int>(std::chrono::duration_cast<milliseconds>(resumed - killed).count()));
}

TEST(ServiceProcessTest, RestartedDispatcherCarriesOnFromItsWorkDir) {
  const std::string work_dir = TestDir("journal");
  auto dispatcher = std::make_unique<CliProcess>(std::vector<std::string>{"dispatcher", "--port", "0", "--work-dir", work_dir});
  const std::optional<std::string> address = dispatcher->ReadAddress();
  ASSERT_TRUE(address.has_value());
  const std::string port = address->substr(address->rfind(':') + 1);
  CliProcess worker({"worker", "--dispatcher", *address});
  ASSERT_TRUE(worker.ReadAddress().has_value());

  constexpr int64_t kElements = 20000;
  Result<DatasetPtr> dataset = MakeServiceDataset(
      {.address = *address, .spec = RangeSpec(kElements), .credit_elements = 16, .timeout = milliseconds(20000)});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  auto iterator = (*dataset)->MakeIterator();
  std::vector<int64_t> values = Drain(*iterator, 3000);
  dispatcher.reset();  // SIGKILL: nothing is flushed beyond the journal's syncs
  dispatcher = std::make_unique<CliProcess>(std::vector<std::string>{"dispatcher", "--port", port, "--work-dir", work_dir});
  ASSERT_EQ(dispatcher->ReadAddress(), address);
  std::vector<int64_t> rest = Drain(*iterator);
  values.insert(values.end(), rest.begin(), rest.end());
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, Iota(kElements));
}

TEST(ServiceProcessTest, DispatcherCompactsItsJournalPastTheFlagsThreshold) {
  const std::string work_dir = TestDir("journal");
  CliProcess dispatcher({"dispatcher", "--port", "0", "--work-dir", work_dir, "--journal-compaction-bytes", "1"});
  const std::optional<std::string> address = dispatcher.ReadAddress();
  ASSERT_TRUE(address.has_value());
  CliProcess worker({"worker", "--dispatcher", *address});
  ASSERT_TRUE(worker.ReadAddress().has_value());
  Result<DatasetPtr> dataset =
      MakeServiceDataset({.address = *address, .spec = RangeSpec(100), .timeout = milliseconds(20000)});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  auto iterator = (*dataset)->MakeIterator();
  EXPECT_EQ(Drain(*iterator), Iota(100));
  bool compacted = false;
  for (const auto& entry : std::filesystem::directory_iterator(work_dir)) {
    const std::string name = entry.path().filename().string();
    compacted |= name.starts_with("snapshot_") && !name.ends_with(".tmp");
  }
  EXPECT_TRUE(compacted) << "no snapshot_<n> in " << work_dir;
}

TEST(ServiceProcessTest, DispatcherRefusesACompactionThresholdOutOfRange) {
  CliProcess dispatcher(SLUICE_CLI_PATH,
                        {"dispatcher", "--port", "0", "--work-dir", TestDir("journal"), "--journal-compaction-bytes", "0"},
                        /*merge_stderr=*/true);
  const std::optional<std::string> line = dispatcher.ReadLine(milliseconds(10000));
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find("--journal-compaction-bytes"), std::string::npos) << *line;
}

// The batches of range(20).batch(3) through `sluice serve` with `flags`
// (one worker, one consumer: the splits come in order).
std::vector<std::vector<int64_t>> ServedBatches(const std::string& dir, const std::vector<std::string>& flags) {
  spec::Pipeline pipeline = RangeSpec(20);
  pipeline.add_ops()->mutable_batch()->set_batch_size(3);
  std::vector<std::string> args = {"serve", WriteSpecFile(dir, pipeline), "--port", "0"};
  args.insert(args.end(), flags.begin(), flags.end());
  CliProcess serve(args);
  const std::optional<std::string> address = serve.ReadAddress();
  EXPECT_TRUE(address.has_value());
  if (!address.has_value()) return {};
  Result<DatasetPtr> dataset =
      MakeServiceDataset({.address = *address, .spec = pipeline, .timeout = milliseconds(20000)});
  EXPECT_TRUE(dataset.ok()) << dataset.status();
  if (!dataset.ok()) return {};
  auto iterator = (*dataset)->MakeIterator();
  std::vector<std::vector<int64_t>> batches;
  for (;;) {
    Result<std::optional<Element>> next = iterator->GetNext();
    EXPECT_TRUE(next.ok()) << next.status();
    if (!next.ok() || !next->has_value() || batches.size() > 20) break;
    const Tensor& batch = (**next)[0];
    batches.emplace_back(batch.data<int64_t>(), batch.data<int64_t>() + batch.NumElements());
  }
  return batches;
}

// A batch ends with its split: --rows-per-split 5 gives batches of 3 and 2;
// by default a range of 20 rows is 20 splits of one row (a 64th of it, at
// least one), a batch each.
TEST(ServiceProcessTest, ServeCutsASourceIntoSplitsOfTheFlagsRows) {
  EXPECT_EQ(ServedBatches(TestDir("five"), {"--rows-per-split", "5"}),
            (std::vector<std::vector<int64_t>>{
                {0, 1, 2}, {3, 4}, {5, 6, 7}, {8, 9}, {10, 11, 12}, {13, 14}, {15, 16, 17}, {18, 19}}));
  std::vector<std::vector<int64_t>> rows;
  for (int64_t i = 0; i < 20; ++i) rows.push_back({i});
  EXPECT_EQ(ServedBatches(TestDir("default"), {}), rows);
}

TEST(ServiceProcessTest, ServeRefusesARowsPerSplitOutOfRange) {
  CliProcess serve(SLUICE_CLI_PATH,
                   {"serve", WriteSpecFile(TestDir("serve"), RangeSpec(10)), "--port", "0", "--rows-per-split", "-1"},
                   /*merge_stderr=*/true);
  const std::optional<std::string> line = serve.ReadLine(milliseconds(10000));
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find("--rows-per-split"), std::string::npos) << *line;
}

TEST(ServiceProcessTest, ClientOfAnotherMajorVersionIsRefusedNamingBoth) {
  const std::string dir = TestDir("serve");
  CliProcess serve({"serve", WriteSpecFile(dir, RangeSpec(10)), "--port", "0"});
  const std::optional<std::string> address = serve.ReadAddress();
  ASSERT_TRUE(address.has_value());
  IoThread io("test-client");
  Result<std::shared_ptr<Connection>> connection =
      Connect(io, *address, {.name = "old client", .major = kServiceProtocolMajor + 1, .minor = 0});
  ASSERT_FALSE(connection.ok());
  EXPECT_EQ(connection.status().code(), StatusCode::kFailedPrecondition) << connection.status();
  EXPECT_NE(connection.status().message().find(StrCat(kServiceProtocolMajor + 1, ".0")), std::string::npos)
      << connection.status();
  EXPECT_NE(connection.status().message().find(StrCat(kServiceProtocolMajor, ".", kServiceProtocolMinor)),
            std::string::npos)
      << connection.status();
  // A client of an older minor version is served.
  if (kServiceProtocolMinor > 0) {
    EXPECT_TRUE(Connect(io, *address, {.minor = kServiceProtocolMinor - 1}).ok());
  }
}

TEST(ServiceProcessTest, ThirtyTwoConsumersShareAJobOnOneWorker) {
  const std::string dir = TestDir("serve");
  constexpr int64_t kElements = 6400;
  CliProcess serve({"serve", WriteSpecFile(dir, RangeSpec(kElements)), "--port", "0"});
  const std::optional<std::string> address = serve.ReadAddress();
  ASSERT_TRUE(address.has_value());
  Result<DatasetPtr> dataset = MakeServiceDataset(
      {.address = *address, .spec = RangeSpec(kElements), .job_name = "shared", .timeout = milliseconds(20000)});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  constexpr int kConsumers = 32;
  std::vector<std::vector<int64_t>> received(kConsumers);
  std::vector<std::thread> consumers;
  for (int i = 0; i < kConsumers; ++i) {
    consumers.emplace_back([&, i] {
      auto iterator = (*dataset)->MakeIterator();
      received[i] = Drain(*iterator);
    });
  }
  for (std::thread& consumer : consumers) consumer.join();
  std::vector<int64_t> values;
  for (const std::vector<int64_t>& part : received) values.insert(values.end(), part.begin(), part.end());
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, Iota(kElements));
}

// A consumer that grants credit for `kCredit` elements and then stops
// taking is sent exactly that many; one more credit, one more element.
TEST(ServiceProcessTest, SlowConsumerIsSentNoMoreThanItsCredit) {
  const std::string dir = TestDir("serve");
  // 64 KiB elements.
  spec::Pipeline large;
  large.add_ops()->mutable_range()->set_stop(400000);
  large.add_ops()->mutable_batch()->set_batch_size(8192);
  CliProcess serve({"serve", WriteSpecFile(dir, large), "--port", "0"});
  const std::optional<std::string> address = serve.ReadAddress();
  ASSERT_TRUE(address.has_value());

  IoThread io("test-client");
  RpcChannel dispatcher(io, *address, {.name = "slow consumer"});
  Frame info;
  info.mutable_get_dataset_info_request()->set_spec(large.SerializeAsString());
  Result<Frame> registered = dispatcher.Call(std::move(info), milliseconds(5000));
  ASSERT_TRUE(registered.ok()) << registered.status();
  Frame job;
  job.mutable_get_or_create_job_request()->set_dataset_id(registered->get_dataset_info_response().dataset_id());
  job.mutable_get_or_create_job_request()->set_processing_mode("distributed_epoch");
  Result<Frame> made = dispatcher.Call(std::move(job), milliseconds(5000));
  ASSERT_TRUE(made.ok()) << made.status();
  const int64_t job_id = made->get_or_create_job_response().job_id();
  std::string worker_address;
  for (int attempt = 0; attempt < 100 && worker_address.empty(); ++attempt) {
    Frame heartbeat;
    heartbeat.mutable_client_heartbeat_request()->set_job_id(job_id);
    Result<Frame> answer = dispatcher.Call(std::move(heartbeat), milliseconds(5000));
    ASSERT_TRUE(answer.ok()) << answer.status();
    if (answer->client_heartbeat_response().workers_size() > 0) {
      worker_address = answer->client_heartbeat_response().workers(0).address();
    } else {
      std::this_thread::sleep_for(milliseconds(50));
    }
  }
  ASSERT_FALSE(worker_address.empty());

  Result<std::shared_ptr<Connection>> worker = Connect(io, worker_address, {.name = "slow consumer"});
  ASSERT_TRUE(worker.ok()) << worker.status();
  constexpr uint64_t kCredit = 3;
  ASSERT_TRUE((*worker)->GrantCreditBlocking(uint64_t{1} << 30, kCredit, milliseconds(5000)).ok());
  Frame read;
  read.mutable_read_job_request()->set_job_id(job_id);
  ASSERT_TRUE((*worker)->SendBlocking(std::move(read), milliseconds(5000)).ok());
  auto receive_element = [&] {
    for (;;) {
      Result<ReceivedFrame> frame = (*worker)->ReceiveBlocking(milliseconds(10000));
      if (!frame.ok()) return false;
      if (frame->frame.has_element()) return true;
    }
  };
  for (uint64_t i = 0; i < kCredit; ++i) ASSERT_TRUE(receive_element()) << "element " << i;
  // Whatever the worker has ready, the consumer holds no credit: nothing comes.
  Result<ReceivedFrame> extra = (*worker)->ReceiveBlocking(milliseconds(300));
  EXPECT_FALSE(extra.ok() && extra->frame.has_element());
  EXPECT_EQ((*worker)->counters().elements_received, kCredit);
  ASSERT_TRUE((*worker)->GrantCreditBlocking(0, 1, milliseconds(5000)).ok());
  ASSERT_TRUE(receive_element());
  EXPECT_EQ((*worker)->counters().elements_received, kCredit + 1);
  (*worker)->Close();
  dispatcher.Close();
}

}  // namespace
}  // namespace sluice::service
