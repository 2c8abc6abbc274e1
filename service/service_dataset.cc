#include "sluice/service/service_dataset.h"

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "sluice/core/logging.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/seed_mix.h"
#include "sluice/service/auth.h"
#include "sluice/service/protocol.h"
#include "sluice/service/rpc_channel.h"
#include "sluice/service/split_provider.h"

namespace sluice::service {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kRpcTimeout{1000};
constexpr milliseconds kReceivePoll{200};
// The most frames a reader thread takes from its connection at once.
constexpr size_t kMaxFramesPerHandOff = 64;
// Finished splits are reported to the dispatcher with each heartbeat, and
// between heartbeats once GetNext waits for elements (the job's end is
// learned from the report of its last splits) or this many are unreported,
// at most once per kMinReportSpacing: a job of many small splits costs a
// report per few splits, not one per split. (Heartbeats that report no
// split do not count: a job's first report, often its last for a small
// job, goes at once.)
constexpr size_t kMaxUnreportedSplits = 64;
constexpr milliseconds kMinReportSpacing{2};

Result<ElementSpec> ElementSpecFromProto(const GetDatasetInfoResponse& info) {
  std::vector<ComponentSpec> components;
  for (const ComponentSpecProto& proto : info.element_spec()) {
    SLUICE_ASSIGN_OR_RETURN(DType dtype, ParseDType(proto.dtype()));
    PartialShape shape = proto.unknown_rank()
                             ? PartialShape::UnknownRank()
                             : PartialShape(std::span<const int64_t>(proto.dims().data(), proto.dims().size()));
    components.push_back({proto.name(), dtype, std::move(shape)});
  }
  return ElementSpec(std::move(components));
}

ConnectOptions ClientConnectOptions(const std::optional<std::string>& token) {
  return {.role = ROLE_CLIENT, .name = StrCat("client ", ::getpid()), .token = token};
}

// What a reader thread hands GetNext.
struct Received {
  enum class Kind { kElement, kError, kSplitEnd };
  Kind kind = Kind::kElement;
  std::shared_ptr<Connection> from;
  int64_t split_id = 0;
  uint64_t index = 0;  // kSplitEnd: the split's element count
  uint64_t first_index = 0;  // the split's first index this run sends
  Element element;
  Status error;
  uint64_t bytes = 0;
};

class ServiceIterator final : public Iterator {
 public:
  ServiceIterator(ServiceOptions options, std::string dataset_id, std::optional<std::string> token, JobSeeds seeds)
      : options_(std::move(options)),
        dataset_id_(std::move(dataset_id)),
        token_(std::move(token)),
        seeds_(seeds),
        io_("sluice-client"),
        dispatcher_(io_, options_.address, ClientConnectOptions(token_)),
        first_index_(options_.num_consumers > 0 ? static_cast<uint64_t>(options_.consumer_index) : 0),
        stride_(options_.num_consumers > 0 ? static_cast<uint64_t>(options_.num_consumers) : 1),
        consumer_uid_(StrCat(std::hex, ::getpid(), "-", RandomSeed())) {}

  ~ServiceIterator() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      for (auto& [uid, reader] : readers_) {
        if (reader.connection != nullptr) reader.connection->Close();
      }
    }
    changed_.notify_all();
    io_.Stop();
    if (coordinator_.joinable()) coordinator_.join();
    for (auto& [uid, reader] : readers_) {
      if (reader.thread.joinable()) reader.thread.join();
    }
  }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (!started_) SLUICE_RETURN_IF_ERROR(StartJob());
    for (;;) {
      while (!taken_.empty()) {
        Received item = std::move(taken_.front());
        taken_.pop_front();
        std::optional<Result<std::optional<Element>>> out = Take(std::move(item));
        if (out.has_value()) return *std::move(out);
      }
      std::unique_lock<std::mutex> lock(mu_);
      if (!queue_.empty()) {
        std::swap(taken_, queue_);
        continue;
      }
      if (job_finished_) return std::optional<Element>();
      if (!failure_.ok()) return failure_;
      if (!finished_to_report_.empty() && !report_wanted_) {
        report_wanted_ = true;
        report_cv_.notify_all();
      }
      if (!restoring_consumers_.empty() && Clock::now() - started_at_ > options_.timeout) {
        std::string missing;
        for (const std::string& uid : restoring_consumers_) missing += (missing.empty() ? "" : ", ") + uid;
        return FailedPreconditionError(
            "from_service: shared job '", options_.job_name, "' restores from the saved states of its consumers and ",
            "still waits for ", restoring_consumers_.size(), " of them (", missing,
            ") after ", options_.timeout.count(), " ms: every consumer reading the job when they saved must restore");
      }
      if (Clock::now() - last_progress_ > options_.timeout) {
        return UnavailableError("no element and no answer from the dispatcher at ", options_.address, " for ",
                                options_.timeout.count(), " ms");
      }
      changed_.wait_for(lock, kReceivePoll);
    }
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    if (!options_.job_name.empty()) SaveSharedJob(writer);
    Tensor completed = Tensor::Allocate(DType::kInt64, Shape{static_cast<int64_t>(completed_.size())});
    std::copy(completed_.begin(), completed_.end(), completed.mutable_data<int64_t>());
    Tensor partial = Tensor::Allocate(DType::kInt64, Shape{static_cast<int64_t>(next_.size()), 2});
    int64_t* rows = partial.mutable_data<int64_t>();
    for (const auto& [split, next] : next_) {
      *rows++ = split;
      *rows++ = static_cast<int64_t>(next);
    }
    writer.WriteTensor("completed_splits", completed);
    writer.WriteTensor("partial_splits", partial);
    // A restored iterator's job runs its splits as this one's did.
    writer.WriteInt("job_seed", static_cast<int64_t>(seeds_.seed));
    writer.WriteInt("job_iteration", static_cast<int64_t>(seeds_.iteration));
    return OkStatus();
  }

  Status RestoreInternal(IteratorStateReader& reader) override {
    if (!options_.job_name.empty()) SLUICE_RETURN_IF_ERROR(RestoreSharedJob(reader));
    SLUICE_ASSIGN_OR_RETURN(Tensor completed, reader.ReadTensor("completed_splits"));
    SLUICE_ASSIGN_OR_RETURN(Tensor partial, reader.ReadTensor("partial_splits"));
    if (completed.dtype() != DType::kInt64 || completed.rank() != 1 || partial.dtype() != DType::kInt64 ||
        partial.rank() != 2 || partial.dim(1) != 2) {
      return DataLossError("from_service: saved state has completed_splits ", completed.shape(),
                           " and partial_splits ", partial.shape(), " (expected int64 [n] and [m, 2])");
    }
    // States saved before jobs had seeds ran them without: {0, 0}.
    if (reader.Contains("job_seed")) {
      SLUICE_ASSIGN_OR_RETURN(const int64_t seed, reader.ReadInt("job_seed"));
      SLUICE_ASSIGN_OR_RETURN(const int64_t iteration, reader.ReadInt("job_iteration"));
      seeds_ = {.seed = static_cast<uint64_t>(seed), .iteration = static_cast<uint64_t>(iteration)};
    } else {
      seeds_ = {};
    }
    completed_.insert(completed.data<int64_t>(), completed.data<int64_t>() + completed.dim(0));
    const int64_t* rows = partial.data<int64_t>();
    for (int64_t i = 0; i < partial.dim(0); ++i) next_[rows[2 * i]] = static_cast<uint64_t>(rows[2 * i + 1]);
    if (restored_from_.has_value()) {
      for (int64_t split : completed_) restored_from_->add_finished_split_ids(split);
      for (const auto& [split, next] : next_) {
        SplitPosition* position = restored_from_->add_partial_splits();
        position->set_split_id(split);
        position->set_num_elements(next);
      }
    }
    return OkStatus();
  }

 private:
  struct Reader {
    std::shared_ptr<Connection> connection;
    std::thread thread;
  };

  // An item from a worker: the element (or error) to return, or nothing
  // for a duplicate or a split's end.
  std::optional<Result<std::optional<Element>>> Take(Received item) {
    // A run of a restored shared job's split starts past what its
    // consumers held: elements before first_index are not sent.
    if (item.kind == Received::Kind::kSplitEnd) {
      const uint64_t next = std::max(NextIndex(item.split_id), item.first_index);
      if (completed_.count(item.split_id) == 0 && next >= item.index) {
        completed_.insert(item.split_id);
        next_.erase(item.split_id);
        {
          std::lock_guard<std::mutex> lock(mu_);
          finished_to_report_.push_back(item.split_id);
          if (finished_to_report_.size() >= kMaxUnreportedSplits) report_cv_.notify_all();
        }
        // Read to its end, the next index lies within a stride of it; one
        // further on was taken from a restored state that claims more of
        // the split than there is, and the split's elements were dropped.
        if (next - item.index >= stride_) {
          return Result<std::optional<Element>>(DataLossError(
              "from_service: split ", item.split_id, " ended after ", item.index,
              " elements, but the restored iterator state puts this consumer's next element of it at index ", next,
              ": the saved state is damaged or not this job's, and the split's elements are lost"));
        }
      }
      return std::nullopt;
    }
    // Credit returns as elements (and errors, where they take it) are
    // taken, duplicates included (in batches: the connection sends it once
    // half the window waits).
    if (item.kind == Received::Kind::kElement ||
        (item.kind == Received::Kind::kError && item.from->ErrorsTakeCredit())) {
      item.from->ReturnCredit(item.bytes, 1);
    }
    if (completed_.count(item.split_id) > 0 || item.index != std::max(NextIndex(item.split_id), item.first_index)) {
      return std::nullopt;
    }
    next_[item.split_id] = item.index + stride_;
    if (item.kind == Received::Kind::kError) return Result<std::optional<Element>>(item.error);
    return Result<std::optional<Element>>(std::optional<Element>(std::move(item.element)));
  }

  uint64_t NextIndex(int64_t split_id) const {
    auto it = next_.find(split_id);
    return it == next_.end() ? first_index_ : it->second;
  }

  // A shared job's consumer saves which job it read, its uid and the uids
  // of the job's consumers it last heard of (a restored job waits for all
  // of their states); not started, or restored and not yet started again:
  // what it was restored from.
  void SaveSharedJob(IteratorStateWriter& writer) {
    if (started_) RefreshLiveConsumers();
    std::lock_guard<std::mutex> lock(mu_);
    const bool restoring = restored_from_.has_value() && (!started_ || !restoring_consumers_.empty() || !heard_);
    int64_t job_id = job_id_;
    std::set<std::string> consumers(live_consumers_.begin(), live_consumers_.end());
    consumers.insert(consumer_uid_);
    if (restoring) {
      job_id = restored_from_->saved_job_id();
      consumers.insert(restored_from_->consumer_uids().begin(), restored_from_->consumer_uids().end());
    }
    writer.WriteInt("job_id", started_ || restoring ? job_id : -1);
    writer.WriteString("consumer_uid", consumer_uid_);
    writer.WriteTensor("consumer_uids",
                       Tensor::FromVector(std::vector<std::string>(consumers.begin(), consumers.end())));
  }

  // Asks the dispatcher for the shared job's live consumers now, so that a
  // consumer that joined since the last heartbeat is among them (kept as
  // last heard when the dispatcher does not answer).
  void RefreshLiveConsumers() {
    Frame request;
    ClientHeartbeatRequest* heartbeat = request.mutable_client_heartbeat_request();
    heartbeat->set_job_id(job_id_);
    heartbeat->set_consumer_index(options_.consumer_index);
    heartbeat->set_consumer_uid(consumer_uid_);
    Result<Frame> answer = dispatcher_.Call(std::move(request), kRpcTimeout);
    if (!answer.ok() || !answer->has_client_heartbeat_response()) return;
    const ClientHeartbeatResponse& response = answer->client_heartbeat_response();
    std::lock_guard<std::mutex> lock(mu_);
    live_consumers_.assign(response.consumer_uids().begin(), response.consumer_uids().end());
  }

  Status RestoreSharedJob(IteratorStateReader& reader) {
    SLUICE_ASSIGN_OR_RETURN(const int64_t job_id, reader.ReadInt("job_id", -1, INT64_MAX));
    SLUICE_ASSIGN_OR_RETURN(std::string uid, reader.ReadString("consumer_uid"));
    SLUICE_ASSIGN_OR_RETURN(Tensor consumers, reader.ReadTensor("consumer_uids"));
    if (uid.empty() || consumers.dtype() != DType::kString || consumers.rank() != 1) {
      return DataLossError("from_service: saved state of shared job '", options_.job_name, "' has consumer uid '", uid,
                           "' and consumer_uids ", DTypeName(consumers.dtype()), consumers.shape(),
                           " (expected a uid and string [n])");
    }
    consumer_uid_ = std::move(uid);
    if (job_id < 0) return OkStatus();  // saved before it read: it starts afresh
    RestoredConsumer restored;
    restored.set_saved_job_id(job_id);
    restored.set_consumer_uid(consumer_uid_);
    for (int64_t i = 0; i < consumers.dim(0); ++i) {
      restored.add_consumer_uids(std::string(std::string_view(consumers.data<TString>()[i])));
    }
    restored_from_ = std::move(restored);
    return OkStatus();
  }

  Status StartJob() {
    Frame request;
    GetOrCreateJobRequest* job = request.mutable_get_or_create_job_request();
    job->set_dataset_id(dataset_id_);
    job->set_job_name(options_.job_name);
    job->set_processing_mode(std::string(ProcessingModeName(options_.processing_mode)));
    job->set_num_consumers(options_.num_consumers);
    job->set_num_shards(options_.num_shards);
    job->set_consumer_uid(consumer_uid_);
    job->set_consumer_index(options_.consumer_index);
    job->set_seed(seeds_.seed);
    job->set_iteration(seeds_.iteration);
    if (restored_from_.has_value()) {
      *job->mutable_restore() = *restored_from_;
    } else if (options_.job_name.empty()) {
      for (int64_t split : completed_) job->add_finished_split_ids(split);
    }
    SLUICE_ASSIGN_OR_RETURN(Frame answer, dispatcher_.Call(std::move(request), options_.timeout));
    if (!answer.has_get_or_create_job_response()) {
      return InternalError("the dispatcher answered GetOrCreateJob with kind ", answer.kind_case());
    }
    if (restored_from_.has_value() && !answer.get_or_create_job_response().restored()) {
      return FailedPreconditionError("from_service: the dispatcher at ", options_.address,
                                     " does not restore shared jobs (its protocol is older than 1.1)");
    }
    std::lock_guard<std::mutex> lock(mu_);
    job_id_ = answer.get_or_create_job_response().job_id();
    started_ = true;
    started_at_ = last_progress_ = Clock::now();
    coordinator_ = std::thread([this] { Coordinate(); });
    return OkStatus();
  }

  // Heartbeats: reports finished splits, learns the workers and whether the
  // job is finished.
  void Coordinate() {
    Clock::time_point last_report;
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      std::vector<int64_t> finished = std::move(finished_to_report_);
      finished_to_report_.clear();
      lock.unlock();
      Frame request;
      ClientHeartbeatRequest* heartbeat = request.mutable_client_heartbeat_request();
      heartbeat->set_job_id(job_id_);
      heartbeat->set_consumer_index(options_.consumer_index);
      heartbeat->set_consumer_uid(consumer_uid_);
      for (int64_t split : finished) heartbeat->add_finished_split_ids(split);
      Result<Frame> answer = dispatcher_.Call(std::move(request), kRpcTimeout);
      lock.lock();
      if (!finished.empty()) last_report = Clock::now();
      if (!answer.ok() || !answer->has_client_heartbeat_response()) {
        // Report again next time (the dispatcher may be restarting).
        finished_to_report_.insert(finished_to_report_.begin(), finished.begin(), finished.end());
        // Refused for good: a wrong token, or this consumer was left out of
        // its coordinated job.
        if (!answer.ok() && (answer.status().code() == StatusCode::kUnauthenticated ||
                             answer.status().code() == StatusCode::kFailedPrecondition)) {
          failure_ = answer.status();
        }
      } else {
        last_progress_ = Clock::now();
        const ClientHeartbeatResponse& response = answer->client_heartbeat_response();
        if (response.job_finished()) job_finished_ = true;
        heard_ = true;
        live_consumers_.assign(response.consumer_uids().begin(), response.consumer_uids().end());
        restoring_consumers_.assign(response.restoring_consumer_uids().begin(),
                                    response.restoring_consumer_uids().end());
        for (const WorkerAddress& worker : response.workers()) {
          if (readers_.count(worker.uid()) == 0) StartReader(worker);
        }
      }
      changed_.notify_all();
      if (job_finished_) return;
      report_cv_.wait_for(lock, options_.heartbeat_interval, [this] {
        return stopping_ || (report_wanted_ && !finished_to_report_.empty()) ||
               finished_to_report_.size() >= kMaxUnreportedSplits;
      });
      report_cv_.wait_until(lock, last_report + kMinReportSpacing, [this] { return stopping_; });
      report_wanted_ = false;
    }
  }

  // REQUIRES: mu_ held.
  void StartReader(const WorkerAddress& worker) {
    Reader& reader = readers_[worker.uid()];
    reader.thread = std::thread([this, uid = worker.uid(), address = worker.address()] { Read(uid, address); });
  }

  // A frame from a worker as GetNext takes it: nullopt for a kind it
  // ignores; the decoder's error for an element that does not decode.
  static Result<std::optional<Received>> ToReceived(ReceivedFrame frame,
                                                     const std::shared_ptr<Connection>& connection) {
    Received item{.from = connection};
    const Frame& f = frame.frame;
    if (f.has_element()) {
      const ElementHeader& header = f.element();
      SLUICE_ASSIGN_OR_RETURN(item.element, DecodeElement(header, frame.payload));
      item.split_id = header.split_id();
      item.index = header.index_in_split();
      item.first_index = header.first_index_in_split();
      item.bytes = DecodedBytes(header, frame.payload == nullptr ? 0 : frame.payload->size());
    } else if (f.has_split_end()) {
      item.kind = Received::Kind::kSplitEnd;
      item.split_id = f.split_end().split_id();
      item.index = f.split_end().num_elements();
      item.first_index = f.split_end().first_index();
    } else if (f.has_element_error()) {
      item.kind = Received::Kind::kError;
      item.bytes = DecodedBytes(f.element_error());
      item.split_id = f.element_error().split_id();
      item.index = f.element_error().index_in_split();
      item.first_index = f.element_error().first_index();
      Error error;
      error.set_code(f.element_error().code());
      error.set_message(f.element_error().message());
      item.error = StatusFromErrorFrame(error);
    } else {
      return std::optional<Received>();
    }
    return std::optional<Received>(std::move(item));
  }

  void Read(const std::string& uid, const std::string& address) {
    Result<std::shared_ptr<Connection>> connected = Connect(io_, address, ClientConnectOptions(token_));
    if (!connected.ok()) {
      SLUICE_LOG(DEBUG) << "from_service: worker " << uid << " at " << address << ": " << connected.status();
      return;  // a worker that died before we reached it
    }
    std::shared_ptr<Connection> connection = *connected;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) {
        connection->Close();
        return;
      }
      readers_[uid].connection = connection;
    }
    Frame request;
    request.mutable_read_job_request()->set_job_id(job_id_);
    request.mutable_read_job_request()->set_consumer_index(options_.consumer_index);
    request.mutable_read_job_request()->set_compression(options_.compression);
    Status status = connection->GrantCreditBlocking(options_.credit_bytes, *options_.credit_elements, kRpcTimeout);
    if (status.ok()) status = connection->SendBlocking(std::move(request), kRpcTimeout);
    // A read's frames are decoded and handed to GetNext together: one lock
    // and at most one wake-up for many small elements.
    std::vector<ReceivedFrame> frames;
    std::vector<Received> items;
    bool ended = false;
    while (status.ok() && !ended) {
      frames.clear();
      status = connection->ReceiveSomeBlocking(kReceivePoll, kMaxFramesPerHandOff, &frames);
      if (!status.ok()) {
        if (status.code() == StatusCode::kDeadlineExceeded && connection->closed().ok()) status = OkStatus();
        continue;
      }
      items.clear();
      Status refused;
      for (ReceivedFrame& frame : frames) {
        const Frame& f = frame.frame;
        if (f.has_error()) {
          // The worker refused the job (its roots, its spec): every consumer must hear it.
          refused = StatusFromErrorFrame(f.error()).WithContext(StrCat("worker at ", address));
          ended = true;
          break;
        }
        if (f.has_element() && f.element().end_of_stream()) {
          ended = true;
          break;
        }
        Result<std::optional<Received>> item = ToReceived(std::move(frame), connection);
        if (!item.ok()) {
          status = item.status();
          break;
        }
        if (item->has_value()) items.push_back(std::move(**item));
      }
      if (items.empty() && refused.ok()) continue;
      std::lock_guard<std::mutex> lock(mu_);
      if (!items.empty()) last_progress_ = Clock::now();
      for (Received& item : items) queue_.push_back(std::move(item));
      if (!refused.ok()) failure_ = refused;
      changed_.notify_all();
    }
    if (!status.ok()) SLUICE_LOG(DEBUG) << "from_service: worker " << uid << " at " << address << ": " << status;
  }

  const ServiceOptions options_;
  const std::string dataset_id_;
  const std::optional<std::string> token_;
  JobSeeds seeds_;  // its job's (a restored iterator's: the saved job's)
  IoThread io_;
  RpcChannel dispatcher_;
  const uint64_t first_index_;
  const uint64_t stride_;
  std::string consumer_uid_;  // restored from a saved state of a shared job
  // A shared job's saved state, when restored from one.
  std::optional<RestoredConsumer> restored_from_;
  bool started_ = false;                        // GUARDED_BY(mu_) once the coordinator runs
  int64_t job_id_ = -1;                         // GUARDED_BY(mu_) once the coordinator runs
  Clock::time_point started_at_;
  std::thread coordinator_;

  // Consumed so far (the GetNext thread's; what Save writes).
  std::set<int64_t> completed_;
  std::map<int64_t, uint64_t> next_;  // split id -> next index expected

  std::mutex mu_;
  std::condition_variable changed_;
  std::condition_variable report_cv_;
  std::deque<Received> queue_;                  // GUARDED_BY(mu_)
  // What GetNext took from queue_, all at once: the reader threads and
  // GetNext meet on mu_ once per read, not once per element.
  std::deque<Received> taken_;
  std::map<std::string, Reader> readers_;       // GUARDED_BY(mu_)
  std::vector<int64_t> finished_to_report_;     // GUARDED_BY(mu_)
  bool report_wanted_ = false;                  // GUARDED_BY(mu_): GetNext waits while splits are unreported
  bool job_finished_ = false;                   // GUARDED_BY(mu_)
  bool stopping_ = false;                       // GUARDED_BY(mu_)
  Status failure_;                              // GUARDED_BY(mu_)
  Clock::time_point last_progress_;             // GUARDED_BY(mu_)
  bool heard_ = false;                          // GUARDED_BY(mu_): a heartbeat was answered
  std::vector<std::string> live_consumers_;     // GUARDED_BY(mu_): the shared job's, as last heard
  std::vector<std::string> restoring_consumers_;  // GUARDED_BY(mu_): whose saved states the job awaits
};

class ServiceDataset final : public Dataset {
 public:
  ServiceDataset(ServiceOptions options, std::string dataset_id, std::optional<std::string> token, ElementSpec spec)
      : Dataset(std::move(spec), kUnknownCardinality),
        options_(std::move(options)),
        dataset_id_(std::move(dataset_id)),
        token_(std::move(token)) {}

  std::string_view op_name() const override { return "from_service"; }
  std::string DebugParams() const override {
    return StrCat("address=", options_.address, ", dataset_id=", dataset_id_, ", processing_mode=",
                  ProcessingModeName(options_.processing_mode),
                  options_.job_name.empty() ? "" : StrCat(", job_name=", options_.job_name));
  }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  Status ToSpec(spec::Pipeline*) const override {
    return UnimplementedError("from_service reads a running service and cannot be written as a spec");
  }

 private:
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext&) const override {
    const JobSeeds seeds{.seed = seed_, .iteration = iterations_.fetch_add(1, std::memory_order_relaxed)};
    return std::make_unique<ServiceIterator>(options_, dataset_id_, token_, seeds);
  }

  const ServiceOptions options_;
  const std::string dataset_id_;
  const std::optional<std::string> token_;
  const uint64_t seed_ = options_.seed.value_or(RandomSeed());
  mutable std::atomic<uint64_t> iterations_{0};  // iterators made
};

}  // namespace

Result<DatasetPtr> MakeServiceDataset(ServiceOptions options) {
  if (options.address.empty()) return InvalidArgumentError("from_service: no dispatcher address given");
  if (options.spec.has_value() == !options.dataset_id.empty()) {
    return InvalidArgumentError("from_service: give exactly one of spec and dataset_id");
  }
  if (options.num_consumers < 0 || options.num_consumers > kMaxConsumersPerJob) {
    return InvalidArgumentError("from_service: num_consumers must be in [0, ", kMaxConsumersPerJob, "], got ",
                                options.num_consumers);
  }
  if (options.num_consumers > 0 && (options.consumer_index < 0 || options.consumer_index >= options.num_consumers)) {
    return InvalidArgumentError("from_service: consumer_index ", options.consumer_index,
                                " must be in [0, num_consumers = ", options.num_consumers, ")");
  }
  if (options.credit_bytes == 0 || options.credit_elements == 0) {
    return InvalidArgumentError("from_service: credit_bytes and credit_elements must be > 0");
  }
  if (!options.credit_elements.has_value()) {
    const bool shared = !options.job_name.empty() && options.num_consumers == 0;
    options.credit_elements = shared ? kSharedJobCreditElements : kDefaultCreditElements;
  }
  SLUICE_ASSIGN_OR_RETURN(std::optional<std::string> token, LoadToken(options.token_file));
  if (!options.seed.has_value() && options.spec.has_value() && options.spec->has_seed()) {
    options.seed = options.spec->seed();
  }
  Frame request;
  GetDatasetInfoRequest* info = request.mutable_get_dataset_info_request();
  if (options.spec.has_value()) {
    info->set_spec(options.spec->SerializeAsString());
  } else {
    info->set_dataset_id(options.dataset_id);
  }
  IoThread io("sluice-client");
  RpcChannel dispatcher(io, options.address, ClientConnectOptions(token));
  Result<Frame> answer = dispatcher.Call(std::move(request), kRpcTimeout * 5);
  dispatcher.Close();
  if (!answer.ok()) return answer.status().WithContext(StrCat("from_service: dispatcher ", options.address));
  if (!answer->has_get_dataset_info_response()) {
    return InternalError("from_service: the dispatcher answered GetDatasetInfo with kind ", answer->kind_case());
  }
  SLUICE_ASSIGN_OR_RETURN(ElementSpec spec, ElementSpecFromProto(answer->get_dataset_info_response()));
  std::string dataset_id = answer->get_dataset_info_response().dataset_id();
  options.spec.reset();
  return DatasetPtr(
      std::make_shared<ServiceDataset>(std::move(options), std::move(dataset_id), std::move(token), std::move(spec)));
}

Pipeline FromService(ServiceOptions options) { return Pipeline(MakeServiceDataset(std::move(options))); }

}  // namespace sluice::service
