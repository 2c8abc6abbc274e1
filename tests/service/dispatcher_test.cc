// Dispatcher (service/dispatcher.h) over its wire protocol: the caps on
// what one client connection, and all of them, can make it hold.
#include "sluice/service/dispatcher.h"

#include <gtest/gtest.h>

#include "sluice/service/rpc_channel.h"
#include "service/range_values.h"

namespace sluice::service {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kTimeout{5000};

// A client connection to the dispatcher.
class Client {
 public:
  Client(IoThread& io, const std::string& address) : channel_(io, address, {.name = "test client"}) {}

  Result<std::string> Register(const spec::Pipeline& pipeline) {
    Frame request;
    request.mutable_get_dataset_info_request()->set_spec(pipeline.SerializeAsString());
    SLUICE_ASSIGN_OR_RETURN(Frame answer, channel_.Call(std::move(request), kTimeout));
    return answer.get_dataset_info_response().dataset_id();
  }
  Result<int64_t> MakeJob(const std::string& dataset_id, const std::string& job_name = "", int64_t num_shards = 0,
                          const std::string& mode = "distributed_epoch") {
    Frame request;
    GetOrCreateJobRequest* job = request.mutable_get_or_create_job_request();
    job->set_dataset_id(dataset_id);
    job->set_job_name(job_name);
    job->set_processing_mode(mode);
    job->set_num_shards(num_shards);
    SLUICE_ASSIGN_OR_RETURN(Frame answer, channel_.Call(std::move(request), kTimeout));
    return answer.get_or_create_job_response().job_id();
  }

 private:
  RpcChannel channel_;
};

void ExpectRefused(const Status& status, const std::string& cap) {
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted) << status;
  EXPECT_NE(status.message().find(cap), std::string::npos) << status;
}

TEST(DispatcherTest, ConnectionPastItsOpenJobCapIsRefusedAndOthersAreNot) {
  Result<std::unique_ptr<Dispatcher>> dispatcher = Dispatcher::Start({.limits = {.max_open_jobs_per_connection = 2}});
  ASSERT_TRUE(dispatcher.ok()) << dispatcher.status();
  IoThread io("test-client");
  Client a(io, (*dispatcher)->address());
  Client b(io, (*dispatcher)->address());
  Result<std::string> dataset = a.Register(RangeSpec(100));
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  ASSERT_TRUE(a.MakeJob(*dataset).ok());
  ASSERT_TRUE(a.MakeJob(*dataset).ok());
  ExpectRefused(a.MakeJob(*dataset).status(), "max_open_jobs_per_connection 2");
  // Another connection has a cap of its own; joining a job that exists
  // makes none.
  ASSERT_TRUE(b.MakeJob(*dataset, "shared").ok());
  EXPECT_TRUE(a.MakeJob(*dataset, "shared").ok());
}

TEST(DispatcherTest, OpenJobCapHoldsAcrossConnections) {
  Result<std::unique_ptr<Dispatcher>> dispatcher = Dispatcher::Start({.limits = {.max_open_jobs = 1}});
  ASSERT_TRUE(dispatcher.ok()) << dispatcher.status();
  IoThread io("test-client");
  Client a(io, (*dispatcher)->address());
  Client b(io, (*dispatcher)->address());
  Result<std::string> dataset = a.Register(RangeSpec(100));
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  ASSERT_TRUE(a.MakeJob(*dataset).ok());
  ExpectRefused(b.MakeJob(*dataset).status(), "max_open_jobs 1");
}

TEST(DispatcherTest, ConnectionPastItsDatasetCapIsRefusedAndOthersAreNot) {
  Result<std::unique_ptr<Dispatcher>> dispatcher =
      Dispatcher::Start({.limits = {.max_datasets = 3, .max_datasets_per_connection = 1}});
  ASSERT_TRUE(dispatcher.ok()) << dispatcher.status();
  IoThread io("test-client");
  Client a(io, (*dispatcher)->address());
  Client b(io, (*dispatcher)->address());
  Client c(io, (*dispatcher)->address());
  ASSERT_TRUE(a.Register(RangeSpec(1)).ok());
  EXPECT_TRUE(a.Register(RangeSpec(1)).ok());  // registered already: nothing new
  ExpectRefused(a.Register(RangeSpec(2)).status(), "max_datasets_per_connection 1");
  ASSERT_TRUE(b.Register(RangeSpec(2)).ok());
  ASSERT_TRUE((*dispatcher)->RegisterDataset(RangeSpec(3)).ok());
  ExpectRefused(c.Register(RangeSpec(4)).status(), "max_datasets 3");
}

TEST(DispatcherTest, ShardCountPastTheSplitCapIsRefusedBeforeAnySplitIsMade) {
  Result<std::unique_ptr<Dispatcher>> dispatcher = Dispatcher::Start({});
  ASSERT_TRUE(dispatcher.ok()) << dispatcher.status();
  IoThread io("test-client");
  Client a(io, (*dispatcher)->address());
  Result<std::string> dataset = a.Register(RangeSpec(100));
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  ExpectRefused(a.MakeJob(*dataset, "", int64_t{1} << 40, "static_sharding").status(), "max_splits_per_job");
  EXPECT_TRUE(a.MakeJob(*dataset, "", 4, "static_sharding").ok());
}

}  // namespace
}  // namespace sluice::service
